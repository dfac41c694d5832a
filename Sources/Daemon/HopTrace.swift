import Synchronization
import SystemCalls
import TouchFrames
import TouchMirror

#if canImport(Glibc)
    import Glibc
#endif

/// `--trace-hops FILE` (a benchmark mode, off unless asked): for every frame a mirror writes,
/// when the read that brought it returned and when the mirror's write started and ended
/// (CLOCK_MONOTONIC ns, the clock of the panel's and the mirror's event times). Joined frame by
/// frame with the panel's and the mirror's own timestamps, it places a slow hop in the wake-up
/// (panel → read), the loop's work (read → write) or the write. Rows are kept in memory made at
/// start (no allocation a frame; the first `capacity` frames) and written to FILE at exit.
///
/// The input thread (`InputThread`) notes its reads and writes here too, so the rows are behind
/// a lock (a benchmark mode: the lock's cost is the trace's).
final class HopTrace: Sendable {
    let path: String
    private struct Rows {
        /// Three numbers a frame: read, write start, write end.
        var rows: [Int64] = []
        var lastRead: Int64 = 0
        var dropped = 0
    }
    private let rows: Mutex<Rows>
    private let capacity: Int

    init(path: String, frames: Int = 200_000) {
        self.path = path
        capacity = frames * 3
        var r = Rows()
        r.rows.reserveCapacity(capacity)
        rows = Mutex(r)
    }

    var dropped: Int { rows.withLock { $0.dropped } }

    /// A read of a panel returned (its batch is about to be decoded).
    func noteRead() {
        let now = monotonicNanoseconds()
        rows.withLock { $0.lastRead = now }
    }

    /// A mirror wrote `events` between `start` and `end`: a row per frame in it.
    func noteWrite(_ events: [KernelInputEvent], start: Int64, end: Int64) {
        let capacity = capacity
        rows.withLock { r in
            for e in events where e.type == 0 && e.code == 0 {  // SYN_REPORT: a frame's end
                guard r.rows.count < capacity else {
                    r.dropped += 1
                    continue
                }
                r.rows.append(r.lastRead)
                r.rows.append(start)
                r.rows.append(end)
            }
        }
    }

    /// The rows as text, one frame a line: `read write_start write_end` (ns).
    func write() throws {
        let all = rows.withLock { $0.rows }
        var text = "# read write_start write_end (CLOCK_MONOTONIC ns), a line per frame a mirror wrote\n"
        text.reserveCapacity(all.count * 20 + 100)
        var i = 0
        while i + 2 < all.count {
            text += "\(all[i]) \(all[i + 1]) \(all[i + 2])\n"
            i += 3
        }
        try writeTextFile(path, text)
    }
}

/// A mirror's screen that notes each write's start and end in the trace.
final class TracedTouchSink: TouchSink, Sendable {
    let inner: any TouchSink & Sendable
    let trace: HopTrace

    init(_ inner: any TouchSink & Sendable, trace: HopTrace) {
        self.inner = inner
        self.trace = trace
    }

    func send(_ events: [KernelInputEvent]) -> SystemCallError? {
        let start = monotonicNanoseconds()
        let result = inner.send(events)
        trace.noteWrite(events, start: start, end: monotonicNanoseconds())
        return result
    }
}
