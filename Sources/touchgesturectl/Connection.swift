import ArgumentParser
import GestureProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking line connection to the daemon.
final class Connection {
    let fd: Int32
    /// Bytes read and not yet returned start at `start` (compacted when half is consumed).
    private var buffer: [UInt8] = []
    private var start = 0
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    /// CLOCK_MONOTONIC (ns) when the read that completed the last returned line returned.
    private(set) var lastReadNanoseconds: Int64 = 0

    /// `quiet`: the request socket, where the connection starts subscribed to nothing; failing
    /// to reach it prints nothing (the caller falls back to the stream socket).
    /// `sendTimeoutMs`: a connect or a send that waits longer fails (`Posix.setSendTimeout`).
    init(_ path: String, quiet: Bool = false, sendTimeoutMs: Int? = nil) throws {
        self.quiet = quiet
        let socket: Descriptor
        switch Posix.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue)) {
        case .success(let s): socket = s
        case .failure(let e): throw fail("\(e)")
        }
        if let ms = sendTimeoutMs, Posix.setSendTimeout(socket.raw, milliseconds: ms) != nil { throw ExitCode.failure }
        if let e = Posix.connect(socket.raw, unixPath: path) {
            if quiet { throw ExitCode.failure }
            throw fail("cannot connect to \(path): \(e.reason) (is touchgestured running? --socket PATH)")
        }
        fd = socket.release()  // closed in deinit
    }

    deinit { Posix.close(fd) }

    func send(_ line: String) {
        // A failed send is heard as the reply that never comes (the daemon's refusal, or its
        // closing), which the caller reports; the command's own output is not involved.
        _ = Posix.writeAll(fd, Array((line + "\n").utf8))
    }

    /// Sends a line; false when it could not be written whole (the peer went, or a send timeout
    /// passed).
    func trySend(_ line: String) -> Bool {
        Posix.writeAll(fd, Array((line + "\n").utf8)) == nil
    }

    /// The longest line taken from a server: the daemon's longest (a `stats` reply, a hello of
    /// many devices) is a few KiB; a server that sends more without a newline is not heard further.
    static let lineLimit = 1 << 22

    /// The next line, or nil at end of stream (or past `lineLimit`, said on stderr), or when
    /// `deadline` (CLOCK_MONOTONIC ns) passes first, a part of a line or none read by then
    /// (`timedOut` then says so): a server that stalls is not waited on for ever.
    func readLine(until deadline: Int64? = nil) -> String? {
        timedOut = false
        while true {
            if buffer.count - start > Self.lineLimit {
                say("touchgesturectl: the server sent a line of over \(Self.lineLimit >> 20) MiB: not heard further")
                return nil
            }
            if let nl = buffer[start...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[start..<nl], as: UTF8.self)
                start = nl + 1
                if start * 2 > buffer.count {
                    buffer.removeFirst(start)
                    start = 0
                }
                return line
            }
            if let deadline {
                let left = (deadline - Posix.monotonicNanoseconds()) / 1_000_000
                guard left > 0, case .success(let ready) = Posix.poll(fd, events: Int16(POLLIN), timeoutMs: Int32(min(left, 60_000))) else {
                    timedOut = true
                    return nil
                }
                if ready == 0 { continue }
            }
            guard case .done(let n) = Posix.read(fd, into: &chunk), n > 0 else { return nil }
            lastReadNanoseconds = Posix.monotonicNanoseconds()
            buffer += chunk[0..<n]
        }
    }

    /// The last `readLine` returned nil because its deadline passed.
    private(set) var timedOut = false

    /// CLOCK_MONOTONIC ns `seconds` from now.
    static func deadline(in seconds: Int) -> Int64 { Posix.monotonicNanoseconds() + Int64(seconds) * 1_000_000_000 }

    /// A whole line is already read: `readLine` returns it without a system call.
    var hasBufferedLine: Bool { buffer[start...].contains(0x0A) }

    /// Subscribed to no gesture lines (the request socket, or after the first `call`).
    private var quiet: Bool

    /// Sends a request and returns its reply (or error) line, skipping other lines. On the
    /// stream socket the first call first unsubscribes from gesture lines: under a flood of them
    /// (a replay at 100×) a one-shot command would otherwise read, and be dropped as too slow,
    /// before its reply came.
    func call(_ request: String, id: Int) throws -> JSONValue {
        let v = try answer(request, id: id)
        guard v["type"] == .string("error") else { return v }
        if case .string(let m)? = v["message"] { throw fail(String(m.prefix(4096))) }
        throw fail("error")
    }

    /// How long a request waits for its answer: the daemon answers within milliseconds; a
    /// server that does not is not waited on for ever.
    static let answerSeconds = 10

    /// Like `call`, but an error line is returned as it came, for the caller to tell by its code.
    func answer(_ request: String, id: Int) throws -> JSONValue {
        if !quiet {
            send(#"{"op":"subscribe","id":0,"gestures":false}"#)
            quiet = true
        }
        send(request)
        let deadline = Self.deadline(in: Self.answerSeconds)
        while true {
            guard let line = readLine(until: deadline) else {
                throw fail(timedOut ? "no answer from the daemon within \(Self.answerSeconds) s" : "the daemon closed the connection")
            }
            // Every line is parsed (whatever the order of its keys); stream lines still on their
            // way, and replies to other ids, are skipped.
            guard let v = try? parseJSON(Array(line.utf8)) else { continue }
            if case .string(let t)? = v["type"], t == "reply" || t == "error", v["id"] == .number(Double(id)) { return v }
        }
    }
}
