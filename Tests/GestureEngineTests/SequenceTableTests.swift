import Testing

@testable import GestureEngine

/// Which regions a frame concerns (`SequenceTable.active`, `isActive`): the regions on the paths
/// of the contacts down and of those that lifted in it, and no other, however many frames move
/// the same contacts (those reuse the last frame's list).
@Suite struct SequenceTableTests {
    /// The regions (by name) the last frame concerned, in `active`'s order, and every region's
    /// `isActive` agrees with the list.
    static func concerned(_ t: Timeline) -> [String] {
        let c = t.engine.configuration
        let names = t.engine.sequences.active.map { c.regions[$0].name }
        for r in c.regions.indices where !c.regions[r].gestures.isEmpty {
            #expect(t.engine.sequences.isActive(r) == names.contains(c.regions[r].name), "\(c.regions[r].name)")
        }
        return names
    }

    @Test func aLiftConcernsItsRegionForItsFrameOnly_thenTheOtherHandAlone() {
        var t = Timeline(regions: [
            RegionSpec(name: "left", rect: rect(0, 0, 500, 1000), gestures: [GestureSpec(.pan)]),
            RegionSpec(name: "right", rect: rect(500, 0, 500, 1000), gestures: [GestureSpec(.pan)]),
        ])
        t.down(1, at: (100, 500))
        for step in 1...3 { t.move(1, to: (100 + Double(step), 500)) }
        #expect(Self.concerned(t) == ["left"])
        t.down(2, at: (800, 500))
        for step in 1...3 { t.move(2, to: (800 + Double(step), 500)) }
        #expect(Set(Self.concerned(t)) == ["left", "right"])
        t.up(2)
        #expect(Set(Self.concerned(t)) == ["left", "right"], "the lift concerns its region")
        for step in 4...8 {
            t.move(1, to: (100 + Double(step), 500))
            #expect(Self.concerned(t) == ["left"], "frame \(step): the right hand is gone")
        }
        t.up(1)
        #expect(Self.concerned(t) == ["left"])
        t.down(3, at: (700, 500))
        for step in 1...3 {
            t.move(3, to: (700, 500 + Double(step)))
            #expect(Self.concerned(t) == ["right"])
        }
    }

    @Test func aContactInANestedRegion_concernsItsWholePath_everyFrame() {
        var t = Timeline(regions: [
            RegionSpec(name: "card", rect: rect(0, 0, 600, 600), gestures: [GestureSpec(.pan)]),
            RegionSpec(name: "button", rect: rect(100, 100, 200, 100), gestures: [GestureSpec(.tap)]),
        ])
        t.down(1, at: (150, 150))
        for step in 1...5 {
            t.move(1, to: (150 + Double(step), 150))
            #expect(Self.concerned(t) == ["button", "card"], "frame \(step)")
        }
        t.down(2, at: (500, 500))
        #expect(Set(Self.concerned(t)) == ["button", "card"])
        for step in 1...3 {
            t.move(2, to: (500, 500 + Double(step)))
            #expect(Set(Self.concerned(t)) == ["button", "card"], "frame \(step)")
        }
        t.up(1)
        t.move(2, to: (500, 510))
        #expect(Self.concerned(t) == ["card"], "only the card's finger is left")
    }
}
