import CLinux
import GestureEngine
import GestureProtocol

/// One connected client: its credentials, the bytes it sent that are not yet taken as requests,
/// its queued output and what it subscribed to.
public final class Client {
    public let fd: Int32
    public let number: Int
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32
    /// Bytes read and not yet taken as request lines start at `inputStart`; `scanned` is how far
    /// the search for a newline has looked (a partial line is not searched again).
    var input: [UInt8] = []
    var inputStart = 0
    var scanned = 0
    /// Queued output (written from the front as the socket takes it).
    var output = ByteQueue()
    /// Reply bytes queued since the queue was last empty. A request's answer may be larger than
    /// the stream bound without making its client "slow".
    var replyAllowance = 0
    var watchingWrites = false
    /// The client shut down its writing side: its last requests are answered, then it is closed.
    var readClosed = false
    /// It has request lines left over from an earlier turn (it used up its turn's budget).
    var backlogged = false
    /// Its request budget over time (token buckets of lines and bytes, refilled as time passes).
    var budget = RequestBudget()
    /// It spent its budget: not read until then (monotonic ns).
    var throttledUntil: Int64?
    /// The epoll events asked for now.
    var interest: UInt32 = CL_EPOLLIN | CL_EPOLLRDHUP
    /// Monotonic time of the input behind the oldest line not yet written (for latency).
    var pendingSince: Int64?
    /// Something queued must go out this turn: a reply, or a stream line that is not a
    /// continuous update (see `Server.flush`).
    var urgent = false
    /// The time of the last write (input time where there was input): continuous updates are
    /// written at most once per `coalesceNs` after it.
    var lastWriteAt: Int64 = -(1 << 62)  // long ago, and far from overflowing a subtraction
    /// The input time of the last continuous update queued for it (the input pacing paces only
    /// while a client is being streamed to).
    var streamedAt: Int64 = -(1 << 62)
    /// The client's own `coalesce_ms` (from `subscribe`), in ns; nil takes the daemon's.
    var coalesceNs: Int64?
    var closing = false
    /// Monotonic time of its connect or its last request (the idle limit counts from it).
    var lastRequestAt: Int64 = monotonicNanoseconds()

    /// What it subscribed to, resolved. A new client gets gesture and device lines; `subscribe`
    /// changes that.
    var subscription = ResolvedSubscription()
    /// Regions this client set (removed when it goes).
    var ownedRegions: [RegionSpec] = []

    init(fd: Int32, number: Int, pid: Int32, uid: UInt32, gid: UInt32) {
        self.fd = fd
        self.number = number
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var label: String { "client #\(number) (pid \(pid), uid \(uid), gid \(gid))" }
    var queued: Int { output.count }
}

/// A client's requests over time: token buckets of lines and bytes, each holding one second's
/// worth and refilled as time passes. A client that writes nonstop gets its share and no more,
/// so it can neither starve others nor keep a core busy.
struct RequestBudget {
    var lines = -1.0
    var bytes = -1.0
    var at: Int64 = 0

    mutating func refill(now: Int64, linesPerSecond: Double, bytesPerSecond: Double) {
        if at == 0 {
            (lines, bytes, at) = (linesPerSecond, bytesPerSecond, now)
            return
        }
        let dt = Double(max(0, now - at)) / 1e9
        lines = min(linesPerSecond, lines + dt * linesPerSecond)
        bytes = min(bytesPerSecond, bytes + dt * bytesPerSecond)
        at = now
    }

    /// Nanoseconds until at least one line and some bytes are available again.
    func wait(linesPerSecond: Double, bytesPerSecond: Double) -> Int64 {
        let forLines = lines >= 1 ? 0 : (1 - lines) / linesPerSecond
        let forBytes = bytes > 0 ? 0 : (1 - bytes) / bytesPerSecond
        return max(1_000_000, Int64(max(forLines, forBytes) * 1e9))
    }
}

/// Bytes queued for a socket: `storage[start..<end]`. The storage only grows (to the most ever
/// queued, which the output bound limits) and is written through a pointer: queueing a line is a
/// copy, and emptying the queue once it is written is two stores (an array's `removeAll` and
/// `append` cost more than the line's bytes on every frame).
struct ByteQueue {
    private var storage: [UInt8] = []
    private var start = 0
    private var end = 0

    var count: Int { end - start }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if start > 0 && start * 2 > end {
            // Most of it was written: move the rest to the front.
            storage.withUnsafeMutableBufferPointer { s in
                (s.baseAddress! + 0).update(from: s.baseAddress! + start, count: end - start)
            }
            end -= start
            start = 0
        }
        if end + bytes.count > storage.count {
            storage += [UInt8](repeating: 0, count: max(end + bytes.count, 2 * storage.count, 4096) - storage.count)
        }
        let at = end
        storage.withUnsafeMutableBufferPointer { s in (s.baseAddress! + at).update(from: source, count: bytes.count) }
        end += bytes.count
    }

    /// Calls `body` with the queued bytes (for `write(2)`).
    func withQueuedBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    /// `n` bytes were written.
    mutating func consume(_ n: Int) { start += n }

    /// Empties the queue; storage past `keepingUpTo` bytes is given back.
    mutating func removeAll(keepingUpTo limit: Int) {
        start = 0
        end = 0
        if storage.count > limit { storage = [] }
    }
}
