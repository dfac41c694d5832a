import CLinux
import Foundation
import Testing
import TestSupport

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The action runner as touchgestured-actions.service runs it: a process of its own, on its own
/// socket, under a user without the daemon's groups.
@Suite(.serialized, .waitsOnProcesses) struct ActionRunnerServiceTests {
    /// `touchgestured --serve-actions PATH`, started through `prefix` (e.g. setpriv).
    final class Runner {
        let process = Process()
        let socket: String
        let log: String

        init(dir: String, prefix: [String] = []) throws {
            socket = dir + "/actions.sock"
            log = dir + "/runner.log"
            let command = prefix + [Root.daemon, "--serve-actions", socket]
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: log)
            try process.run()
            // The socket's file appears at bind(2), a moment before listen(2): the runner is up
            // once a connection is taken (waited for generously: a loaded machine starts slowly).
            let socket = socket
            eventually(within: 60) {
                guard let fd = try? ActionRunnerServiceTests.connect(socket) else { return false }
                close(fd)
                return true
            }
        }

        func stop() -> Int32 {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            return process.terminationStatus
        }

        var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
    }

    /// A SOCK_SEQPACKET connection to the runner, as the daemon makes it.
    static func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard cl_connect_unix(fd, path) == 0 else { throw HarnessError("connect \(path): \(String(cString: strerror(errno)))") }
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func exchange(_ fd: Int32, _ bytes: [UInt8]) -> RunnerMessage? {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        return receive(fd)
    }

    static func receive(_ fd: Int32) -> RunnerMessage? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? try? RunnerMessage(decoding: buffer[0..<n]) : nil
    }

    @Test func everyMessage_survivesItsEncoding() throws {
        let messages: [RunnerMessage] = [
            .run(id: 7, name: "a \"b\"\n", argv: ["/bin/echo", "é", ""], env: ["A=1"], timeoutMs: 10_000, maxProcesses: 4, firedAt: 123_456_789),
            .started(id: 7, pid: 4242, spawnMicros: 310), .skipped(id: 8, running: 4), .failed(id: 9, reason: "cannot start /x: No such file"),
            .ended(id: 7, status: 0, signal: 9, ms: 2200),
        ]
        for m in messages { #expect(try RunnerMessage(decoding: m.encoded()) == m) }
        for bad in ["", "{}", "[1]", #"{"run":1,"name":"x","argv":[],"env":[],"timeout_ms":1,"max_processes":1,"fired_at":0}"#,
            #"{"run":1.5,"name":"x","argv":["/bin/true"],"env":[],"timeout_ms":1,"max_processes":1,"fired_at":0}"#,
            #"{"ended":1,"status":"0","signal":0,"ms":1}"#]
        {
            #expect(throws: RunnerMessage.Malformed.self) { try RunnerMessage(decoding: Array(bad.utf8)) }
        }
    }

    /// A malformed message is logged and the connection lives on: the next request is served.
    @Test func aMalformedRequest_isLogged_andTheNextOneRuns() throws {
        let dir = scratch()
        let runner = try Runner(dir: dir)
        defer { _ = runner.stop() }
        let fd = try Self.connect(runner.socket)
        defer { close(fd) }
        _ = Array("not json".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        let run = RunnerMessage.run(id: 1, name: "true", argv: ["/bin/true"], env: [], timeoutMs: 5000, maxProcesses: 4, firedAt: 0)
        guard case .started(1, let pid, _)? = Self.exchange(fd, run.encoded()) else { Issue.record("no start"); return }
        #expect(pid > 0)
        #expect(Self.receive(fd) == .ended(id: 1, status: 0, signal: 0, ms: Self.lastMs(runner)))
        let missing = RunnerMessage.run(id: 2, name: "gone", argv: ["/nonexistent"], env: [], timeoutMs: 5000, maxProcesses: 4, firedAt: 0)
        #expect(Self.exchange(fd, missing.encoded()) == .failed(id: 2, reason: "cannot start /nonexistent: No such file or directory"))
        #expect(runner.stop() == 0)
        #expect(runner.output.contains("a malformed request from a daemon"))
    }

    /// The ms the runner logged for its last ended action (the reply must say the same).
    static func lastMs(_ runner: Runner) -> Int {
        var ms = -1
        eventually(within: 2) {
            guard let m = runner.output.firstMatch(of: /exited with status 0 after (\d+) ms/) else { return false }
            ms = Int(m.1) ?? -1
            return true
        }
        return ms
    }

    /// The runner as another user (nobody, no supplementary group), the daemon as root with its
    /// groups: the command runs as the runner's user with none of the daemon's groups.
    @Test(.enabled(if: getuid() == 0, "needs root to start the runner as another user"))
    func commands_runAsTheRunnersUser_withoutTheDaemonsGroups() throws {
        let dir = scratch()
        // The runner's socket and the command's output in a folder nobody may write; the script
        // in one only root may (the daemon refuses a program anyone could replace).
        let shared = dir + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o777)
        let out = shared + "/who.txt"
        let s = try DaemonActionTests.script(dir, "who.sh", "{ id -u; id -G; } > \(out)")
        let runner = try Runner(dir: shared, prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        defer { _ = runner.stop() }
        let config = "[[action]]\nname = \"who\"\ngesture = \"tap\"\nexec = [\"\(s)\"]\n"
        let d = try DaemonUnderTest(
            ["--replay", Root.fixtures + "/tap.events", "--exit-after-replay", "--speed", "4", "--action-runner", runner.socket],
            config: config, dir: dir)
        #expect(d.exit(within: 15) == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "65534\n65534\n")
        #expect(runner.stop() == 0)
        #expect(runner.output.contains("action runner ready (uid 65534, groups none)"))
        #expect(!FileManager.default.fileExists(atPath: runner.socket), "the runner left its socket behind")
    }

    /// A runner started by hand, its socket made writable by everyone (chmod 0666): a user who
    /// is not root, the runner's user or in the socket's group is refused by its credentials
    /// (SO_PEERCRED, SO_PEERGROUPS), and nothing runs. Before, any peer that could connect did.
    @Test(.enabled(if: getuid() == 0, "needs root to connect as another user"))
    func aPeerWithoutTheSocketsRights_isRefused_evenWhenTheSocketIsOpenToAll() throws {
        let dir = scratch()
        chmod(dir, 0o755)
        let runner = try Runner(dir: dir)
        defer { _ = runner.stop() }
        chmod(runner.socket, 0o666)
        let marker = dir + "/ran"
        let run = RunnerMessage.run(id: 1, name: "x", argv: ["/usr/bin/touch", marker], env: [], timeoutMs: 5000, maxProcesses: 4, firedAt: 0)
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.settimeout(10)
            s.connect(sys.argv[1])
            try:
                s.send(sys.argv[2].encode())
                print("reply:" + s.recv(4096).decode())
            except OSError as e:
                print("refused:", e)
            """
        let (status, out) = try runProgram(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/python3", "-c", script, runner.socket,
             String(decoding: run.encoded(), as: UTF8.self)])
        #expect(status == 0, "\(out)")
        #expect(out == "reply:\n" || out.hasPrefix("refused:"), "\(out)")
        #expect(!FileManager.default.fileExists(atPath: marker), "a refused peer's command ran")
        #expect(runner.stop() == 0)
        #expect(runner.output.contains("uid 65534: not root, uid 0, nor in group"), "\(runner.output)")
    }

    /// `--action-runner` names a socket nobody listens on: each firing fails with the reason,
    /// the daemon goes on, and the command is not run some other way.
    @Test func aMissingRunner_failsTheFiring_neverRunsTheCommandInTheDaemon() throws {
        let dir = scratch()
        let marker = dir + "/ran"
        let s = try DaemonActionTests.script(dir, "mark.sh", "touch \(marker)")
        let config = "[[action]]\nname = \"mark\"\ngesture = \"tap\"\nexec = [\"\(s)\"]\n"
        let d = try DaemonUnderTest(
            ["--replay", Root.fixtures + "/tap.events", "--exit-after-replay", "--speed", "4", "--action-runner", dir + "/none.sock"],
            config: config, dir: dir)
        #expect(d.exit(within: 15) == 0)
        #expect(!FileManager.default.fileExists(atPath: marker))
        #expect(d.log.contains("cannot reach the action runner at \(dir)/none.sock: No such file or directory"))
        #expect(d.log.contains("action 'mark' not run"))
    }
}
