import Testing

@testable import Daemon

/// The input pacing's decisions (InputPacing.swift): when the loop reads the panels again after
/// a turn. Times in ms, as monotonic ns.
@Suite struct InputPacingTests {
    static let ms: Int64 = 1_000_000
    static let window = 8 * ms

    /// A 1 kHz panel, read a frame at a time until now (the last at 100 ms).
    func atOneKilohertz() -> InputPacing {
        var p = InputPacing()
        for t in 95...100 { p.frames(first: Int64(t) * Self.ms, last: Int64(t) * Self.ms, count: 1) }
        return p
    }

    /// Half a period past the fourth frame: that frame is in by then, the fifth is not.
    @Test func fastPanel_streamedTo_readsFourFramesLater() {
        let p = atOneKilohertz()
        #expect(p.period == Self.ms)
        #expect(p.readAgain(heldDue: 106 * Self.ms, coalesce: Self.window, deadline: nil) == 104 * Self.ms + Self.ms / 2)
    }

    @Test func atTheHeldWrite_norUpToADeadline() {
        let p = atOneKilohertz()
        // The held client's write is due at 103 ms: read then (and half a period, for the frame
        // of 103 ms to be in).
        #expect(p.readAgain(heldDue: 103 * Self.ms, coalesce: Self.window, deadline: nil) == 103 * Self.ms + Self.ms / 2)
        // A long press due at 104 ms: the frames before it are read a frame period earlier.
        #expect(p.readAgain(heldDue: 106 * Self.ms, coalesce: Self.window, deadline: 104 * Self.ms) == 103 * Self.ms)
        // Less than two frames to wait for: read as they come.
        #expect(p.readAgain(heldDue: 101 * Self.ms, coalesce: Self.window, deadline: nil) == nil)
        #expect(p.readAgain(heldDue: 106 * Self.ms, coalesce: Self.window, deadline: 102 * Self.ms) == nil)
    }

    /// No client streamed to (none connected, or a swipe-only one): four frames, bounded by a
    /// deadline only.
    @Test func nothingHeld_readsFourFramesLater_butNotUpToADeadline() {
        let fast = atOneKilohertz()
        #expect(fast.readAgain(heldDue: nil, coalesce: Self.window, deadline: nil) == 104 * Self.ms + Self.ms / 2)
        #expect(fast.readAgain(heldDue: nil, coalesce: Self.window, deadline: 103 * Self.ms) == 102 * Self.ms)
        #expect(fast.readAgain(heldDue: nil, coalesce: Self.window, deadline: 102 * Self.ms) == nil)
        // `[daemon] coalesce_ms = 0`: every frame as it comes.
        #expect(fast.readAgain(heldDue: nil, coalesce: 0, deadline: nil) == nil)
    }

    @Test func slowPanel_orShortWindow_readsAtOnce() {
        let fast = atOneKilohertz()
        // A window shorter than four frames (coalesce_ms 3 at 1 kHz).
        #expect(fast.readAgain(heldDue: 103 * Self.ms, coalesce: 3 * Self.ms, deadline: nil) == nil)
        // 250 Hz: four frames are 16 ms, more than the 8 ms window.
        var slow = InputPacing()
        for t in stride(from: 80, through: 100, by: 4) { slow.frames(first: Int64(t) * Self.ms, last: Int64(t) * Self.ms, count: 1) }
        #expect(slow.period == 4 * Self.ms)
        #expect(slow.readAgain(heldDue: 108 * Self.ms, coalesce: Self.window, deadline: nil) == nil)
        // The first question the daemon asks each turn, before it looks at its clients: 250 Hz
        // is slower than 500, whatever the window.
        #expect(!slow.mayPace(within: Self.window) && !slow.mayPace(within: 100 * Self.ms))
        #expect(fast.mayPace(within: Self.window) && !fast.mayPace(within: 3 * Self.ms))
        // Before any frame: nothing to go by.
        #expect(InputPacing().period == 0)
        #expect(InputPacing().readAgain(heldDue: 108 * Self.ms, coalesce: Self.window, deadline: nil) == nil)
        #expect(!InputPacing().mayPace(within: 100 * Self.ms))
    }

    /// A long `coalesce_ms` does not make the pause long: a panel slower than 500 Hz is never
    /// paced, whatever the window, so a pause is at most four 2 ms frames.
    @Test func longWindow_pacesNoPanelSlowerThan500Hz() {
        var p500 = InputPacing()
        for t in stride(from: 90, through: 100, by: 2) { p500.frames(first: Int64(t) * Self.ms, last: Int64(t) * Self.ms, count: 1) }
        #expect(p500.readAgain(heldDue: 200 * Self.ms, coalesce: 100 * Self.ms, deadline: nil) == 109 * Self.ms)
        var p40 = InputPacing()
        for t in stride(from: 0, through: 100, by: 25) { p40.frames(first: Int64(t) * Self.ms, last: Int64(t) * Self.ms, count: 1) }
        #expect(!p40.mayPace(within: 100 * Self.ms))
        #expect(p40.readAgain(heldDue: 200 * Self.ms, coalesce: 100 * Self.ms, deadline: nil) == nil)
    }

    /// A burst (frames stamped close together: a late interrupt, a writer catching up) on a
    /// 50 Hz panel is no fast panel: the period counts from the last read's last frame.
    @Test func aBurstOnASlowPanel_isNotPaced() {
        var p = InputPacing()
        for t in stride(from: 0, through: 100, by: 20) { p.frames(first: Int64(t) * Self.ms, last: Int64(t) * Self.ms, count: 1) }
        #expect(p.period == 20 * Self.ms)
        // Three frames 0.1 ms apart, after 60 ms without a read.
        p.frames(first: 159_800_000, last: 160_000_000, count: 3)
        #expect(p.period == 20 * Self.ms && !p.mayPace(within: Self.window))
        #expect(p.readAgain(heldDue: nil, coalesce: Self.window, deadline: nil) == nil)
    }

    /// Two 250 Hz panels touched at once, their frames 2 ms apart, are no 500 Hz panel.
    @Test func twoPanelsInterleaved_areNotOneFastPanel() {
        var p = InputPacing()
        for t in stride(from: 0, through: 40, by: 2) {
            p.frames(first: Int64(t) * Self.ms, last: Int64(t) * Self.ms, count: 1, device: UInt32(t / 2 % 2))
        }
        #expect(!p.mayPace(within: Self.window))
    }

    /// A read of several frames gives the period from its first and last; a stroke that starts
    /// after a pause measures the pause until its second read.
    @Test func periodFromABatch_andAfterAPause() {
        var p = InputPacing()
        p.frames(first: 100 * Self.ms, last: 103 * Self.ms, count: 4)
        #expect(p.period == Self.ms && p.lastFrame == 103 * Self.ms)
        p.frames(first: 153 * Self.ms, last: 153 * Self.ms, count: 1)
        #expect(p.period == 50 * Self.ms)
        #expect(p.readAgain(heldDue: 161 * Self.ms, coalesce: Self.window, deadline: nil) == nil)
        p.frames(first: 154 * Self.ms, last: 154 * Self.ms, count: 1)
        #expect(p.readAgain(heldDue: 161 * Self.ms, coalesce: Self.window, deadline: nil) == 158 * Self.ms + Self.ms / 2)
    }
}
