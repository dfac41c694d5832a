import Synchronization
import SystemCalls

/// Where the daemon's log lines go: stderr, which under systemd is a stream socket the journal
/// reads. A journal that stops reading (flushing to a slow SD card, restarting) must not stop
/// the loop, which may run at real-time priority and writes the mirror: on a socket each line
/// is sent without blocking, a line the socket has no room for is dropped and counted, and the
/// next line that goes through is preceded by one saying how many were lost. (The kernel takes
/// a line whole or not at all when it is under half the socket's buffer: the journal's is
/// megabytes, a line at most about 4 KB. On a socket with a smaller buffer, the rest of a line
/// half sent is written waiting, so that no line is cut.) A terminal, a pipe or a file is
/// written as before: whoever reads it chose to.
public final class LogOutput: Sendable {
    let fd: Int32
    let isSocket: Bool
    /// Lines dropped since the last one that went through; all dropped since start.
    private let pending = Atomic<Int>(0)
    private let total = Atomic<Int>(0)

    public init(fd: Int32) {
        self.fd = fd
        isSocket = Posix.isSocket(fd)
    }

    /// The process's stderr.
    public static let standardError = LogOutput(fd: 2)

    /// Lines dropped since start (a journal that did not read them in time).
    public var dropped: Int { total.load(ordering: .relaxed) }

    /// Writes `line` (one line, with its newline); `note(n)` is the line that tells of `n`
    /// lines dropped before it, in the same form.
    public func write(_ line: [UInt8], note: (Int) -> [UInt8]) {
        guard isSocket else {
            _ = Posix.writeAll(fd, line)
            return
        }
        let lost = pending.load(ordering: .relaxed)
        if lost > 0 {
            guard sent(note(lost)) else { return drop() }
            pending.subtract(lost, ordering: .relaxed)
        }
        if !sent(line) { drop() }
    }

    private func sent(_ bytes: [UInt8]) -> Bool {
        switch Posix.send(fd, bytes, "send(log)") {
        case .done(let n) where n == bytes.count: return true
        case .done(let n):
            // Half sent (a socket whose buffer is under twice a line): the rest waits, whole lines only.
            _ = Posix.writeAll(fd, Array(bytes[n...]))
            return true
        default: return false
        }
    }

    private func drop() {
        pending.add(1, ordering: .relaxed)
        total.add(1, ordering: .relaxed)
    }
}
