import GestureEngine
import Synchronization
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

#if canImport(Glibc)
    import Glibc
#endif

/// `--trace-hops FILE` (a benchmark mode, off unless asked): for every frame a mirror writes,
/// when the read that brought it returned, when the mirror's write started and ended, and the
/// panel's own kernel timestamp of the frame (CLOCK_MONOTONIC ns, the clock of the panel's and
/// the mirror's event times; 0 where the frame was the filters' own or the read's frames ran
/// out: the n-th frame written after a read takes the n-th frame end of that read). Joined frame
/// by frame with the mirror's own timestamps, it places a slow hop in the wake-up (panel →
/// read), the loop's work (read → write) or the write, and a frame the panel itself stamped late
/// outside the hop. Rows are kept in memory made at start (no allocation a frame; the first
/// `capacity` frames) and written to FILE at exit.
///
/// The input thread (`InputThread`) notes its reads and writes here too, so the rows are behind
/// a lock (a benchmark mode: the lock's cost is the trace's).
final class HopTrace: Sendable {
    let path: String
    private struct Rows {
        /// Four numbers a frame: read, write start, write end, the panel's time.
        var rows: [Int64] = []
        var lastRead: Int64 = 0
        /// The frame ends (SYN_REPORT) of the last read, their kernel times (at most
        /// `panelTimesKept`), and how many of them frames written since have taken.
        var panelTimes: [Int64] = []
        var taken = 0
        var dropped = 0
    }
    private static let panelTimesKept = 64
    private let rows: Mutex<Rows>
    private let capacity: Int

    init(path: String, frames: Int = 200_000) {
        self.path = path
        capacity = frames * 4
        var r = Rows()
        r.rows.reserveCapacity(capacity)
        r.panelTimes.reserveCapacity(Self.panelTimesKept)
        rows = Mutex(r)
    }

    var dropped: Int { rows.withLock { $0.dropped } }

    /// A read of a panel returned with `batch` (about to be decoded).
    func noteRead(_ batch: InputBatch) {
        let now = monotonicNanoseconds()
        rows.withLock { r in
            r.lastRead = now
            r.panelTimes.removeAll(keepingCapacity: true)
            r.taken = 0
            for e in batch.kernelEvents where e.type == 0 && e.code == 0 && r.panelTimes.count < Self.panelTimesKept {
                r.panelTimes.append(e.time.nanoseconds)  // (wrapping: any value the kernel sends)
            }
            for e in batch.events where e.type == 0 && e.code == 0 && r.panelTimes.count < Self.panelTimesKept {
                r.panelTimes.append(e.time.nanoseconds)
            }
        }
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
                r.rows.append(r.taken < r.panelTimes.count ? r.panelTimes[r.taken] : 0)
                r.taken += 1
            }
        }
    }

    /// The rows as text, one frame a line: `read write_start write_end panel` (ns).
    func write() throws {
        let all = rows.withLock { $0.rows }
        var text = "# read write_start write_end panel (CLOCK_MONOTONIC ns; panel: its kernel time of the frame, 0 unknown), a line per frame a mirror wrote\n"
        text.reserveCapacity(all.count * 20 + 100)
        var i = 0
        while i + 3 < all.count {
            text += "\(all[i]) \(all[i + 1]) \(all[i + 2]) \(all[i + 3])\n"
            i += 4
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
