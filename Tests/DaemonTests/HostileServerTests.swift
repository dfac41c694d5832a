import Foundation
import GestureConfig
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// touchgesturectl trusts no server (hardening round 4): whatever answers at the socket's path
/// (a user's server in /tmp, a socket left by a daemon that is down) is read as a client reads
/// the daemon: no file written where it says, no process signalled, every string escaped and
/// every number range-checked. The peer is Tests/support/hostile-daemon.py.
@Suite(.serialized, .waitsOnProcesses) struct HostileServerTests {
    final class HostileServer {
        let process = Process()
        let socket: String
        let log: String

        init(in dir: String, _ options: [String] = []) throws {
            socket = dir + "/hostile.sock"
            log = dir + "/hostile.log"
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [Root.path + "/Tests/support/hostile-daemon.py", socket, log] + options
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            guard eventually(within: 10, { FileManager.default.fileExists(atPath: self.socket) }) else {
                throw HarnessError("the hostile server did not start")
            }
        }

        /// What clients sent it.
        var requests: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        deinit {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    /// touchgesturectl's exit: a status, or the signal that ended it (a trap is SIGILL).
    static func run(_ args: [String]) throws -> (status: Int32, signal: Int32?, out: String) {
        try runProgramToItsEnd(Root.ctl, args)
    }

    @Test func calibrate_writesOnlyBesideItsOwnConfig_escapesThePanelsName_andSignalsNoOne() throws {
        let dir = scratch()
        let name = "evil\n[daemon]\nsocket = \"/tmp/x\"\u{7F}\u{01}\r"
        let server = try HostileServer(in: dir, ["--name", name, "--source", dir + "/elsewhere/touchgestured.toml"])
        try "[screen]\nwidth = 1920\nheight = 1080\n".write(toFile: dir + "/kiosk.toml", atomically: true, encoding: .utf8)
        let r = try Self.run(["calibrate", "--socket", server.socket, "--config", dir + "/kiosk.toml", "--timeout", "20"])
        #expect(r.signal == nil && r.status == 0, "\(r.out)")
        // Asked to reload; a server that read another file is not taken for having applied it.
        #expect(r.out.contains("The daemon reloaded \(dir)/elsewhere/touchgestured.toml, not \(dir)/kiosk.toml"), "\(r.out)")
        #expect(!r.out.contains("\u{1B}") && !r.out.contains("\u{7F}"), "nothing that steers the terminal")
        #expect(!FileManager.default.fileExists(atPath: dir + "/elsewhere"), "nothing written where the server said")
        // The file written beside --config loads, and its entry is the panel's: by its node, as
        // the name holds a glob's character and the panel no vendor.
        let c = try ConfigLoader.load(path: dir + "/kiosk.toml")
        #expect(c.panelMatch(path: "/dev/input/event9", name: name, vendor: 0, product: 0) == "/dev/input/event9")
        let written = try String(contentsOfFile: dir + "/kiosk.d/calibration.toml", encoding: .utf8)
        #expect(written.contains(#"# evil\u000a[daemon]\u000asocket = \"/tmp/x\"\u007f\u0001\u000d: largest error"#), "\(written)")
        #expect(c.files.contains(dir + "/kiosk.d/calibration.toml"))
        // Asked over the socket; a client that signalled the peer's pid would have ended it.
        #expect(server.requests.contains(#""op": "reload""#) || server.requests.contains(#""op":"reload""#), "\(server.requests)")
        #expect(server.process.isRunning, "the server was signalled")
    }

    @Test func calibrate_refusesAScreenOfAbsurdSize_withoutATrap() throws {
        let dir = scratch()
        let server = try HostileServer(in: dir, ["--width", "1e19"])
        let r = try Self.run(["calibrate", "--socket", server.socket, "--config", dir + "/none.toml", "--timeout", "5"])
        #expect(r.signal == nil && r.status == 1, "\(r)")
        #expect(r.out.contains("the daemon's screen is not 1 to 65536 px each way"), "\(r.out)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/none.d"))
    }

    @Test func devicesAndMonitor_readAbsurdNumbers_withoutATrap() throws {
        let dir = scratch()
        let server = try HostileServer(in: dir, ["--huge"])
        let devices = try Self.run(["devices", "--socket", server.socket])
        #expect(devices.signal == nil && devices.status == 0, "\(devices)")
        #expect(devices.out.contains("1e+300"), "\(devices.out)")
        let monitor = try Self.run(["monitor", "--pretty", "--socket", server.socket, "--count", "1"])
        #expect(monitor.signal == nil, "\(monitor)")
        #expect(monitor.out.contains("tap recognized") && !monitor.out.contains("\u{1B}"), "\(monitor.out)")
        let calibrate = try Self.run(["calibrate", "--socket", server.socket, "--config", dir + "/none.toml", "--timeout", "5"])
        #expect(calibrate.signal == nil && calibrate.status == 1, "\(calibrate)")
    }

    @Test func calibrate_outlivesAServerThatGoesDuringTheReload() throws {
        let dir = scratch()
        let server = try HostileServer(in: dir, ["--close-on-reload"])
        let r = try Self.run(["calibrate", "--socket", server.socket, "--config", dir + "/kiosk.toml", "--timeout", "20"])
        #expect(r.signal == nil && r.status == 0, "\(r)")
        #expect(r.out.contains("The daemon did not answer; reload it: systemctl reload touchgestured"), "\(r.out)")
    }

    /// A server that answers half a line and stalls: a request waits 10 s at most.
    @Test func aServerThatStalls_midLine_isNotWaitedOnForEver() throws {
        let server = try HostileServer(in: scratch(), ["--stall"])
        let r = try Self.run(["ping", "--socket", server.socket])
        #expect(r.signal == nil && r.status == 1 && r.out.contains("no answer from the daemon within 10 s"), "\(r)")
    }

    /// Lines passed on as they came still carry nothing a terminal obeys: ESC, C1 and bidi
    /// characters reach stdout as JSON escapes (the line stays JSON).
    @Test func monitor_passesNoTerminalControlOn() throws {
        let server = try HostileServer(in: scratch(), ["--raw"])
        let r = try Self.run(["monitor", "--socket", server.socket])
        #expect(r.signal == nil, "\(r)")
        #expect(r.out.contains(#""region":"\u001b]0;PWNED\u0007\u009b31m\u202eevil""#), "\(r.out)")
        #expect(!r.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x202E })
    }

    /// `--count` not reached when the daemon goes (a stop, a restart): a failure a script can
    /// tell from the lines it waited for, with the lines that came printed.
    @Test func monitor_withACount_theDaemonGoingFirst_fails() throws {
        let server = try HostileServer(in: scratch(), ["--raw"])
        let r = try Self.run(["monitor", "--socket", server.socket, "--count", "2"])
        #expect(r.signal == nil && r.status == 1, "\(r)")
        #expect(r.out.contains("the daemon closed the connection after 1 of 2 gesture lines") && r.out.contains(#""gesture":"tap""#), "\(r.out)")
    }
}
