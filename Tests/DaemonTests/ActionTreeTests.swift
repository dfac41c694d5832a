import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Whatever an action's command starts stays in the daemon's reach: it counts against the cap,
/// its timeout and the daemon's stop end it, and a process that leaves the command's session is
/// killed. Each command below carries a marker (an odd sleep length) to find its processes by.
@Suite(.serialized, .waitsOnProcesses) struct ActionTreeTests {
    /// The live processes whose command line carries `marker` (and whose parent is `parent`, if
    /// given: other suites' daemons run beside this one).
    static func processes(_ marker: String, parent: Int32? = nil) -> [Int32] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return pids.compactMap { name -> Int32? in
            guard let pid = Int32(name),
                let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"),
                let state = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                !state.contains(") Z ")
            else { return nil }
            // stat: pid (comm) state ppid ...; the name may hold spaces and parentheses.
            if let parent, let close = state.lastIndex(of: ")"),
                state[state.index(after: close)...].split(separator: " ").dropFirst().first != Substring(String(parent)) {
                return nil
            }
            let args = String(decoding: raw.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return args.contains(marker) ? pid : nil
        }
    }

    /// Waits (at most 10 s) until `count` processes carry `marker`; how many did.
    static func waitFor(_ marker: String, count: Int) -> Int {
        var seen = 0
        eventually(within: 10) {
            seen = processes(marker).count
            return seen >= count
        }
        return seen
    }

    static func config(_ script: String, timeoutMs: Int, cap: Int = 4) -> String {
        """
        [daemon]
        max_action_children = \(cap)
        [[action]]
        name = "bg"
        gesture = "tap"
        timeout = \(timeoutMs)
        exec = ["\(script)"]
        """
    }

    /// `sleep 100 & exit 0`, fired 60 times: the leaders exit at once, but their sleeps are
    /// counted, so no more than the cap are ever alive, and the timeout ends each one.
    @Test func aCommandThatBackgroundsItsWork_countsAgainstTheCap_untilItsTimeoutKillsIt() throws {
        let dir = scratch()
        let s = try DaemonActionTests.script(dir, "bg.sh", "sleep 31.17 &\nexit 0")
        let d = try DaemonUnderTest(
            ["--replay", try tapsRecording(count: 60, dir: dir), "--exit-after-replay", "--speed", "4"],
            config: Self.config(s, timeoutMs: 1500), dir: dir)
        var most = 0
        var fds = 0
        // Sampled until the replay ends (the daemon exits after it).
        eventually(within: 120) {
            most = max(most, Self.processes("31.17").count)
            fds = max(fds, d.openFDs())
            return !d.process.isRunning
        }
        #expect(d.exit(within: 1) == 0)
        #expect(most >= 1 && most <= 4, "\(most) backgrounded sleeps were alive at once, the cap is 4")
        #expect(Self.processes("31.17").isEmpty, "a backgrounded sleep outlived its timeout")
        // The daemon holds no pipe of a command: its fds stay as few as a daemon's with no action.
        #expect(fds < 24, "the daemon had \(fds) fds open")
        #expect(d.log.contains("left 1 process(es) running, timed out after 1500 ms: SIGTERM to 1 process(es)"))
        // Turned away by the daemon (four commands await their end) or by the runner (four live
        // processes), whichever saw it first.
        #expect(d.log.contains("skipped: 4 action"))
    }

    /// The leader exits on SIGTERM; its child ignores SIGTERM: SIGKILL a grace later ends it.
    @Test func aGrandchildThatIgnoresSIGTERM_isKilledWithItsTree() throws {
        let dir = scratch()
        let s = try DaemonActionTests.script(dir, "tree.sh", "(trap '' TERM; sleep 32.17) &\nwait")
        let d = try DaemonUnderTest(
            ["--replay", Root.fixtures + "/tap.events", "--exit-after-replay", "--speed", "4"],
            config: Self.config(s, timeoutMs: 300), dir: dir)
        #expect(d.exit(within: 15) == 0)
        #expect(Self.processes("32.17").isEmpty, "the grandchild that ignores SIGTERM is alive")
        // The shell and the sleep (dash execs the subshell's last command in place).
        #expect(d.log.contains("timed out after 300 ms: SIGTERM to 2 process(es)"))
        #expect(d.log.contains("still running 2 s after SIGTERM: SIGKILL to 1 process(es)"))
    }

    /// The daemon is stopped while a command and what it backgrounded run (timeout a minute):
    /// once the daemon has exited, none of them is left.
    @Test func nothingAnActionStarted_outlivesTheDaemonsStop() throws {
        let dir = scratch()
        let s = try DaemonActionTests.script(dir, "long.sh", "sleep 33.17 &\nsleep 33.17")
        let d = try DaemonUnderTest(["--replay", Root.fixtures + "/tap.events"], config: Self.config(s, timeoutMs: 60_000), dir: dir)
        #expect(Self.waitFor("33.17", count: 2) == 2, "the command's two sleeps never ran")
        #expect(d.stop() == 0)
        #expect(Self.processes("33.17").isEmpty, "an action's process outlived the daemon")
    }

    /// `setsid` takes a process out of the command's session, where the runner would lose it:
    /// it is killed when seen (at the latest when the command's leader exits).
    @Test func aProcessThatLeavesItsSession_isKilled() throws {
        let dir = scratch()
        let s = try DaemonActionTests.script(dir, "escape.sh", "setsid sleep 34.17 &\nsleep 0.3")
        let d = try DaemonUnderTest(
            ["--replay", Root.fixtures + "/tap.events", "--exit-after-replay", "--speed", "4"],
            config: Self.config(s, timeoutMs: 60_000), dir: dir)
        #expect(d.exit(within: 15) == 0)
        #expect(Self.processes("34.17").isEmpty, "the process that left its session is alive")
        #expect(d.log.contains("process(es) that left their action's session"))
    }

    /// The daemon killed by SIGKILL (no chance to stop anything): its runner sees the
    /// connection close and ends the commands.
    @Test func aDaemonKilledOutright_leavesNoActionProcessBehind() throws {
        let dir = scratch()
        let s = try DaemonActionTests.script(dir, "long.sh", "sleep 35.17")
        let d = try DaemonUnderTest(["--replay", Root.fixtures + "/tap.events"], config: Self.config(s, timeoutMs: 60_000), dir: dir)
        #expect(Self.waitFor("35.17", count: 1) == 1)
        d.signal(SIGKILL)
        _ = d.stop()
        var left = Self.processes("35.17")
        eventually(within: 4) {
            left = Self.processes("35.17")
            return left.isEmpty
        }
        #expect(left.isEmpty, "a command outlived its daemon's SIGKILL by 4 s")
    }

    /// The runner itself SIGKILLed while commands and what they backgrounded run (hardening
    /// round 3: they were reparented to init and outlived every timeout, the cap and the daemon,
    /// while the log said they "are ended"). The daemon is the subreaper above its runner: they
    /// come to it and are killed, whatever the runner's fate, and the log says so. Five times, a
    /// new runner each time.
    @Test func aRunnerKilledOutright_leavesNoActionProcessBehind() throws {
        let dir = scratch()
        let s = try DaemonActionTests.script(dir, "long.sh", "sleep 36.17 &\nsleep 36.17")
        let d = try DaemonUnderTest(
            ["--replay", try tapsRecording(count: 40, spacingMs: 400, dir: dir), "--speed", "2"], config: Self.config(s, timeoutMs: 60_000), dir: dir)
        for round in 0..<5 {
            #expect(Self.waitFor("36.17", count: 2) >= 2, "round \(round): no command ran")
            let runners = Self.processes("--serve-actions-fd", parent: d.pid)
            #expect(runners.count == 1, "round \(round): runners \(runners)")
            for r in runners { kill(r, SIGKILL) }
            var left = Self.processes("36.17")
            eventually(within: 3) {
                left = Self.processes("36.17")
                return left.isEmpty
            }
            #expect(left.isEmpty, "round \(round): \(left.count) action process(es) outlived their runner by 3 s")
        }
        #expect(d.stop() == 0)
        #expect(Self.processes("36.17").isEmpty)
        #expect(d.log.contains("was killed by signal 9;"))
        #expect(d.log.contains("process(es) of its commands were left, killed now"))
        #expect(!d.log.contains("are ended by it"))
    }

    /// The daemon's memory takes no transparent huge pages (a 2 MB page zeroed at a first touch,
    /// or collapsed by khugepaged in a stretch its real-time thread cannot preempt), while the
    /// commands its actions run get the system's own setting: the runner clears what the
    /// daemon's fork handed it.
    @Test func theDaemonHasNoHugePages_itsCommandsTheSystems() throws {
        func thp(_ pid: Int32) -> String? {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            return status.split(separator: "\n").first { $0.hasPrefix("THP_enabled:") }.map { $0.split(separator: "\t").last.map(String.init) ?? "" }
        }
        // (A kernel before 5.0, or without huge pages, says nothing of them.)
        guard thp(getpid()) == "1" else { return }
        let dir = scratch()
        let s = try DaemonActionTests.script(dir, "thp.sh", "sleep 37.17")
        let d = try DaemonUnderTest(["--replay", try tapsRecording(count: 3, spacingMs: 400, dir: dir)], config: Self.config(s, timeoutMs: 60_000), dir: dir)
        #expect(Self.waitFor("37.17", count: 1) >= 1, "no command ran")
        #expect(thp(d.pid) == "0")
        let commands = Self.processes("37.17")
        #expect(!commands.isEmpty && commands.allSatisfy { thp($0) == "1" }, "\(commands.map { thp($0) ?? "gone" })")
        #expect(d.stop() == 0)
    }
}
