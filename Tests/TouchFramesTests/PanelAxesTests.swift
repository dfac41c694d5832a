import Testing
import TouchFrames

/// `PanelAxes` equality, which the mirror asks for every contact every frame (compared without a
/// branch per value): equal only when every one of its axes is.
@Suite struct PanelAxesTests {
    @Test func equal_onlyWhenEveryAxisIs() {
        let base = PanelAxes(all: 7)
        #expect(base == PanelAxes(all: 7))
        #expect(PanelAxes() == PanelAxes())
        for code in PanelAxes.first...PanelAxes.last {
            for value: Int32 in [8, 6, -7, .min, .max, 7 ^ (1 << 31)] {
                var other = base
                other[code] = value
                #expect(other != base, "code \(code), value \(value)")
                #expect(base != other)
            }
        }
        var outside = base
        outside[PanelAxes.last + 1] = 99
        #expect(outside == base, "a code outside the range is no axis of it")
    }
}
