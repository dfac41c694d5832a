import GestureEngine
import Testing

@testable import TouchFrames

/// A multitouch panel without slots (protocol A): every frame lists every contact, each ended by
/// SYN_MT_REPORT; the decoder tracks them into slots of its own.
@Suite struct ProtocolATests {
    /// 0…999 × 0…499 units at 10 units/mm (100 × 50 mm), no ABS_MT_SLOT or tracking id.
    static func panelA(trackingIDs: Bool = false) -> DeviceDescription {
        var d = panel()
        d.axes[Evdev.ABS_MT_SLOT] = nil
        if !trackingIDs { d.axes[Evdev.ABS_MT_TRACKING_ID] = nil }
        d.axes[Evdev.ABS_MT_PRESSURE] = AbsAxis(minimum: 0, maximum: 255)
        d.codes[Evdev.EV_ABS] = Set(d.axes.keys)
        return d
    }

    /// One protocol A frame: each contact (x, y, and its tracking id when not nil), then SYN_REPORT.
    static func frame(_ f: inout Feeder, _ contacts: [(x: Int32, y: Int32, id: Int32?)]) {
        for c in contacts {
            if let id = c.id { f.abs(Evdev.ABS_MT_TRACKING_ID, id) }
            f.abs(Evdev.ABS_MT_POSITION_X, c.x)
            f.abs(Evdev.ABS_MT_POSITION_Y, c.y)
            f.syn(Evdev.SYN_MT_REPORT)
        }
        if contacts.isEmpty { f.syn(Evdev.SYN_MT_REPORT) }
        f.syn()
    }

    @Test func theDescription_isProtocolA_withTenSlots() {
        let d = Self.panelA()
        #expect(d.isProtocolA && d.touchKind == .multitouch && d.slotCount == 10)
        #expect(!panel().isProtocolA)
    }

    @Test func contactsKeepTheirIds_inWhateverOrderTheyAreListed_andAnEmptyFrameLiftsThem() {
        var f = Feeder(Self.panelA())
        Self.frame(&f, [(100, 100, nil), (500, 300, nil)])
        let ids = f.last.map(\.id)
        #expect(ids.count == 2)
        // Listed the other way round, each moved a little.
        Self.frame(&f, [(510, 300, nil), (110, 100, nil)])
        #expect(f.last.map { "\($0.id) \(Int($0.position.x))" } == ["\(ids[0]) 110", "\(ids[1]) 510"])
        Self.frame(&f, [])
        #expect(f.last.isEmpty)
        Self.frame(&f, [(110, 100, nil)])
        #expect(f.last.map(\.id) == [ids[1] + 1], "a new landing is a new contact")
    }

    @Test func aLiftAndALandingFarApart_inOneFrame_areTwoContacts() {
        // 4 units/mm: 250 × 125 mm.
        var d = Self.panelA()
        for code in [Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y] { d.axes[code]!.resolution = 4 }
        var f = Feeder(d)
        Self.frame(&f, [(50, 50, nil)])
        let first = f.last.map(\.id)
        // 246 mm away in one frame: no finger moves that far in one report.
        Self.frame(&f, [(950, 450, nil)])
        #expect(f.last.count == 1 && f.last.map(\.id) != first)
        let landed = f.last.map(\.id)
        // 50 mm, then 75 mm in a frame 40 ms apart (30 Hz and its jitter): a fast swipe, the same contact.
        f.ms += 30
        Self.frame(&f, [(750, 450, nil)])
        f.ms += 30
        Self.frame(&f, [(450, 450, nil)])
        #expect(f.last.map(\.id) == landed)
    }

    @Test func theJumpLimit_followsTheFramesSpacing() {
        // 10 units/mm; frames of one contact 20 ms apart (the feeder's clock moves 10 ms a SYN
        // event): a finger moves 60 mm at most (3 m/s).
        var f = Feeder(Self.panelA())
        Self.frame(&f, [(100, 100, nil)])
        let first = f.last.map(\.id)
        // One finger lifts as another lands 80 mm away in the same frame (two hands typing): two contacts.
        Self.frame(&f, [(900, 100, nil)])
        #expect(f.last.count == 1 && f.last.map(\.id) != first)
        let second = f.last.map(\.id)
        // 50 mm in 20 ms (2.5 m/s): the same finger.
        Self.frame(&f, [(400, 100, nil)])
        #expect(f.last.map(\.id) == second)
    }

    /// One finger's frames `ms` apart, `steps` steps of `mm` along X: the same contact throughout?
    static func sameContact(stepsMM mm: Int32, everyMs ms: Int64, steps: Int = 3, unitsPerMM: Int32 = 10) -> Bool {
        var d = Self.panelA()
        for code in [Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y] { d.axes[code]!.resolution = unitsPerMM }
        var f = Feeder(d)
        var x: Int32 = 0
        Self.frame(&f, [(x, 100, nil)])
        let first = f.last.map(\.id)
        for _ in 0..<steps {
            f.ms += ms - 20  // a one-contact frame moves the feeder's clock 20 ms itself
            x += mm * unitsPerMM
            Self.frame(&f, [(x, 100, nil)])
        }
        return f.last.map(\.id) == first
    }

    @Test func theJumpLimit_isAtLeast20mm_andAtMost100mm() {
        // 1 kHz: 3 mm at 3 m/s, but a finger is allowed 20 mm.
        #expect(Self.sameContact(stepsMM: 19, everyMs: 1))
        #expect(!Self.sameContact(stepsMM: 21, everyMs: 1))
        // 100 Hz: 30 mm.
        #expect(Self.sameContact(stepsMM: 29, everyMs: 10))
        #expect(!Self.sameContact(stepsMM: 31, everyMs: 10))
        // 10 Hz: 300 mm at 3 m/s, but 100 mm at most (4 units/mm: a 250 mm panel).
        #expect(Self.sameContact(stepsMM: 99, everyMs: 100, steps: 2, unitsPerMM: 4))
        #expect(!Self.sameContact(stepsMM: 101, everyMs: 100, steps: 2, unitsPerMM: 4))
    }

    @Test func reportsReadTogether_areAsFarApartAsThePanelsInterval() {
        // A 30 Hz panel (33 ms), then two reports stamped 1 µs apart: 40 mm between them is a
        // 33 ms move, not a 1 µs one (the 20 mm floor would split the finger).
        var f = Feeder(Self.panelA())
        Self.frame(&f, [(0, 100, nil)])
        let first = f.last.map(\.id)
        for x: Int32 in [100, 200, 300] {
            f.ms += 13
            Self.frame(&f, [(x, 100, nil)])
        }
        f.ms -= 20  // the next frame stamped where the last one was
        Self.frame(&f, [(700, 100, nil)])
        #expect(f.last.map(\.id) == first)
    }

    @Test func theDriversIds_keepNoContactPastTheJumpLimit() {
        var f = Feeder(Self.panelA(trackingIDs: true))
        Self.frame(&f, [(50, 50, 0)])
        let first = f.last.map(\.id)
        // Id 0 again 90 mm away 20 ms later (limit 60 mm): the driver reused the id for a new landing.
        Self.frame(&f, [(950, 50, 0)])
        #expect(f.last.count == 1 && f.last.map(\.id) != first)
    }

    @Test func theLastFingerLeft_ofIdsInListOrder_keepsItsOwnContact() {
        // Two fingers 40 mm apart numbered 0 and 1 in list order; the first one lifts, and the
        // one left is listed first, so numbered 0: it goes on as itself, not as the lifted one.
        var f = Feeder(Self.panelA(trackingIDs: true))
        Self.frame(&f, [(100, 100, 0), (500, 100, 1)])
        let ids = f.last.map(\.id)
        Self.frame(&f, [(502, 100, 0)])
        #expect(f.last.map { "\($0.id) \(Int($0.position.x))" } == ["\(ids[1]) 502"])
    }

    @Test func moreContactsThanSlots_theFingersDownKeepTheirSlots() {
        // Eleven listed on a panel of ten slots, the one listed last changing: the ten down keep
        // their contacts, and the eleventh is left out whichever place it is listed in.
        var f = Feeder(Self.panelA())
        let fingers = (0..<10).map { (x: Int32(50 + 90 * $0), y: Int32(100), id: Int32?.none) }
        Self.frame(&f, fingers)
        let ids = f.last.map(\.id)
        Self.frame(&f, [(x: 500, y: 450, id: nil)] + fingers.map { ($0.x + 1, $0.y, nil) })
        #expect(f.last.map(\.id) == ids)
        #expect(f.last.map { Int($0.position.x) } == fingers.map { Int($0.x) + 1 })
    }

    @Test func theDriversTrackingIds_areFollowed_whereEveryContactHasOne() {
        var f = Feeder(Self.panelA(trackingIDs: true))
        Self.frame(&f, [(100, 100, 7), (140, 100, 8)])
        let ids = f.last.map(\.id)
        // The two cross: nearest first would swap them; the driver's ids say they did not.
        Self.frame(&f, [(141, 100, 7), (99, 100, 8)])
        #expect(f.last.map { "\($0.id) \(Int($0.position.x))" } == ["\(ids[0]) 141", "\(ids[1]) 99"])
        Self.frame(&f, [(99, 100, 8)])
        #expect(f.last.map(\.id) == [ids[1]], "7 lifted")
    }

    @Test func idsGivenInListOrder_thatSwapAsTheOrderDoes_followTheContactsByPlace() {
        // A driver numbering its contacts 0, 1, ... as it lists them, listing them in another
        // order each frame: trusting its ids, two fingers 30 mm apart traded places every frame.
        var f = Feeder(Self.panelA(trackingIDs: true))
        Self.frame(&f, [(100, 100, 0), (400, 100, 1)])
        let ids = f.last.map(\.id)
        for step in 1...6 {
            let a = (x: Int32(100 + 20 * step), y: Int32(100)), b = (x: Int32(400 + 20 * step), y: Int32(100))
            // Listed b first in odd frames: each gets the id of its place in the list.
            let (first, second) = step % 2 == 1 ? (b, a) : (a, b)
            Self.frame(&f, [(first.x, first.y, Int32(0)), (second.x, second.y, Int32(1))])
            let byID = Dictionary(uniqueKeysWithValues: f.last.map { ($0.id, Int($0.position.x)) })
            #expect(byID == [ids[0]: Int(a.x), ids[1]: Int(b.x)], "frame \(step)")
        }
    }

    @Test func moreContactsThanSlots_keepTheFirstTen() {
        var f = Feeder(Self.panelA())
        Self.frame(&f, (0..<12).map { (Int32($0) * 80, 250, nil) })
        #expect(f.last.count == 10)
    }

    @Test func eventsLost_dropTheFrameBeingRead_andTheNextOneIsADiscontinuity() {
        var f = Feeder(Self.panelA())
        Self.frame(&f, [(100, 100, nil), (500, 300, nil)])
        f.abs(Evdev.ABS_MT_POSITION_X, 105)
        f.syn(Evdev.SYN_DROPPED)
        f.abs(Evdev.ABS_MT_POSITION_Y, 999)
        f.syn(Evdev.SYN_MT_REPORT)
        f.syn()
        #expect(f.frames.last?.discontinuity == true)
        #expect(f.last.count == 2, "the contacts as they were")
        Self.frame(&f, [(105, 100, nil)])
        #expect(f.last.count == 1 && f.frames.last?.discontinuity == false)
    }

    @Test func thePanelsView_hasTheSlotsAndTheOtherAxes() {
        var f = Feeder(Self.panelA())
        f.decoder.keepsPanel = true
        f.abs(Evdev.ABS_MT_POSITION_X, 300)
        f.abs(Evdev.ABS_MT_POSITION_Y, 200)
        f.abs(Evdev.ABS_MT_PRESSURE, 80)
        f.syn(Evdev.SYN_MT_REPORT)
        f.abs(Evdev.ABS_MT_POSITION_X, 600)
        f.abs(Evdev.ABS_MT_POSITION_Y, 200)
        f.syn(Evdev.SYN_MT_REPORT)
        f.syn()
        #expect(f.decoder.panel.map { "\($0.slot) \($0.x) \($0.axes[Evdev.ABS_MT_PRESSURE])" } == ["0 300 80", "1 600 0"])
        // The second one lifts: the first keeps slot 0.
        Self.frame(&f, [(301, 200, nil)])
        #expect(f.decoder.panel.map { "\($0.slot) \($0.x)" } == ["0 301"])
    }

    @Test func aLastContactWithoutItsOwnReport_isTakenAtTheFramesEnd() {
        var f = Feeder(Self.panelA())
        f.abs(Evdev.ABS_MT_POSITION_X, 300)
        f.abs(Evdev.ABS_MT_POSITION_Y, 200)
        f.syn()
        #expect(f.last.count == 1)
    }

    /// Found by a hostile review: positions at the ends of Int32 (a panel sending garbage) are
    /// far apart, not an overflow.
    @Test func positionsAtTheEndsOfInt32_areALiftAndALanding_notATrap() {
        var f = Feeder(Self.panelA())
        Self.frame(&f, [(Int32.min, 0, nil)])
        Self.frame(&f, [(Int32.max, 0, nil)])
        #expect(f.last.count == 1)
    }

    @Test func idsThatRepeat_orAppearMidTouch_followTheContactsByPlace() {
        var f = Feeder(Self.panelA(trackingIDs: true))
        Self.frame(&f, [(100, 100, nil), (800, 400, nil)])
        let ids = f.last.map(\.id)
        // The driver's ids appear: the contacts go on where they are.
        Self.frame(&f, [(801, 400, 5), (101, 100, 0)])
        #expect(f.last.map(\.id) == ids)
        // Two contacts with one id: no usable ids this frame, nearest first.
        Self.frame(&f, [(102, 100, 7), (802, 400, 7)])
        #expect(f.last.map(\.id) == ids)
        Self.frame(&f, [(803, 400, 9)])
        #expect(f.last.map(\.id) == [ids[1]], "the one that stayed goes on")
    }

    @Test func aRecordingCutShort_liftsItsContactsAtTheEnd() throws {
        var events: [InputEvent] = []
        for k in 0..<3 {
            let t = Timestamp(nanoseconds: Int64(k) * 10_000_000)
            events += [
                InputEvent(time: t, type: Evdev.EV_ABS, code: Evdev.ABS_MT_POSITION_X, value: 100 + Int32(k)),
                InputEvent(time: t, type: Evdev.EV_ABS, code: Evdev.ABS_MT_POSITION_Y, value: 100),
                InputEvent(time: t, type: Evdev.EV_SYN, code: Evdev.SYN_MT_REPORT, value: 0),
                InputEvent(time: t, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0),
            ]
        }
        let lifted = Recording(description: Self.panelA(), events: events).eventsLiftedAtEnd
        // Events only, the description given apart (`--device`): the same.
        #expect(Recording(description: nil, events: events).eventsLiftedAtEnd(as: Self.panelA()) == lifted)
        var d = try #require(FrameDecoder(description: Self.panelA(), geometry: identityGeometry()))
        var last: [Contact] = []
        for e in lifted { if let fr = d.feed(e) { last = Array(fr.contacts) } }
        #expect(lifted.count > events.count && last.isEmpty)
        // Ending in lost events: the dropped stretch is ended first, then everything lifts.
        let dropped = events + [InputEvent(time: Timestamp(nanoseconds: 30_000_000), type: Evdev.EV_SYN, code: Evdev.SYN_DROPPED, value: 0)]
        var e = try #require(FrameDecoder(description: Self.panelA(), geometry: identityGeometry()))
        var end: [Contact]?
        for ev in Recording(description: Self.panelA(), events: dropped).eventsLiftedAtEnd { if let fr = e.feed(ev) { end = Array(fr.contacts) } }
        #expect(end?.isEmpty == true, "\(String(describing: end))")
    }

    @Test func aResync_dropsTheFrameBeingRead() {
        var f = Feeder(Self.panelA())
        Self.frame(&f, [(100, 100, nil)])
        f.abs(Evdev.ABS_MT_POSITION_X, 900)
        f.abs(Evdev.ABS_MT_POSITION_Y, 400)
        f.syn(Evdev.SYN_MT_REPORT)
        f.decoder.markDiscontinuity()  // the live reader lost events here
        Self.frame(&f, [(101, 100, nil)])
        #expect(f.last.count == 1 && f.frames.last?.discontinuity == true)
    }
}
