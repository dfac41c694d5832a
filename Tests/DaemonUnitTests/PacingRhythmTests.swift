import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The input pacing and a held client's window together, turn after turn, as the loop runs them:
/// a 1 kHz panel whose frames are stamped 0.3 ms past each millisecond and readable 0.1 ms after
/// their stamp, a loop whose pauses end 0.05 ms late. The client is written on its own window,
/// and the loop wakes as few times as four frames a read allow.
@Suite struct PacingRhythmTests {
    static let ms: Int64 = 1_000_000

    /// The write times (ns) and the wake-ups for 400 frames streamed to one client.
    static func run(windowMs: Int64) -> (writes: [Int64], wakeups: Int) {
        var f = Fanout(coalesceNs: windowMs * ms, outputBufferBytes: 1 << 20)
        let (w, peer) = FanoutTests.pair()
        defer { [w, peer].forEach { close($0) } }
        let s = f.open(.socket(fd: w))
        func stamped(_ k: Int64) -> Int64 { k * ms + 300_000 }
        var next: Int64 = 0, wake = stamped(0) + 100_000
        var writes: [Int64] = [], wakeups = 0
        while next < 400 {
            wakeups += 1
            let first = next
            // The frames readable by now, each a line: the first begins, the others continue.
            while stamped(next) + 100_000 <= wake {
                let line = Array((next == 0 ? "began\n" : "changed\n").utf8)
                line.withUnsafeBufferPointer { f.enqueue($0, to: s, since: stamped(next), continuous: next > 0) }
                f.inputNow = stamped(next)
                next += 1
            }
            if next > first { f.pacing.frames(first: stamped(first), last: stamped(next - 1), count: Int(next - first)) }
            let before = f.writes
            let end = f.endTurn(turnClock: wake, deadline: nil)
            if f.writes > before {
                writes.append(wake)
                _ = FanoutTests.read(peer)
            }
            if let until = end.readAgain {
                f.pacedUntil = until
                wake = until + 50_000
            } else {
                wake = stamped(next) + 100_000
            }
        }
        return (writes, wakeups)
    }

    /// At the default 8 ms: a write every 8 ms, two reads of four frames each between writes.
    @Test func eightMsWindow_writtenEvery8ms_inAboutAWakeUpPerFourFrames() {
        let (writes, wakeups) = Self.run(windowMs: 8)
        let gaps = zip(writes.dropFirst(2), writes.dropFirst(3)).map { $1 - $0 }
        #expect(!gaps.isEmpty && gaps.allSatisfy { $0 >= 8 * Self.ms && $0 < 8 * Self.ms + Self.ms / 4 }, "gaps (ns): \(gaps)")
        #expect(wakeups <= 110, "wake-ups for 400 frames: \(wakeups)")
    }

    /// A window that is no multiple of four frames (a client's own 10 ms) is kept too: the read
    /// at the write's due time is not put off by the half period a frame read is.
    @Test func tenMsWindow_writtenEvery10ms() {
        let (writes, wakeups) = Self.run(windowMs: 10)
        let gaps = zip(writes.dropFirst(2), writes.dropFirst(3)).map { $1 - $0 }
        #expect(!gaps.isEmpty && gaps.allSatisfy { $0 >= 10 * Self.ms && $0 < 10 * Self.ms + Self.ms / 4 }, "gaps (ns): \(gaps)")
        #expect(wakeups <= 130, "wake-ups for 400 frames: \(wakeups)")
    }

    /// A pause that was not for the write anchors nothing: a finger that rested past the pause
    /// and moves again is written, and its next window counts from that write (with the half
    /// period of a period measured over the rest, a write came again a frame later).
    @Test func aWriteAfterARest_startsItsWindowAtTheWrite() {
        var f = Fanout(coalesceNs: 8 * Self.ms, outputBufferBytes: 1 << 16)
        let (w, peer) = FanoutTests.pair()
        defer { [w, peer].forEach { close($0) } }
        let s = f.open(.socket(fd: w))
        func frame(_ t: Int64, _ line: String, continuous: Bool = true) {
            Array((line + "\n").utf8).withUnsafeBufferPointer { f.enqueue($0, to: s, since: t * Self.ms, continuous: continuous) }
            f.inputNow = t * Self.ms
            f.pacing.frames(first: t * Self.ms, last: t * Self.ms, count: 1)
            _ = f.endTurn(turnClock: nil, deadline: nil)
        }
        for t in Int64(0)...2 { frame(t, "c\(t)") }
        frame(3, "recognized", continuous: false)  // written at 3 ms with what was held
        f.pacedUntil = 7 * Self.ms + Self.ms / 2  // the pause after it, then a rest: no frame
        #expect(FanoutTests.read(peer) == "c0\nc1\nc2\nrecognized\n")
        frame(19, "c19")
        #expect(FanoutTests.read(peer) == "c19\n")
        frame(20, "c20")
        #expect(FanoutTests.read(peer) == "", "written again 1 ms after the last write, in an 8 ms window")
    }
}
