import CLinux
import Foundation
import GestureProtocol
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

enum Root {
    static let path = Repository.root
    static let daemon = path + "/.build/debug/touchgestured"
    static let ctl = path + "/.build/debug/touchgesturectl"
    static let fixtures = path + "/Tests/PipelineTests/Fixtures"
    static let tour = path + "/examples/recordings/tour.events"
}

/// Runs a program to its end: its exit status and its output (stdout and stderr together).
func runProgram(_ path: String, _ args: [String]) throws -> (Int32, String) {
    let r = try runProgramToItsEnd(path, args)
    return (r.status, r.out)
}

/// The same, telling an exit from a death by signal (`signal`: SIGILL for a trap).
func runProgramToItsEnd(_ path: String, _ args: [String]) throws -> (status: Int32, signal: Int32?, out: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let signal = p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil
    return (p.terminationStatus, signal, String(decoding: data, as: UTF8.self))
}

/// A scratch directory for one test.
func scratch() -> String {
    Scratch.directory("tg")
}

/// A datagram socket playing systemd's NOTIFY_SOCKET.
final class NotifyListener {
    let path: String
    let fd: Int32
    private(set) var messages: [String] = []

    init(dir: String) {
        path = dir + "/notify"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        _ = cl_bind_unix(fd, path)
    }

    deinit { close(fd) }

    /// Waits for a datagram containing `text`; returns it.
    func wait(for text: String, seconds: Double = 20) -> String? {
        if let m = messages.first(where: { $0.contains(text) }) { return m }
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { continue }
            let m = String(decoding: buf[0..<n], as: UTF8.self)
            messages.append(m)
            if m.contains(text) { return m }
        }
        return nil
    }
}

/// The real daemon binary, started for a test; ready once it sent READY=1.
final class DaemonUnderTest {
    let process = Process()
    let dir: String
    let socket: String
    let notify: NotifyListener
    /// The daemon's stderr goes to a file: a pipe nobody reads would fill and block it.
    let logPath: String
    var startedAt = Date()
    var readyAfter: Double = 0

    /// `whileStarting` runs as soon as the process exists (before READY=1), with its pid.
    init(
        _ args: [String], config: String? = nil, env: [String: String] = [:], dir: String = scratch(),
        whileStarting: ((Int32) -> Void)? = nil
    ) throws {
        self.dir = dir
        logPath = dir + "/daemon.log"
        socket = dir + "/gestures.sock"
        notify = NotifyListener(dir: dir)
        var arguments = ["--socket", socket] + args
        if let config {
            let path = dir + "/touchgestured.toml"
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            arguments = ["--config", path] + arguments
        }
        #expect(FileManager.default.isExecutableFile(atPath: Root.daemon), "build first: swift build")
        process.executableURL = URL(fileURLWithPath: Root.daemon)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment.removeValue(forKey: "JOURNAL_STREAM")
        for (k, v) in env { environment[k] = v }
        process.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        startedAt = Date()
        try process.run()
        whileStarting?(process.processIdentifier)
        guard notify.wait(for: "READY=1") != nil else {
            process.terminate()
            throw HarnessError("the daemon sent no READY=1: \(log)")
        }
        readyAfter = Date().timeIntervalSince(startedAt)
    }

    var configPath: String { dir + "/touchgestured.toml" }
    var pid: Int32 { process.processIdentifier }

    /// Everything the daemon logged (read once it has exited).
    lazy var log: String = {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }()

    func signal(_ s: Int32) { kill(pid, s) }

    /// Every thread of the daemon is blocked in epoll_wait (read from /proc/PID/task/*/syscall):
    /// with no timeout (`forever`), or with one that is not 0 (it is not spinning).
    func waitsInEpoll(forever: Bool) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return !tasks.isEmpty && tasks.allSatisfy { task in
            let call = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? "").split(separator: " ")
            // epoll_wait (232) or epoll_pwait (281) on x86_64, epoll_pwait (22) on arm64; the 4th argument the timeout.
            guard call.count > 4, ["232", "281", "22"].contains(call[0]) else { return false }
            let infinite = ["0xffffffff", "0xffffffffffffffff"].contains(call[4])
            return forever ? infinite : call[4] != "0x0"
        }
    }

    /// Waits for the daemon to exit on its own (`--exit-after-replay`); stops it after `seconds`.
    func exit(within seconds: Double) -> Int32 {
        eventually(within: seconds) { !process.isRunning }
        return stop()
    }

    func stop() -> Int32 {
        if process.isRunning {
            kill(pid, SIGTERM)
        }
        process.waitUntilExit()
        _ = log
        return process.terminationStatus
    }

    func openFDs() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// utime + stime of the daemon so far, in seconds.
    func cpuSeconds() -> Double {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = s.lastIndex(of: ")")
        else { return 0 }
        let fields = s[s.index(after: close)...].split(separator: " ")
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func fdList() -> String {
        let dir = "/proc/\(pid)/fd"
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return fds.sorted().map { "\($0)->\((try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0)) ?? "?")" }.joined(separator: " ")
    }

    func rssKB() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in s.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: dir)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A client on the daemon's socket, reading lines with a timeout.
final class TestClient {
    private(set) var fd: Int32
    private var buffer: [UInt8] = []
    private(set) var closed = false

    init(_ path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard cl_connect_unix(fd, path) == 0 else { throw HarnessError("connect \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Closes the connection now (the daemon sees it go). Once only: closed again at deinit, the
    /// number could by then be another test's descriptor (tests run side by side in one process),
    /// whose reads would then block for good.
    func hangUp() {
        close(fd)
        (fd, closed) = (-1, true)
    }

    func send(_ text: String) { sendBytes(Array((text + "\n").utf8)) }

    func sendBytes(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// The next line, or nil after `seconds` or at end of stream.
    func line(seconds: Double = 10) -> String? {
        let end = Date().addingTimeInterval(seconds)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let l = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return l
            }
            if closed { return nil }
            let left = end.timeIntervalSinceNow
            if left <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(min(left, 1) * 1000)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                closed = true
                continue
            }
            buffer += chunk[0..<n]
        }
    }

    /// The next line parsed as JSON.
    func json(seconds: Double = 10) -> JSONValue? {
        guard let l = line(seconds: seconds) else { return nil }
        return try? parseJSON(Array(l.utf8))
    }

    /// Lines until one whose type is `type` (returned), skipping others.
    func next(_ type: String, seconds: Double = 10) -> JSONValue? {
        let end = Date().addingTimeInterval(seconds)
        while end.timeIntervalSinceNow > 0, let v = json(seconds: end.timeIntervalSinceNow) {
            if v["type"] == .string(type) { return v }
        }
        return nil
    }

    /// Sends a request and waits for its reply or error.
    func call(_ request: String, seconds: Double = 10) -> JSONValue? {
        send(request)
        let end = Date().addingTimeInterval(seconds)
        while end.timeIntervalSinceNow > 0, let v = json(seconds: end.timeIntervalSinceNow) {
            if v["type"] == .string("reply") || v["type"] == .string("error") { return v }
        }
        return nil
    }

    /// Asks `stats` until `key` reaches `least` (a reload, a dropped client: something the
    /// daemon does on its own time); the last value read.
    @discardableResult
    func stat(_ key: String, reaches least: Double, within seconds: Double = 5) -> Double {
        var value = 0.0
        eventually(within: seconds) {
            value = call(#"{"op":"stats","id":"wait"}"#)?[key]?.number ?? 0
            return value >= least
        }
        return value
    }

    /// Reads what has arrived, without waiting; complete lines are kept for `line()`.
    func pump() {
        while !closed {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) > 0 else { return }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                closed = true
                return
            }
            buffer += chunk[0..<n]
        }
    }

    /// Complete lines received so far (after `pump`).
    func takeLines() -> [String] {
        var out: [String] = []
        while let nl = buffer.firstIndex(of: 0x0A) {
            out.append(String(decoding: buffer[..<nl], as: UTF8.self))
            buffer.removeFirst(nl + 1)
        }
        return out
    }

    /// Has the daemon closed this connection (within `seconds`)?
    func isClosed(seconds: Double = 5) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while !closed && end.timeIntervalSinceNow > 0 { _ = line(seconds: end.timeIntervalSinceNow) }
        return closed
    }
}

extension JSONValue {
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var number: Double? { if case .number(let n) = self { n } else { nil } }
}
