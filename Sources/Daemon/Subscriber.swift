import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// One receiver of stream lines as the fan-out sees it: where its lines go (`Kind`), what is
/// queued for it, and its coalescing clock. A value in `Fanout.subscribers`, so the per-frame
/// path reads and writes it without touching an object.
struct Subscriber {
    /// Where lines go: the seam between the fan-out and its receivers. A socket client today;
    /// the virtual devices and the WebSocket bridge become further cases, each written by
    /// `Fanout.write`.
    enum Kind: Equatable {
        case socket(fd: Int32)
    }

    /// The write side's state. `gone` is set by the fan-out (a failed write, a client too slow)
    /// and reported in `Fanout.notices`; the server closes the connection at the end of the turn
    /// and the slot becomes `free`.
    enum Link: Equatable {
        /// An empty slot.
        case free
        /// Lines are written once a turn (`Fanout.flush`).
        case open
        /// The kernel took no more: written again when the fd is writable (EPOLLOUT).
        case blocked
        /// Dropped; no line is queued or written any more.
        case gone
    }

    var kind: Kind
    var link: Link
    /// Queued output (written from the front as the socket takes it).
    var output = ByteQueue()
    /// This turn's lines for it still in the fan-out's line buffer (`Fanout.turnLines`), not
    /// copied: a subscriber with nothing queued takes a turn's gesture lines in place, as one
    /// run of the buffer, written from there at the turn's end. Anything that would come
    /// behind the run (another line, a reply), a hold past the turn and a buffer about to be
    /// emptied copy it into `output` first (`settle`). Set only while `output` is empty.
    var inPlace: Range<Int>?
    /// Reply bytes queued since the queue was last empty. A request's answer may be larger than
    /// the stream bound without making its client "slow".
    var replyAllowance = 0
    /// Monotonic time of the input behind the oldest line not yet written (for latency).
    var pendingSince: Int64?
    /// Something queued must go out this turn: a reply, or a stream line that is not a
    /// continuous update (see `Fanout.flush`).
    var urgent = false
    /// The time of the last write (input time where there was input): continuous updates are
    /// written at most once per `coalesceNs` after it.
    var lastWriteAt: Int64 = -(1 << 62)  // long ago, and far from overflowing a subtraction
    /// The input time of the last continuous update queued for it (the input pacing paces only
    /// while a client is being streamed to).
    var streamedAt: Int64 = -(1 << 62)
    /// Its own `coalesce_ms` (from `subscribe`), in ns; nil takes the daemon's.
    var coalesceNs: Int64?
    /// What it subscribed to, resolved. A new client gets gesture and device lines; `subscribe`
    /// changes that.
    var subscription = ResolvedSubscription()
    /// Its peer closed its writing side and every request was served: once the queue is
    /// written, the connection closes.
    var closeWhenWritten = false

    init(kind: Kind) {
        self.kind = kind
        link = .open
    }

    static let empty = Subscriber(free: ())
    private init(free: Void) {
        kind = .socket(fd: -1)
        link = .free
    }

    /// What waits to be written: the queue and the run in place.
    var queued: Int { output.count + (inPlace?.count ?? 0) }

    /// `count` more bytes keep the queue within `limit`.
    func fits(_ count: Int, _ limit: Int) -> Bool { queued + count <= limit }

    /// Queues a stream line (`Fanout.enqueue`): `since` is its input's time, `continuous` an
    /// update the next one supersedes (it may be held back); any other line is urgent.
    // Safe: a buffer valid for the call, copied into `output` (after the run in place: `settle` first).
    mutating func queue(_ bytes: UnsafeBufferPointer<UInt8>, since: Int64?, continuous: Bool) {
        output.append(bytes)
        noteQueued(since: since, continuous: continuous)
    }

    private mutating func noteQueued(since: Int64?, continuous: Bool) {
        if pendingSince == nil { pendingSince = since }
        if continuous { streamedAt = since ?? streamedAt } else { urgent = true }
    }

    /// Takes `line` of the turn's line buffer in place when nothing is queued and it continues
    /// the run (the next line of the buffer) within `limit`; false when it must be copied.
    mutating func takeInPlace(_ line: Range<Int>, within limit: Int, since: Int64, continuous: Bool) -> Bool {
        guard output.count == 0, link == .open else { return false }
        let start = inPlace?.lowerBound ?? line.lowerBound
        guard inPlace.map({ $0.upperBound == line.lowerBound }) ?? true, line.upperBound - start <= limit else { return false }
        inPlace = start..<line.upperBound
        noteQueued(since: since, continuous: continuous)
        return true
    }

    /// The run in place copied into the queue (`lines`: the turn's line buffer).
    mutating func settle(_ lines: borrowing [UInt8]) {
        guard let run = inPlace else { return }
        inPlace = nil
        // Checked in every build: the rebased buffer below is not.
        precondition(run.upperBound <= lines.count, "a run in place past the line buffer")
        // Safe: the run is a range of the buffer's lines (checked above), lent for the copy.
        lines.withUnsafeBufferPointer { output.append(UnsafeBufferPointer(rebasing: $0[run])) }
    }

    /// What `drain` did.
    enum Drained {
        /// Nothing was written: the slot is free or dropped.
        case notLive
        /// All was written, in `count` writes; the queue is empty again, and its oldest line's
        /// input time (for latency) is handed back.
        case written(count: Int, pendingSince: Int64?)
        /// The kernel took no more after `count` writes: the rest waits for EPOLLOUT.
        case blocked(count: Int)
        /// The write failed or the socket went away: the subscriber is to be dropped.
        case failed(String)
    }

    /// Writes the queue to the socket as far as the kernel takes it, without blocking; an
    /// emptied queue gives back storage past `limit` bytes.
    mutating func drain(keepingUpTo limit: Int, lines: borrowing [UInt8]) -> Drained {
        guard isLive, case .socket(let fd) = kind else { return .notLive }
        var count = 0
        // The run in place first (the queue is empty while there is one), in one write from the
        // buffer; what the socket did not take goes to the queue, whose loop below meets the
        // same refusal again (EAGAIN, an error) and answers it.
        if let run = inPlace {
            precondition(run.upperBound <= lines.count, "a run in place past the line buffer")
            // Safe: the run is a range of the turn's line buffer (checked above: the rebasing is not), lent for the write.
            if case .done(let n) = lines.withUnsafeBytes({ Posix.write(fd, UnsafeRawBufferPointer(rebasing: $0[run])) }) {
                inPlace = run.lowerBound + n..<run.upperBound
                count = 1
            }
            if inPlace!.isEmpty { inPlace = nil } else { settle(lines) }
        }
        while output.count > 0 {
            switch output.withQueuedBytes({ Posix.write(fd, $0) }) {
            case .done(let n):
                output.consume(n)
                count += 1
            case .wouldBlock:
                link = .blocked
                return .blocked(count: count)
            case .failed(let e):
                return .failed("\(e)")
            case .removed:
                return .failed("write: the socket went away")
            }
        }
        output.removeAll(keepingUpTo: limit)
        replyAllowance = 0
        urgent = false
        link = .open
        defer { pendingSince = nil }
        return .written(count: count, pendingSince: pendingSince)
    }
    /// Lines may be queued and written (it is neither free nor dropped).
    var isLive: Bool { link == .open || link == .blocked }
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

    // Safe: copied into the storage, grown first to fit.
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if start > 0 && start * 2 > end {
            // Most of it was written: move the rest to the front.
            // Safe: both ranges lie within `storage` (start..<end, and 0..<end-start).
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
        // Safe: the storage was grown above to hold `at + bytes.count` bytes.
        storage.withUnsafeMutableBufferPointer { s in (s.baseAddress! + at).update(from: source, count: bytes.count) }
        end += bytes.count
    }

    /// Calls `body` with the queued bytes (for `write(2)`).
    // Safe: the queued bytes lent to `body` for the call only; `start..<end` is within the storage.
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
