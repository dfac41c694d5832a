/// A panel's report interval as learnt from the time between its reports (s; 0 before the
/// first): the mean of the first eight, so one jittery spacing right after a start does not set
/// it, then a slow average, so one late frame moves it little. Only 2-70 ms counts: a shorter
/// time apart is a burst the kernel stamped at once, a longer one a finger that held still (the
/// kernel sends nothing then) or a pause (a 25 Hz panel's late reports, up to 60 ms apart, count:
/// left out, its interval came out short).
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
        } else {
            seconds += 0.1 * (dt - seconds)
        }
    }

    static let averaged: Int32 = 8
}
