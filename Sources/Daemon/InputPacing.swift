/// Reading a fast panel a few frames at a time when no one needs each frame the moment it comes.
///
/// Being woken costs more than a frame's work: in the qemu guest at 1 kHz, about 75–80 µs of the
/// daemon's 170 µs a frame (docs/BENCHMARKS.md, "The wake-up per frame"); on hardware too a wake-up
/// a millisecond keeps a core from sleeping. Reading each frame as it comes buys nothing to a
/// client that coalesces (`coalesce_ms` > 0: its `changed` lines go out together once per
/// window), nor to a daemon with no client (its actions and the wake are not made faster by
/// a millisecond). So when the panel sends frames at least `framesPerRead` times faster than
/// the coalescing window (500 Hz and up at the default 8 ms), the daemon leaves it unread for up
/// to `framesPerRead` frame periods after a turn, then reads what the kernel buffered in one go.
/// Never more than half a period past a held client's due write, never up to an engine deadline
/// (the frames before it are read first), and four frames a read (five if the loop wakes over
/// half a period late): at most half of what evdev buffers for a worst-case packet
/// (EVDEV_BUF_PACKETS is 8), so nothing is dropped. A line or an action is then at most
/// `framesPerRead` and a half frame periods later (4.5 ms at 1 kHz, 9 ms at 500 Hz) on such a
/// panel; never later on a panel slower than 500 Hz (whatever `coalesce_ms`), with a client that takes every
/// frame (`coalesce_ms` 0, or `[daemon] coalesce_ms = 0`), in pass-through or with a region that
/// emulates the pointer (the compositor reads each frame as it comes). Pure: the daemon tells it
/// the frames and asks it after each turn.
struct InputPacing {
    static let framesPerRead: Int64 = 4
    /// The slowest panel paced, a frame every 2 ms (500 Hz): the loop answers nothing while it
    /// waits, so a pause is at most four of these (8 ms). A long `coalesce_ms` (up to 100) would
    /// otherwise pace a slow panel too, and make its lines and the clients' replies wait four of
    /// its frames (100 ms at 40 Hz), where reading each frame as it comes costs little.
    static let slowestPeriod: Int64 = 2_000_000

    /// The input's recent frame period (ns), 0 before two frames.
    private(set) var period: Int64 = 0
    /// The newest frame read (monotonic ns), `.min` before any.
    private(set) var lastFrame: Int64 = .min

    /// A read's frames: `count` of them, the first and the last at these monotonic times. Called
    /// for every read, so kept to a few instructions (no optionals, one division). The period is
    /// the time from the last read's last frame to this one's, over the frames between: frames
    /// the kernel stamped close together (a panel's interrupt, or the writer, late, then catching
    /// up) make no slow panel look fast, as their own spread would (a 50 Hz panel's burst of
    /// three, 100 µs apart, read as 20 kHz, then paced: under load the daemon fell behind and
    /// the kernel dropped events).
    @inline(__always)
    mutating func frames(first: Int64, last: Int64, count: Int, device: UInt32 = 0) {
        // Two panels' frames interleaved are no one fast panel: a change of panel starts over
        // (two panels touched at once are read as their frames come).
        if device != lastDevice { (lastDevice, lastFrame, period) = (device, .min, 0) }
        if count > 0, lastFrame != .min, last > lastFrame {
            period = (last - lastFrame) / Int64(count)
        } else if count > 1, last > first {
            // A panel's first read: its own frames are all there is to go by.
            period = (last - first) / Int64(count - 1)
        }
        if last > lastFrame { lastFrame = last }
    }

    /// The panel of the last read.
    private var lastDevice: UInt32?

    /// Whether the panel is fast enough to pace (500 Hz and up) under a coalescing window of
    /// `window` (ns): the daemon's cheap first question each turn, before it looks at its clients.
    @inline(__always)
    func mayPace(within window: Int64) -> Bool {
        period > 0 && period <= Self.slowestPeriod && period * Self.framesPerRead <= window
    }

    /// When to read the panels next after a turn (monotonic ns), or nil for at once (as they
    /// come). `heldDue`: the earliest write due to a client holding continuous updates (nil: no
    /// held write bounds the pause); `coalesce`: the coalescing window; `deadline`: the engines'
    /// next deadline.
    func readAgain(heldDue: Int64?, coalesce: Int64, deadline: Int64?) -> Int64? {
        guard mayPace(within: coalesce) else { return nil }
        // Half a period past the fourth frame, or the held write's due time: the frame of that
        // time is in by then, the next is not. Woken at its very time, the loop raced its
        // writer (the kernel stamps a frame a little after its time, and the sleep ends a little
        // after its own), read a frame fewer, and woke once more for it: 0.28 wake-ups a frame
        // at 1 kHz where 0.25 would do; with a held client, the reads fell out of step with its
        // writes, and one in two windows took a read more. The write's window still counts
        // from its due time (`Fanout.flush`).
        var until = lastFrame + period * Self.framesPerRead
        if let heldDue { until = min(until, heldDue) }
        until += period / 2
        if let deadline { until = min(until, deadline - period) }
        // Less than two more frames: not worth a pause.
        return until >= lastFrame + 2 * period ? until : nil
    }
}
