import Testing

@testable import WebBridge

/// Paths map to files under the site folder only, with their types.
@Suite struct StaticFilesTests {
    let files = StaticFiles(root: "/srv/www")

    @Test func plainPaths() {
        #expect(files.resolve("/")?.file == "/srv/www/index.html")
        #expect(files.resolve("/")?.contentType == "text/html; charset=utf-8")
        #expect(files.resolve("/touchgestured.js?v=2")?.file == "/srv/www/touchgestured.js")
        #expect(files.resolve("/touchgestured.js")?.contentType == "text/javascript; charset=utf-8")
        #expect(files.resolve("/img/a-1_b.PNG")?.contentType == "image/png")
        #expect(files.resolve("/app/")?.file == "/srv/www/app/index.html")
        // A page by its name alone: the calibration page at /calibrate.
        #expect(files.resolve("/calibrate?device=2")?.file == "/srv/www/calibrate.html")
        #expect(files.resolve("/calibrate")?.contentType == "text/html; charset=utf-8")
    }

    @Test func pathsThatCouldLeaveTheFolder_orHiddenOnes_areNotServed() {
        for path in ["/../etc/passwd", "/a/../../b.js", "/.git/config", "/%2e%2e/x.js", "//etc/passwd.js", "/a//b.js",
                     "relative.js", "/x.exe", "/..", "/a/.hidden", "/a b.js", "/\u{e9}.js", "/a\\b.js"] {
            #expect(files.resolve(path) == nil, "\(path)")
        }
    }
}
