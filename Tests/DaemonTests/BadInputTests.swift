import CLinux
import Foundation
import GestureEngine
import GestureProtocol
import Testing
import TestSupport
import TouchFrames

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// One client or one config value must not crash, freeze or blind the daemon
/// (docs/RELIABILITY.md, the bad-input table).
@Suite(.serialized, .waitsOnProcesses) struct BadInputTests {
    @Test func sighup_withAnIdOutOfRange_keepsTheDaemonAndItsConfig() throws {
        let d = try DaemonUnderTest([], config: "[screen]\nwidth = 1920\nheight = 1080\n")
        let c = try TestClient(d.socket)
        _ = c.json()
        for bad in ["[-1]", "[4294967296]", "[1e30]"] {
            try "[daemon]\nset_regions_uids = \(bad)\n".write(toFile: d.configPath, atomically: true, encoding: .utf8)
            d.signal(SIGHUP)
            #expect(c.call(#"{"op":"ping","id":1}"#)?["type"] == .string("reply"), "the daemon died on set_regions_uids = \(bad)")
        }
        #expect(c.call(#"{"op":"stats","id":2}"#)?["reload_failures"] == .number(3))
        #expect(d.stop() == 0)
        #expect(d.log.contains("touchgestured.toml:2: 'set_regions_uids' must hold user or group ids"))
    }

    @Test func replay_ofARecordingWhoseTimeRunsBackwards_isRefusedWithItsLine() throws {
        // The first event 10 s after all the others: replayed with --loop, each pass once began
        // before the last ended (872k frames in 3 s, a core spinning); later, two taps a clock
        // set back brought together were replayed as a double tap. Refused at start now.
        let dir = scratch()
        let fixture = Root.fixtures + "/tap.events"
        let r = try Evemu.parse(try String(contentsOfFile: fixture, encoding: .utf8), file: fixture)
        // Written by hand: `Evemu.format` writes events in time order.
        var lines = Evemu.format(r).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("E: ") })
        lines[first] = "E: 10.000000" + lines[first].dropFirst("E: 0.000000".count)
        let path = dir + "/backwards.events"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Root.daemon)
        p.arguments = ["--socket", dir + "/s.sock", "--replay", path, "--loop"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // A daemon that took the file would loop for ever: ended after 20 s, the test fails.
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { if p.isRunning { p.terminate() } }
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus != 0, "\(p.terminationReason) \(p.terminationStatus)")
        #expect(text.contains("backwards.events:") && text.contains("time goes back"), "\(text)")
    }

    @Test(arguments: ["1e-12", "0", "-1", "1e308", "nan"])
    func replaySpeed_outOfRange_isRefusedCleanly(speed: String) throws {
        // 1e-12 trapped converting the recording's times; 1e308 on a short recording too.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Root.daemon)
        p.arguments = ["--socket", scratch() + "/s.sock", "--replay", Root.fixtures + "/tap.events", "--speed=" + speed]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus != 0, "\(p.terminationReason) \(p.terminationStatus)")
        #expect(text.contains("--speed must be from 0.001 to 1000"), "\(text)")
    }

    @Test func sighup_whileTheConfigIsAFIFO_isRefusedWithoutHanging() throws {
        let d = try DaemonUnderTest([], config: "")
        let c = try TestClient(d.socket)
        _ = c.json()
        unlink(d.configPath)
        #expect(mkfifo(d.configPath, 0o600) == 0)
        d.signal(SIGHUP)
        // Nobody writes the FIFO: a daemon blocked in open() would never answer.
        #expect(c.call(#"{"op":"ping","id":1}"#, seconds: 5)?["type"] == .string("reply"))
        _ = d.stop()
        #expect(d.log.contains("not a regular file"))
    }

    static func nested(_ count: Int, prefix: String = "n") -> String {
        let regions = (0..<count).map { #"{"name":"\#(prefix)\#($0)","gesture":[{"kind":"tap"}]}"# }
        return #"{"op":"set_regions","id":"r","regions":["# + regions.joined(separator: ",") + "]}"
    }

    @Test func setRegions_overTheCaps_isRefused_underThem_isTaken() throws {
        let d = try DaemonUnderTest([])
        let c = try TestClient(d.socket)
        _ = c.json()
        // 1,500 nested full-screen regions (one 63 KB request) took 2.1 s to compile.
        let tooMany = c.call(Self.nested(1500), seconds: 5)
        #expect(tooMany?["code"] == .string("invalid_regions"))
        #expect(tooMany?["message"]?.string?.contains("32 regions at most") == true)
        #expect(c.call(Self.nested(32))?["type"] == .string("reply"))
        // Four more clients of the same user with 64 gestures each pass the 128 one user may
        // set (FairShareTests has the 256 of all users).
        var others: [TestClient] = []
        var lastError: JSONValue?
        for k in 0..<4 {
            let o = try TestClient(d.socket)
            _ = o.json()
            let regions = (0..<8).map { i in
                #"{"name":"o\#(k)_\#(i)","gesture":["# + (0..<8).map { #"{"kind":"tap","name":"t\#($0)"}"# }.joined(separator: ",") + "]}"
            }
            let answer = o.call(#"{"op":"set_regions","id":1,"regions":["# + regions.joined(separator: ",") + "]}")
            if answer?["type"] == .string("error") { lastError = answer }
            others.append(o)
        }
        #expect(lastError?["message"]?.string?.contains("one user may set 128 gestures at most together") == true)
    }

    @Test func setRegions_nameWithControlCharacters_isRefused_andNothingRawReachesTheLog() throws {
        let d = try DaemonUnderTest([])
        let c = try TestClient(d.socket)
        _ = c.json()
        let forged = #"{"op":"set_regions","id":1,"regions":[{"name":"x\n<0>forged emergency\u001b[2J","gesture":[{"kind":"tap"}]}]}"#
        let answer = c.call(forged)
        #expect(answer?["code"] == .string("invalid_regions"))
        #expect(answer?["message"]?.string?.contains("no control character") == true)
        let long = #"{"op":"set_regions","id":2,"regions":[{"name":""# + String(repeating: "n", count: 60_000) + #"","gesture":[{"kind":"tap"}]}]}"#
        #expect(c.call(long)?["message"]?.string?.contains("64 bytes at most") == true)
        _ = d.stop()
        #expect(!d.log.contains("\n<0>"))
        #expect(!d.log.contains("\u{1b}"))
    }

    @Test func journalLines_escapeControlCharacters_andStayShort() {
        #expect(JournalLogHandler.escaped("a\nb<0>\u{1b}[2J\u{0}") == #"a\x0ab<0>\x1b[2J\x00"#)
        let long = JournalLogHandler.escaped(String(repeating: "é", count: 10_000))
        #expect(long.utf8.count < JournalLogHandler.maxMessageBytes + 40 && long.hasSuffix("(20000 bytes)"))
    }

    @Test func clientRegionLargerThanTheScreen_isClipped_andStaysInsideTheFilesRegion() throws {
        let d = try DaemonUnderTest([], config: "[screen]\nwidth = 1920\nheight = 1080\n[[region]]\nname = 'app'\nstandard_gestures = true\n")
        let c = try TestClient(d.socket)
        _ = c.json()
        let answer = c.call(
            #"{"op":"set_regions","id":1,"regions":[{"name":"greedy","rect":[-100,-100,5000,5000],"priority":"high","gesture":[{"kind":"tap"}]}]}"#)
        #expect(answer?["type"] == .string("reply"))
        let config = c.call(#"{"op":"get_config","id":2}"#)
        guard case .array(let regions)? = config?["regions"] else {
            Issue.record("no regions in \(String(describing: config))")
            return
        }
        let greedy = regions.first { $0["name"] == .string("greedy") }
        let app = regions.first { $0["name"] == .string("app") }
        #expect(greedy?["rect"] == .array([0, 0, 1920, 1080].map { .number($0) }))
        #expect(greedy?["parent"] == .string("app"))
        #expect(app?["parent"] == nil)
        let outside = c.call(
            #"{"op":"set_regions","id":3,"regions":[{"name":"gone","rect":[3000,0,10,10],"gesture":[{"kind":"tap"}]}]}"#)
        #expect(outside?["message"]?.string?.contains("lies outside the screen") == true)
    }

    /// A drag recording cut in the middle of the drag, fingers still down.
    static func truncatedDrag(in dir: String) throws -> String {
        let fixture = Root.fixtures + "/four-finger-drag-down.events"
        let r = try Evemu.parse(try String(contentsOfFile: fixture, encoding: .utf8), file: fixture)
        let reports = r.events.indices.filter { r.events[$0].type == Evdev.EV_SYN && r.events[$0].code == Evdev.SYN_REPORT }
        let cut = reports[reports.count * 6 / 10]
        let path = dir + "/truncated-drag.events"
        try Evemu.format(Recording(description: r.description, events: Array(r.events[...cut])))
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func recordingEndingWithFingersDown_endsEveryGesture_offlineAndInTheDaemon() throws {
        let dir = scratch()
        let path = try Self.truncatedDrag(in: dir)
        let offline = try offlineLines(path)
        #expect(offline.contains { $0.contains(#""gesture":"pan""#) && $0.contains(#""phase":"began""#) })
        let began = offline.filter { $0.contains(#""phase":"began""#) }.count
        let over = offline.filter { $0.contains(#""phase":"ended""#) || $0.contains(#""phase":"cancelled""#) }.count
        #expect(began >= 1 && began == over, "\(began) began, \(over) ended or cancelled")
        // --exit-after-replay exits once the replay is over.
        let d = try DaemonUnderTest(["--replay", path, "--wait-for-clients", "1", "--exit-after-replay", "--speed", "4"], dir: dir)
        let c = try TestClient(d.socket)
        var lines: [String] = []
        while let l = c.line(seconds: 10) {
            if !l.contains(#""type":"hello""#) && !l.contains(#""type":"device""#) { lines.append(l) }
        }
        #expect(lines == offline)
        #expect(c.isClosed(seconds: 0), "the daemon did not exit after the replay")
    }

    /// A recording of a panel and no event: `--exit-after-replay` exits at once (it waited for
    /// an end no event would bring).
    @Test func aRecordingOfNoEvent_endsTheReplayAtOnce() throws {
        let dir = scratch()
        let fixture = Root.fixtures + "/tap.events"
        let r = try Evemu.parse(try String(contentsOfFile: fixture, encoding: .utf8), file: fixture)
        let path = dir + "/no-event.events"
        try Evemu.format(Recording(description: r.description, events: [])).write(toFile: path, atomically: true, encoding: .utf8)
        let d = try DaemonUnderTest(["--replay", path, "--wait-for-clients", "1", "--exit-after-replay"], dir: dir)
        let c = try TestClient(d.socket)
        while c.line(seconds: 10) != nil {}
        #expect(c.isClosed(seconds: 0), "the daemon did not exit after the replay")
    }

    @Test func loopedRecordingEndingWithFingersDown_beginsAgainOnEachPass() throws {
        let dir = scratch()
        let path = try Self.truncatedDrag(in: dir)
        let d = try DaemonUnderTest(["--replay", path, "--wait-for-clients", "1", "--loop", "--speed", "4"], dir: dir)
        let c = try TestClient(d.socket)
        var began = 0, ended = 0
        let end = Date().addingTimeInterval(15)
        while began < 3 && Date() < end, let l = c.line(seconds: 5) {
            guard l.contains(#""gesture":"pan""#) else { continue }
            if l.contains(#""phase":"began""#) { began += 1 }
            if l.contains(#""phase":"ended""#) || l.contains(#""phase":"cancelled""#) { ended += 1 }
        }
        #expect(began == 3 && ended >= 2, "\(began) began, \(ended) ended")
    }

    @Test func socketPath_thatIsARegularFileOrADirectory_isRefusedAndKept() throws {
        let dir = scratch()
        let file = dir + "/precious.txt"
        try "keep me".write(toFile: file, atomically: true, encoding: .utf8)
        for (path, kind) in [(file, "a regular file"), (dir, "a directory")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Root.daemon)
            p.arguments = ["--socket", path]
            let err = Pipe()
            p.standardError = err
            try p.run()
            p.waitUntilExit()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(p.terminationStatus == 1)
            #expect(text.contains("\(path) is \(kind), not a socket; refusing to replace it"), "\(text)")
        }
        #expect((try? String(contentsOfFile: file, encoding: .utf8)) == "keep me")
    }

    /// Runs the daemon expecting it to refuse to start; returns its stderr (nil if it still
    /// ran after five seconds: it hung, and was killed).
    static func refusedStart(_ args: [String]) throws -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Root.daemon)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        if !eventually(within: 5, { !p.isRunning }) {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            return nil
        }
        #expect(p.terminationReason == .exit && p.terminationStatus == 1)
        return String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func socketSetUp_failsCleanly() throws {
        let dir = scratch()
        // An abstract name was bound, then the start failed.
        #expect(try Self.refusedStart(["--socket", "@touchgestured"])?.contains("must be an absolute path") == true)
        // A start that fails after the bind (here: a recording that is not there) leaves neither
        // the socket nor the directory made for it.
        let fresh = dir + "/fresh"
        #expect(try Self.refusedStart(["--socket", fresh + "/gestures.sock", "--replay", dir + "/missing.events"]) != nil)
        #expect(!FileManager.default.fileExists(atPath: fresh))
        // A link is named as one ("is not a socket, not a socket" before).
        let link = dir + "/link.sock"
        symlink("/nonexistent", link)
        #expect(try Self.refusedStart(["--socket", link])?.contains("\(link) is a symbolic link, not a socket") == true)
        // A foreign listener whose backlog is full: the probe's blocking connect hung start-up
        // (with SIGTERM blocked).
        let busy = dir + "/busy.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        #expect(cl_bind_unix(listener, busy) == 0 && listen(listener, 0) == 0)
        var queued: [Int32] = []
        defer { for q in queued { close(q) } }
        for _ in 0..<8 {
            let q = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            queued.append(q)
            if cl_connect_unix(q, busy) != 0 { break }
        }
        let text = try Self.refusedStart(["--socket", busy])
        #expect(text?.contains("another process is listening on \(busy)") == true, "\(String(describing: text))")
    }

    @Test func numberID_pastTwoToThe53_isEchoedAsWritten() throws {
        let d = try DaemonUnderTest([])
        let c = try TestClient(d.socket)
        _ = c.json()
        c.send(#"{"op":"ping","id":9007199254740993}"#)
        #expect(c.line()?.hasPrefix(#"{"type":"reply","id":9007199254740993,"#) == true)
        c.send(#"{"op":"nope","id":12345678901234567890123}"#)
        #expect(c.line()?.hasPrefix(#"{"type":"error","id":12345678901234567890123,"#) == true)
    }
}
