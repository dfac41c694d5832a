import GestureEngine
import Testing

@testable import TouchFrames

/// A bounce and a second finger landing in the same frame, each in the other's slot
/// (ContactFilterBounces.swift): the held lift goes on with the landing closest to it, not with
/// the second finger because it came first or took the lift's slot. On the panel of
/// `ContactFilterTests` (0.344 mm a unit), chatter within 8 mm.
@Suite struct FilterBounceSlotTests {
    typealias F = ContactFilterTests

    static func decoder() throws -> FrameDecoder {
        try F.decoder { f in
            f.chatterNs = 35_000_000
            f.chatterDistanceMM = 8
        }
    }

    /// The finger held in `slot` (lifted at 0.1 s) and the contacts after a frame at 0.11 s that
    /// lands a second finger 5.2 mm away and the bounce 0.3 mm away, each in the given slot.
    /// (Taken for the bounce, the second finger went on where the first was held, and the
    /// bounce was the new contact, at 501.)
    static func frame(heldIn slot: Int32, second: Int32, bounce: Int32) throws -> (held: UInt32, panel: [PanelContact]) {
        var d = try decoder()
        F.feed(&d, at: 0, F.land(slot, id: 1, 500, 250))
        let held = try #require(d.panel.first?.id)
        F.feed(&d, at: 0.1, TimedFilterTests.lift(slot))
        F.feed(&d, at: 0.11, F.land(second, id: 2, 515, 250) + F.land(bounce, id: 3, 501, 250))
        return (held, Array(d.panel))
    }

    /// The second finger lands in the held lift's slot, the bounce in a later one.
    @Test func aSecondFingerInTheHeldSlot_isNotTakenForTheBounce() throws {
        let (held, panel) = try Self.frame(heldIn: 0, second: 0, bounce: 1)
        #expect(panel.count == 2)
        // The bounce goes on where the contact was held (its 1-unit jump moves nothing), the
        // second finger is a new contact where it landed.
        #expect(panel.first { $0.id == held }?.x == 500, "\(panel)")
        #expect(panel.first { $0.id != held }?.x == 515, "\(panel)")
    }

    /// The second finger lands in a free slot before the held one, the bounce in its own slot.
    @Test func aSecondFingerInAnEarlierFreeSlot_isNotTakenForTheBounce() throws {
        let (held, panel) = try Self.frame(heldIn: 1, second: 0, bounce: 1)
        #expect(panel.count == 2)
        // The bounce goes on where the contact was held (its 1-unit jump moves nothing), the
        // second finger is a new contact where it landed.
        #expect(panel.first { $0.id == held }?.x == 500, "\(panel)")
        #expect(panel.first { $0.id != held }?.x == 515, "\(panel)")
    }
}
