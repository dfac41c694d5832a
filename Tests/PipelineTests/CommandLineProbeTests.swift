import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The tools as a user runs them, from a probe of their bad inputs (2026-12-02): outputs that
/// failed in silence, flags that overwrote an input or never ended.
@Suite struct CommandLineProbeTests {
    let cli = CommandLineTests()
    static let daemon = Repository.root + "/.build/debug/touchgestured"

    /// `replay > /dev/full`, or with its output closed, exited 0 with nothing written.
    @Test func anOutputThatCannotBeWritten_failsTheCommand() throws {
        let replay = "\(Paths.binary) replay \(Paths.fixtures)/tap.events"
        let full = try Command.run("/bin/sh", ["-c", "\(replay) > /dev/full"])
        #expect(full.status == 1 && full.err.contains("cannot write the output"), "\(full.status) \(full.err)")
        let closed = try Command.run("/bin/sh", ["-c", "\(replay) 1>&- ; echo $?"])
        #expect(closed.out.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "stdout closed: \(closed.out) \(closed.err)")
    }

    /// `--trace-hops` onto the replay's own recording or config replaced it with the trace.
    @Test func aHopTraceOntoAnInputOfTheRun_isRefused_andLeavesItWhole() throws {
        let dir = Scratch.directory("probe")
        let recording = dir + "/victim.events"
        try FileManager.default.copyItem(atPath: Paths.fixtures + "/tap.events", toPath: recording)
        let before = try String(contentsOfFile: recording, encoding: .utf8)
        let r = try Command.run(
            Self.daemon, ["--replay", recording, "--exit-after-replay", "--socket", dir + "/s.sock", "--trace-hops", recording])
        #expect(r.status != 0 && r.err.contains("an input of this run: it would be overwritten"), "\(r.err)")
        #expect(try String(contentsOfFile: recording, encoding: .utf8) == before)
    }

    /// Flags that never ended: --exit-after-replay without a replay, or with --loop.
    @Test func flagsThatCouldNeverEnd_areRefused() throws {
        let dir = Scratch.directory("probe")
        for (args, reason) in [
            (["--exit-after-replay"], "--exit-after-replay stops after a --replay"),
            (["--replay", Paths.fixtures + "/tap.events", "--exit-after-replay", "--loop"], "--loop plays the recording forever"),
            (["--wait-for-clients", "9223372036854775807"], "--wait-for-clients must be from 0 to 1024"),
        ] {
            let r = try Command.run(Self.daemon, args + ["--socket", dir + "/s.sock"])
            #expect(r.status != 0 && r.err.contains(reason), "\(args): \(r.err)")
        }
    }
}
