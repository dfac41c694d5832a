import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Hardening round 3, `touchgesturectl` as a user runs it: numbers that trapped, files that are
/// not what they seem, text that could steer a terminal.
@Suite struct CommandLineHardeningTests {
    let cli = CommandLineTests()

    static func scratch() -> String {
        Scratch.directory("ctl")
    }

    /// `import lisgd -- -m 1e300 ...` trapped (SIGILL); now refused with the option's range.
    @Test func lisgdImport_withHugeNumbers_isRefused_notATrap() throws {
        for (flag, value) in [("-m", "1e300"), ("-t", "9223372036854775807"), ("-w", "1e300"), ("-h", "-5")] {
            let r = try cli.run(["import", "lisgd", "--", flag, value, "-g", "1,LR,L,*,R,x"])
            #expect(r.status == 1, "\(flag) \(value): status \(r.status) \(r.err)")
            #expect(r.err.contains("lisgd option \(flag) takes"), "\(r.err)")
        }
    }

    /// `pixels_per_notch = 1e-15` passed check-config and trapped replay; `zoom_step = 1.000001`
    /// froze it. Both are refused with the file's line now, by check-config and replay alike.
    @Test func pointerNumbers_thatTrappedOrFroze_areRefusedWithTheirLine() throws {
        let dir = Self.scratch()
        for (key, value) in [("pixels_per_notch", "1e-15"), ("pixels_per_notch", "5e-324"), ("zoom_step", "1.000001")] {
            let path = dir + "/p.toml"
            try "[[region]]\nname = \"page\"\nemulate = \"pointer\"\n[region.pointer]\n\(key) = \(value)\n".write(
                toFile: path, atomically: true, encoding: .utf8)
            let c = try cli.run(["check-config", path])
            #expect(c.status == 1 && c.err.contains("\(path):5: '\(key)' must be from"), "\(c.err)")
            let r = try cli.run(["replay", "--config", path, Paths.examples + "/recordings/tour.events"])
            #expect(r.status == 1 && r.err.contains("\(path):5:"), "\(r.err)")
        }
    }

    /// `metrics --output /dev/full` (as root) replaced the device node with a file: a path that
    /// is not a regular file is refused and left as it was.
    @Test func metricsOutput_replacesOnlyARegularFile() throws {
        let dir = Self.scratch()
        mkfifo(dir + "/fifo", 0o600)
        symlink("/etc/hostname", dir + "/link")
        for target in [dir + "/fifo", dir + "/link", "/dev/full", "/dev/null"] {
            var before = stat()
            lstat(target, &before)
            let r = try cli.run(["metrics", "--socket", dir + "/none.sock", "--output", target])
            var after = stat()
            lstat(target, &after)
            #expect(r.status == 1 && r.err.contains("is not a regular file"), "\(target): \(r.err)")
            #expect(before.st_mode == after.st_mode && before.st_ino == after.st_ino, "\(target) was replaced")
        }
        let file = dir + "/touchgestured.prom"
        let r = try cli.run(["metrics", "--socket", dir + "/none.sock", "--output", file])
        #expect(r.status == 0, "\(r.err)")
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("touchgestured_up 0"))
    }

    /// `replay` on a FIFO blocked forever in open(2); a recording must be a regular file.
    @Test func replayOfAFIFO_isRefusedAtOnce() throws {
        let dir = Self.scratch()
        mkfifo(dir + "/rec.events", 0o600)
        let r = try cli.run(["replay", dir + "/rec.events"])
        #expect(r.status == 1 && r.err.contains("not a regular file"), "\(r.err)")
    }

    /// `trace -o x.gif` wrote an SVG under a GIF's name.
    @Test func traceToAnotherFormat_isRefused() throws {
        let dir = Self.scratch()
        let r = try cli.run(["trace", "-o", dir + "/x.gif", Paths.fixtures + "/tap.events"])
        #expect(r.status == 1 && r.err.contains("trace writes an SVG (OUT.svg) or a PNG (OUT.png"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.gif"))
        let png = try cli.run(["trace", "--png", "-o", dir + "/x.svg", Paths.fixtures + "/tap.events"])
        #expect(png.status == 1)
        #expect(try cli.run(["trace", "-o", dir + "/x.svg", Paths.fixtures + "/tap.events"]).status == 0)
        // --png chooses the PNG whatever the name (it was refused unless the name said so too).
        #expect(try cli.run(["trace", "--png", "-o", dir + "/picture", Paths.fixtures + "/tap.events"]).status == 0)
        let bytes = try #require(FileManager.default.contents(atPath: dir + "/picture"))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG's signature")
    }

    /// check-config printed exec arguments raw: an ESC sequence or U+202E (which shows the rest
    /// of a line backwards) reached the terminal.
    @Test func checkConfig_escapesWhatCouldSteerTheTerminal() throws {
        let dir = Self.scratch()
        let path = dir + "/c.toml"
        try "[[action]]\nname = \"a\"\ngesture = \"tap\"\nexec = [\"/bin/echo\", \"\\u001b[2J\", \"fdp.exe\\u202Etxt\"]\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let r = try cli.run(["check-config", path])
        #expect(r.status == 0, "\(r.err)")
        #expect(!r.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, "\(r.out)")
        // (Quoted as a shell reads them back: `Action.quoted`.)
        #expect(r.out.contains(#"$'\x1b[2J'"#) && r.out.contains(#"$'fdp.exe\u202etxt'"#), "\(r.out)")
    }
}
