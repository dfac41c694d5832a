import Foundation
import GestureProtocol
import Testing

/// The Debian package's version is the binaries' (`--version`, the daemon's `hello`).
@Suite(.waitsOnProcesses) struct PackageVersionTests {
    @Test func debianChangelog_namesThePackageVersion() throws {
        let changelog = try String(contentsOfFile: Root.path + "/debian/changelog", encoding: .utf8)
        let first = try #require(changelog.split(separator: "\n").first)
        let version = try #require(first.firstMatch(of: /^touchgestured \(([^)]+)\)/)?.1)
        #expect(String(version) == packageVersion, "debian/changelog's newest entry is \(version), the code's \(packageVersion)")
    }
}
