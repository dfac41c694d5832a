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
        // The commands that printed (devices, ping, stats, regions) did not look either.
        let local = try Command.run("/bin/sh", ["-c", "\(Paths.binary) devices --local > /dev/full"])
        #expect(local.status == 1 && local.err.contains("cannot write the output"), "\(local.status) \(local.err)")
    }

    /// Values no one could mean, taken until the command met the hardware (or ran as a live
    /// daemon): refused as usage errors, naming the flag.
    @Test(arguments: [
        (["monitor", "--count", "0"], "--count"), (["monitor", "--count=-1"], "--count"), (["monitor", "--coalesce-ms", "101"], "--coalesce-ms"),
        (["monitor", "--devices", "abc"], "--devices"), (["play", "--uinput", "--hold=-1", "x.events"], "--hold"),
        (["play", "--uinput", "--settle", "nan", "x.events"], "--settle"), (["record", "--duration", "0", "/dev/input/event0"], "--duration"),
        (["regions", "set", "--seconds", "0", "x.toml"], "--seconds"),
    ])
    func valuesNoOneCouldMean_areUsageErrors(args: [String], flag: String) throws {
        let r = try cli.run(args)
        #expect(r.status == 64 && r.err.contains(flag), "\(r.status) \(r.err)")
    }

    @Test func aReplaysFlagsWithoutAReplay_areRefused() throws {
        for flag in [["--loop"], ["--speed", "2"], ["--wait-for-clients", "1"]] {
            let r = try Command.run(Self.daemon, flag)
            #expect(r.status == 64 && r.err.contains("is for a --replay"), "\(flag): \(r.err)")
        }
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

    /// Flags that never ended (--exit-after-replay without a replay, or with --loop), or lost a
    /// recording in silence (two --replay).
    @Test func flagsThatCouldNeverEnd_areRefused() throws {
        let dir = Scratch.directory("probe")
        for (args, reason) in [
            (["--exit-after-replay"], "--exit-after-replay stops after a --replay"),
            (["--replay", Paths.fixtures + "/tap.events", "--exit-after-replay", "--loop"], "--loop plays the recording forever"),
            (["--wait-for-clients", "9223372036854775807"], "--wait-for-clients must be from 0 to 1024"),
            (["--replay", Paths.fixtures + "/tap.events", "--replay", Paths.fixtures + "/double-tap.events"], "--replay plays one recording; 2 were given"),
        ] {
            let r = try Command.run(Self.daemon, args + ["--socket", dir + "/s.sock"])
            #expect(r.status != 0 && r.err.contains(reason), "\(args): \(r.err)")
        }
        // More clients than the configuration takes: it would wait forever.
        try "[daemon]\nmax_clients = 1\n".write(toFile: dir + "/one.toml", atomically: true, encoding: .utf8)
        let r = try Command.run(
            Self.daemon, ["--config", dir + "/one.toml", "--socket", dir + "/s.sock", "--replay", Paths.fixtures + "/tap.events", "--wait-for-clients", "2"])
        #expect(r.status != 0 && r.err.contains("--wait-for-clients 2: the daemon takes 1 clients at most"), "\(r.err)")
    }

    /// Messages that said the wrong thing: a device's errno text, a temporary file's name, a
    /// file named twice, an integer as a float, a string's end for its start.
    @Test func messagesSayWhatIsWrong() throws {
        let dir = Scratch.directory("probe")
        let tap = Paths.fixtures + "/tap.events"
        let full = try cli.run(["replay", "--mirror", "/dev/full", tap])
        #expect(full.status == 1 && full.err.contains("touchgesturectl: /dev/full: a device, not a regular file"), "\(full.err)")
        let folder = try cli.run(["replay", "--mirror", dir + "/none/x.events", tap])
        #expect(folder.err.contains("\(dir)/none/x.events: its folder \(dir)/none: No such file or directory"), "\(folder.err)")
        let learn = try cli.run(["strokes", "learn", "--name", "c", "-o", dir + "/z.toml", dir + "/missing.events"])
        #expect(learn.err == "touchgesturectl: \(dir)/missing.events: No such file or directory\n", "\(learn.err)")
        let doctor = try cli.run(["doctor", tap])
        #expect(doctor.status == 1 && doctor.err.contains("is no input device node (a recording is read with --recording FILE)"), "\(doctor.err)")
        for (text, said) in [
            ("[screen]\nwidth = 9223372036854775807\n", ":2: 'width' must be at most 65536, found 9223372036854775807"),
            ("a = \"\"\"\nxx\nyy\n", ":1: unterminated multi-line string (opened here, never closed)"),
        ] {
            try text.write(toFile: dir + "/c.toml", atomically: true, encoding: .utf8)
            let r = try cli.run(["check-config", dir + "/c.toml"])
            #expect(r.status == 1 && r.err.contains(dir + "/c.toml" + said), "\(r.err)")
        }
        let both = try cli.run(["replay", "--pretty", "--actions", tap])
        #expect(both.status != 0 && both.err.contains("give one"), "\(both.err)")
    }
}
