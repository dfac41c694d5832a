/// A panel's report interval as learnt from the time between its reports (s; 0 before the
/// first). Only 2-70 ms counts: a shorter time apart is a burst the kernel stamped at once, a
/// longer one a pause. The first eight are averaged, so one jittery spacing right after a start
/// does not set it (a 25 Hz panel's late reports, up to 60 ms apart, count: left out, its
/// interval came out short). Then a slow average of the spacings up to 1.5 of it: a longer one is
/// a finger that held still between reports (the kernel sends no report whose values all repeat,
/// so a quiet panel's spacings are 2, 3, 4 of its interval: a 45 Hz panel whose fingers rest
/// between reports learnt 35 ms and held every lift 44 ms, merging quick double taps). One under
/// 0.65 of it moves it halfway there: the panel is faster than the first spacings said (a start
/// among a resting finger's doubles), which no jitter explains. Eight spacings in a row over 1.5 of
/// it (no pause past 70 ms between) are a panel that slowed down (a quiet panel's resting fingers
/// leave a single interval among every few): it is their mean from then, or a 25 Hz bounce after a
/// 60 Hz start was held 35 ms, and a double tap. A pause of the panel's past 70 ms (between touches,
/// `pause`) ends such a run: still taps on a quiet panel, each a landing and a lift 50 ms later,
/// seconds apart, are no panel that slowed down.
struct ReportInterval {
    private(set) var seconds = 0.0
    private var samples: Int32 = 0
    /// The spacings in a row over 1.5 of `seconds`, and their sum.
    private var longRun: Int32 = 0
    private var longSum = 0.0

    /// Some spacing was seen.
    var isLearnt: Bool { samples > 0 }

    @inline(__always) mutating func learn(_ dt: Double) {
        guard dt >= 0.002 else { return }
        guard dt <= Double(Self.longestNs) / 1e9 else { return pause() }
        if samples < Self.averaged {
            samples &+= 1  // up to 8
            seconds += (dt - seconds) / Double(samples)
        } else if dt > 1.5 * seconds {
            (longRun, longSum) = (longRun &+ 1, longSum + dt)  // up to `averaged`, then reset
            if longRun == Self.averaged { (seconds, longRun, longSum) = (longSum / Double(Self.averaged), 0, 0) }
            return
        } else if dt < 0.65 * seconds {
            seconds += 0.5 * (dt - seconds)
        } else {
            seconds += 0.1 * (dt - seconds)
        }
        (longRun, longSum) = (0, 0)
    }

    /// The panel sent nothing for longer than `longestNs`: a run of long spacings ends.
    @inline(__always) mutating func pause() { (longRun, longSum) = (0, 0) }

    static let averaged: Int32 = 8
    /// The longest spacing that is a report interval (ns); a longer one is a pause.
    static let longestNs: Int64 = 70_000_000
}
