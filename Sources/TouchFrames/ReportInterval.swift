/// A panel's report interval as learnt from the time between its reports (s; 0 before the
/// first). Only 2-70 ms counts: a shorter time apart is a burst the kernel stamped at once, a
/// longer one a pause. The first eight are averaged, so one jittery spacing right after a start
/// does not set it (a 25 Hz panel's late reports, up to 60 ms apart, count: left out, its
/// interval came out short). Then it learns mostly from the short side: a spacing over 1.5 of it
/// is a finger that held still between reports (the kernel sends no report whose values all
/// repeat, so a quiet panel's spacings are 2, 3, 4 of its interval) and teaches nothing, and one
/// above it teaches half as much as one below: a 45 Hz panel whose fingers rest between reports
/// learnt 35 ms and held every lift 44 ms, merging a quick double tap; a jittery one settles a
/// little under its mean.
struct ReportInterval {
    private(set) var seconds = 0.0
    private var samples: Int32 = 0

    /// Some spacing was seen.
    var isLearnt: Bool { samples > 0 }

    @inline(__always) mutating func learn(_ dt: Double) {
        guard dt >= 0.002 && dt <= 0.07 else { return }
        if samples < Self.averaged {
            samples &+= 1  // up to 8
            seconds += (dt - seconds) / Double(samples)
        } else if dt < seconds {
            seconds += 0.1 * (dt - seconds)
        } else if dt <= 1.5 * seconds {
            seconds += 0.05 * (dt - seconds)
        }
    }

    static let averaged: Int32 = 8
}
