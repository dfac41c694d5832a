import Testing

@testable import TouchFrames

/// The hand rule alone (`ContactFilter.HandLift`): fingers that drop out in one report, going
/// the same way, are carried on at their mean speed, each only while its own raw speed lies
/// within a quarter of that mean's. On a panel of 1 mm a unit, with the chatter and dejitter
/// filters, two fingers swiping along X side by side.
@Suite struct FilterHandLiftTests {
    static let filter: ContactFilter = {
        var s = ContactFilterSettings()
        s.dejitter = .init(minCutoff: 0.5)
        s.chatterNs = 35_000_000
        let axis = AbsAxis(minimum: 0, maximum: 999)
        return ContactFilter(s, slots: 2, x: axis, y: axis, sizeMM: (1000, 1000))
    }()

    static let step: Int64 = 16_666_667
    static let start: Int64 = 1_000_000_000
    /// Its lift: 10 ms after its last report.
    static let lift = start + 2 * step + 10_000_000

    /// A finger's raw path at `v` mm/s along X, three 60 Hz reports, at height `y` (mm); moving
    /// for the dejitter filter's estimate too.
    static func finger(_ v: Double, y: Double) -> ContactFilter.FilterSlot {
        var f = ContactFilter.FilterSlot()
        (f.firstX, f.firstY, f.firstAt) = (100, y, start)
        (f.priorX, f.priorY, f.priorAt) = (100 + v / 60, y, start + step)
        (f.rawX, f.rawY, f.rawAt) = (100 + 2 * v / 60, y, start + 2 * step)
        f.reports = 3
        (f.x, f.y, f.anchorX, f.anchorY, f.dx) = (f.rawX, y, 100, y, v)
        return f
    }

    /// The speed (mm/s along X) each of two fingers at `a` and `b` mm/s is carried at, nil where
    /// it keeps its own.
    static func carried(_ a: Double, _ b: Double) -> (Double?, Double?) {
        let rules = filter.rules, tally = ContactFilter.Tally()
        let (fa, fb) = (finger(a, y: 200), finger(b, y: 230))
        var hand = ContactFilter.HandLift()
        hand.add(fa, rules, tally, at: lift)
        hand.add(fb, rules, tally, at: lift)
        return (hand.speed(of: fa, rules, tally, lift: lift)?.x, hand.speed(of: fb, rules, tally, lift: lift)?.x)
    }

    @Test(arguments: [(500.0, 450.0), (500, 305), (310, 500)])
    func fingersWithinAQuarterOfTheirMean_goOnAtIt(a: Double, b: Double) {
        let (va, vb) = Self.carried(a, b)
        let mean = (a + b) / 2
        #expect(va.map { abs($0 - mean) < 0.5 } == true && vb.map { abs($0 - mean) < 0.5 } == true, "\(a), \(b): \(String(describing: va)), \(String(describing: vb))")
    }

    /// Past a quarter (500 and 295 mm/s: each 102.5 from the mean of 397.5, a quarter of it
    /// 99.4), and a pinch's fingers going apart: each keeps its own.
    @Test(arguments: [(500.0, 295.0), (500, 200), (400, -400)])
    func fingersPastAQuarterOfTheirMean_keepTheirOwn(a: Double, b: Double) {
        let (va, vb) = Self.carried(a, b)
        #expect(va == nil && vb == nil, "\(a), \(b): \(String(describing: va)), \(String(describing: vb))")
    }

    /// One finger alone is no hand.
    @Test func oneFinger_isNoHand() {
        let rules = Self.filter.rules, tally = ContactFilter.Tally()
        let f = Self.finger(500, y: 200)
        var hand = ContactFilter.HandLift()
        hand.add(f, rules, tally, at: Self.lift)
        #expect(hand.speed(of: f, rules, tally, lift: Self.lift) == nil)
    }
}
