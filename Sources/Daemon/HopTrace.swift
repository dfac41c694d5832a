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
final class HopTrace {
    let path: String
    /// Three numbers a frame: read, write start, write end.
    private var rows: [Int64] = []
    private let capacity: Int
    private var lastRead: Int64 = 0
    private(set) var dropped = 0

    init(path: String, frames: Int = 200_000) {
        self.path = path
        capacity = frames * 3
        rows.reserveCapacity(capacity)
    }

    /// A read of a panel returned (its batch is about to be decoded).
    func noteRead() { lastRead = monotonicNanoseconds() }

    /// A mirror wrote `events` between `start` and `end`: a row per frame in it.
    func noteWrite(_ events: [KernelInputEvent], start: Int64, end: Int64) {
        for e in events where e.type == 0 && e.code == 0 {  // SYN_REPORT: a frame's end
            guard rows.count < capacity else {
                dropped += 1
                continue
            }
            rows.append(lastRead)
            rows.append(start)
            rows.append(end)
        }
    }

    /// The rows as text, one frame a line: `read write_start write_end` (ns).
    func write() throws {
        var text = "# read write_start write_end (CLOCK_MONOTONIC ns), a line per frame a mirror wrote\n"
        text.reserveCapacity(rows.count * 20 + 100)
        var i = 0
        while i + 2 < rows.count {
            text += "\(rows[i]) \(rows[i + 1]) \(rows[i + 2])\n"
            i += 3
        }
        try writeTextFile(path, text)
    }
}

/// A mirror's screen that notes each write's start and end in the trace.
final class TracedTouchSink: TouchSink {
    let inner: any TouchSink
    let trace: HopTrace

    init(_ inner: any TouchSink, trace: HopTrace) {
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
