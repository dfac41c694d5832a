import Foundation
import GestureConfig
import GestureEngine
import GestureProtocol
import Testing
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon runs `[[action]]` commands: with the gesture in a clean environment, bounded in
/// time (SIGTERM, then SIGKILL) and in number (skipped over the cap, never queued), while every
/// client still gets every gesture line.
@Suite(.serialized, .waitsOnProcesses) struct DaemonActionTests {
    /// A script file in `dir` (actions run programs, not shell text).
    static func script(_ dir: String, _ name: String, _ body: String) throws -> String {
        let path = dir + "/" + name
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test func aTap_runsItsCommand_withTheGestureInACleanEnvironment() throws {
        let dir = scratch()
        let envFile = dir + "/env.txt"
        let s = try Self.script(dir, "record-env.sh", "env | sort > \(envFile).tmp; pwd >> \(envFile).tmp; mv \(envFile).tmp \(envFile)")
        let config = "[daemon]\nmax_action_children = 2\n[[action]]\nname = \"record\"\ngesture = \"tap\"\nexec = [\"\(s)\"]\n"
        let fixture = Root.fixtures + "/tap.events"
        let d = try DaemonUnderTest(["--replay", fixture, "--exit-after-replay", "--speed", "4"], config: config, env: ["SECRET": "x"], dir: dir)
        #expect(d.exit(within: 10) == 0)
        let tap = try #require(try offlineLines(fixture).compactMap { try? parseJSON(Array($0.utf8)) }.first { $0["gesture"] == .string("tap") })
        let env = try String(contentsOfFile: envFile, encoding: .utf8).split(separator: "\n").map(String.init)
        let x = Int(tap["x"]!.number!.rounded()), y = Int(tap["y"]!.number!.rounded())
        #expect(
            env == [
                // PWD is the shell's own (dash exports it); nothing of the daemon's (SECRET) is there.
                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "PWD=/",
                "TOUCHGESTURED_DEVICE=1", "TOUCHGESTURED_DIRECTION=", "TOUCHGESTURED_EDGE=", "TOUCHGESTURED_EVENT=gesture", "TOUCHGESTURED_FINGERS=1",
                "TOUCHGESTURED_GESTURE=tap", "TOUCHGESTURED_NAME=tap", "TOUCHGESTURED_PHASE=recognized",
                "TOUCHGESTURED_REGION=screen", "TOUCHGESTURED_X=\(x)", "TOUCHGESTURED_Y=\(y)", "/",
            ])
        #expect(d.log.contains("action 'record' started: \(s)"))
        #expect(d.log.contains("action 'record' (pid "))
        #expect(d.log.contains("exited with status 0"))
    }

    /// A command printing 30 MB (30,000 lines) for one tap once logged 29,000 lines: its first
    /// lines are logged, the rest is read (the command never blocks) and only counted.
    @Test func aCommandsOutput_isLoggedUpToItsBound_thenCounted() throws {
        let dir = scratch()
        let s = try Self.script(dir, "loud.sh", "head -c 30000000 /dev/zero | tr '\\0' a | fold -w 999")
        let config = "[[action]]\nname = \"loud\"\ngesture = \"tap\"\nexec = [\"\(s)\"]\n"
        let d = try DaemonUnderTest(
            ["--replay", Root.fixtures + "/tap.events", "--exit-after-replay", "--speed", "4"], config: config, dir: dir)
        #expect(d.exit(within: 30) == 0)
        let log = d.log
        let lines = log.split(separator: "\n").filter { $0.contains("action 'loud' (pid") && $0.contains(": aaaa") }
        #expect(lines.count == 32, "\(lines.count) lines of its output were logged")
        // About 30 MB, less the 32 lines logged (and their newlines): what was read and not logged.
        let counted = log.split(separator: "\n").first { $0.contains("more byte(s) of output not logged (the first 32 lines are)") }
        let bytes = counted.flatMap { line in line.split(separator: " ").first { Int($0) != nil }.flatMap { Int($0) } } ?? 0
        #expect((29_900_000...30_100_000).contains(bytes), "\(counted ?? "no line counts the output not logged")")
        #expect(log.contains("exited with status 0"))
    }

    @Test func aHangingCommand_getsSIGTERM_thenSIGKILL_andTheDaemonGoesOn() throws {
        let dir = scratch()
        // It ignores SIGTERM (and so does the sleep it starts): only SIGKILL ends it.
        let s = try Self.script(dir, "hang.sh", "trap '' TERM\nsleep 30\necho never")
        let config = "[[action]]\nname = \"hang\"\ngesture = \"tap\"\ntimeout = 200\nexec = [\"\(s)\"]\n"
        let d = try DaemonUnderTest(
            ["--replay", Root.fixtures + "/tap.events", "--exit-after-replay", "--speed", "4"], config: config, dir: dir)
        #expect(d.exit(within: 10) == 0, "the daemon did not end its hanging command and exit")
        let log = d.log
        #expect(log.contains("action 'hang' (pid"))
        #expect(log.contains("timed out after 200 ms: SIGTERM to 2 process(es)"))
        #expect(log.contains("still running 2 s after SIGTERM: SIGKILL to 2 process(es)"))
        #expect(log.contains("killed by signal 9"))
        #expect(!log.contains("never"))
    }

    /// A firing skipped because `max_action_children` commands run starts no cooldown: the
    /// first tap runs a 1.5 s command (cooldown 1 s), the second (at 1.2 s) finds it running and
    /// is skipped, the third (at 1.9 s, after the first ended) runs: it is 0.7 s after the
    /// skipped one, within the cooldown had that one started it.
    @Test func aFiringSkippedForTheLimit_startsNoCooldown() throws {
        let dir = scratch()
        let runs = dir + "/runs.txt"
        let s = try Self.script(dir, "slow.sh", "echo run >> \(runs)\nsleep 1.5")
        let config = """
            [daemon]
            max_action_children = 1
            [[region]]
            name = "pad"
            [[region.gesture]]
            kind = "tap"
            [[action]]
            name = "slow"
            gesture = "tap"
            cooldown = 1000
            exec = ["\(s)"]
            """
        let recording = try IdleTests.taps(at: [0.5, 1.7, 2.4], in: dir)
        let d = try DaemonUnderTest(["--replay", recording, "--wait-for-clients", "1", "--exit-after-replay"], config: config, dir: dir)
        let c = try TestClient(d.socket)
        while c.line(seconds: 15) != nil {}
        #expect(d.exit(within: 15) == 0)
        let ran = ((try? String(contentsOfFile: runs, encoding: .utf8)) ?? "").split(separator: "\n").count
        #expect(ran == 2, "\(ran) runs: the third tap was taken for a cooldown the skipped one started\n\(d.log)")
        #expect(d.log.contains("skipped: 1 actions running"))
    }

    /// 200 taps in one second (a 10 s recording at 10×), each firing a command that runs 150 ms,
    /// with no cooldown and at most 4 at once.
    @Test func twoHundredGesturesInASecond_neverRunMoreThanTheCap_andNoLineIsLost() throws {
        let dir = scratch()
        let recording = try tapsRecording(count: 200, dir: dir)
        let trace = dir + "/runs.txt"
        let s = try Self.script(dir, "busy.sh", "echo \"+ $$ $(date +%s%N)\" >> \(trace)\nsleep 0.15\necho \"- $$ $(date +%s%N)\" >> \(trace)")
        let config = """
            [daemon]
            max_action_children = 4
            [[region]]
            name = "pad"
            [[region.gesture]]
            kind = "tap"
            [[action]]
            name = "busy"
            gesture = "tap"
            exec = ["\(s)"]
            """
        let d = try DaemonUnderTest(
            ["--replay", recording, "--wait-for-clients", "1", "--exit-after-replay", "--speed", "10"], config: config, dir: dir)
        let c = try TestClient(d.socket)
        var taps = 0
        while let l = c.line(seconds: 15) {
            if l.contains(#""gesture":"tap""#) { taps += 1 }
        }
        #expect(d.exit(within: 10) == 0)
        #expect(taps == 200, "a client got \(taps) of 200 tap lines")
        // Concurrency as the commands themselves saw it: each run's start and end, by its shell's
        // pid. A run whose two marks are not both there is no run to count (and is said).
        var starts: [Substring: Int64] = [:], ends: [Substring: Int64] = [:], torn: [Substring] = []
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 3, let at = Int64(words[2]) else {
                torn.append(line)
                continue
            }
            if words[0] == "+" { starts[words[1]] = at } else { ends[words[1]] = at }
        }
        var marks: [(delta: Int, at: Int64)] = []
        for (pid, start) in starts {
            guard let end = ends[pid] else {
                torn.append("+ \(pid) \(start), no end")
                continue
            }
            marks += [(1, start), (-1, end)]
        }
        #expect(torn.isEmpty, "marks of no whole run: \(torn); the log: \(d.log.split(separator: "\n").filter { $0.contains("busy") && !$0.contains("started") }.prefix(8))")
        // An end before a start at the same nanosecond.
        marks.sort { a, b in a.at != b.at ? a.at < b.at : a.delta < b.delta }
        var running = 0, most = 0
        for (delta, _) in marks {
            running += delta
            most = max(most, running)
        }
        let runs = marks.count / 2
        // The daemon sends a command only while fewer than four of its commands run, and a run's
        // marks fall within its command's life: four can overlap (a shell between its children
        // is one process, so the runner's count of processes may let a fourth in), never five.
        #expect(most <= 4 && most >= 1, "at most \(most) ran at once (the cap four)")
        #expect(runs >= 4 && runs < 200, "\(runs) ran")
        // Each run is two processes (the shell and its sleep): the runner's count of live
        // processes turns firings away, the daemon's count of commands may too.
        #expect(d.log.contains("skipped: 4 action processes running, the limit (max_action_children)"))
    }
}

/// A recording of `count` one-finger taps, `spacingMs` apart (20 ms each), on a 3840×2160 panel.
func tapsRecording(count: Int, spacingMs: Int64 = 50, dir: String) throws -> String {
    var events: [InputEvent] = []
    func ev(_ ms: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: Timestamp(nanoseconds: ms * 1_000_000), type: type, code: code, value: value))
    }
    for i in 0..<count {
        let t = Int64(i) * spacingMs + 100
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0)
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, Int32(i + 1))
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 1000 + Int32(i % 7) * 200)
        ev(t, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 1000)
        ev(t, Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)
        ev(t, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        ev(t + 20, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
        ev(t + 20, Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)
        ev(t + 20, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
    }
    let panel = DeviceDescription.multitouchPanel(name: "actions panel", maxX: 3839, maxY: 2159, slots: 10, resolution: 15)
    let recording = dir + "/taps.events"
    try Evemu.format(Recording(description: panel, events: events)).write(toFile: recording, atomically: true, encoding: .utf8)
    return recording
}
