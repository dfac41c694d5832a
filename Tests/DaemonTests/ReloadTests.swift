import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a reload says about what it could not apply.
@Suite(.serialized, .waitsOnProcesses) struct ReloadTests {
    /// Hardening round 3: a reload that changed `[device] mode` said only "reloaded"; it says now
    /// that the mode applies at start.
    @Test func aReloadChangingTheMode_saysTheModeStays() throws {
        let d = try DaemonUnderTest(["--replay", Root.fixtures + "/tap.events"], config: "[screen]\nwidth = 1920\nheight = 1080\n")
        let c = try TestClient(d.socket)
        _ = c.next("hello")
        try "[device]\nmode = \"grab\"\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        #expect(c.stat("reloads", reaches: 1) == 1)
        #expect(d.stop() == 0)
        #expect(d.log.contains("applies from the next touch sequence; but [device] mode = \"grab\" applies at start: the panels stay \"observe\" until a restart"), "\(d.log)")
    }
}
