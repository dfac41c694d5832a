import GestureEngine
import Testing
import TouchFrames

@testable import TouchMirror

/// A panel's frames through the input stage (a decoder keeping its panel contacts) to a mirror,
/// and the mirror's events read back by a second decoder, as the compositor's libinput reads it.
struct MirrorRig {
    var panel: FrameDecoder
    var mirror: MirrorContacts
    var reader: FrameDecoder
    /// Every event the mirror wrote, in order.
    var written: [KernelInputEvent] = []
    var now: Int64 = 0

    init(_ d: DeviceDescription = Self.panel, cancel: MirrorCancel = .lift, mapping: MirrorGeometry? = nil) {
        panel = FrameDecoder(description: d, geometry: GeometryConfiguration())!
        panel.keepsPanel = true
        let described = VirtualTouchscreen.description(mirroring: mapping?.mirroring(d) ?? d)
        mirror = MirrorContacts(device: MirrorDevice(described), mapping: mapping, cancel: cancel)
        reader = FrameDecoder(description: described, geometry: GeometryConfiguration())!
        reader.keepsPanel = true
    }

    static let panel: DeviceDescription = {
        var d = DeviceDescription.multitouchPanel(name: "panel", maxX: 999, maxY: 499, slots: 4)
        d.codes[Evdev.EV_KEY]!.formUnion([MirrorDevice.BTN_TOOL_FINGER, MirrorDevice.BTN_TOOL_DOUBLETAP])
        d.axes[Evdev.ABS_MT_PRESSURE] = AbsAxis(minimum: 0, maximum: 255)
        d.axes[Evdev.ABS_PRESSURE] = AbsAxis(minimum: 0, maximum: 255)
        d.codes[Evdev.EV_ABS] = Set(d.axes.keys)
        return d
    }()

    /// One panel frame (its events, a SYN_REPORT added) with what the engine decided of it.
    /// Returns what the mirror wrote for it.
    @discardableResult
    mutating func frame(_ events: [(UInt16, UInt16, Int32)], taken: [UInt32] = [], hold: [UInt32] = [], bound: Int64 = 0, at ms: Int64? = nil) -> [String] {
        if let ms { now = ms * 1_000_000 }
        let batch = (events + [(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)]).map { KernelInputEvent(seconds: 0, microseconds: 0, type: $0.0, code: $0.1, value: $0.2) }
        var i = 0
        while i < batch.count {
            if panel.feed(batch.span, from: &i) {
                mirror.frame(panel.panel, others: panel.others, discontinuity: panel.frame.discontinuity, taken: taken, hold: hold, bound: bound, now: now)
            }
        }
        return take()
    }

    /// What the mirror made since the last take, read by the reader too.
    mutating func take() -> [String] {
        let out = mirror.out
        mirror.out.removeAll()
        written += out
        var i = 0
        while i < out.count { _ = reader.feed(out.span, from: &i) }
        return out.map { "\($0.type):\($0.code)=\($0.value)" }
    }

    /// What the reader sees now: each contact's slot and position.
    var seen: [String] { reader.panel.map { "s\($0.slot)@\($0.x),\($0.y)" } }

    /// The tracking ids the mirror wrote, lifts left out.
    var trackingIDs: [Int32] {
        written.filter { $0.type == Evdev.EV_ABS && $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.map(\.value)
    }

    static func down(_ slot: Int32, _ id: Int32, _ x: Int32, _ y: Int32) -> [(UInt16, UInt16, Int32)] {
        [(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot), (Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, id), (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x), (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, y)]
    }

    static func move(_ slot: Int32, _ x: Int32, _ y: Int32) -> [(UInt16, UInt16, Int32)] {
        [(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot), (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, x), (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, y)]
    }

    static func up(_ slot: Int32) -> [(UInt16, UInt16, Int32)] {
        [(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, slot), (Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)]
    }
}

/// The mirror shows the input stage's contacts with slots and tracking ids of its own, its
/// keys and single-touch axes derived from what it shows; taken, held and swallowed contacts.
@Suite struct MirrorContactsTests {
    typealias R = MirrorRig

    @Test func twoFingers_landMoveAndLift_asThePanelsReaderWouldSeeThem() {
        var m = R()
        let first = m.frame(R.down(0, 40, 100, 200) + R.down(2, 41, 300, 400))
        #expect(first == [
            "3:57=0", "3:53=100", "3:54=200", "3:47=2", "3:57=1", "3:53=300", "3:54=400",
            "1:333=1", "1:330=1", "3:0=100", "3:1=200", "0:0=0",
        ])
        #expect(m.seen == ["s0@100,200", "s2@300,400"])
        m.frame(R.move(0, 110, 210))
        #expect(m.seen == ["s0@110,210", "s2@300,400"])
        let two = m.frame(R.up(0))
        #expect(two.contains("3:57=-1") && two.contains("3:0=300"), "the single-touch axes follow the oldest contact left")
        #expect(m.seen == ["s2@300,400"])
        m.frame(R.up(2))
        #expect(m.seen.isEmpty)
        #expect(m.mirror.touches == 0)
    }

    @Test func aFrameThatChangesNothingShown_writesNothing() {
        var m = R()
        m.frame(R.down(0, 1, 100, 100))
        #expect(m.frame([(UInt16(4), UInt16(5), Int32(1234))]).isEmpty)
    }

    @Test func trackingIDs_areTheMirrorsOwn_andNeverComeBack() {
        var m = R()
        for _ in 0..<3 {
            m.frame(R.down(1, 77, 10, 10))  // the panel reuses its id: the mirror does not
            m.frame(R.up(1))
        }
        #expect(m.trackingIDs == [0, 1, 2])
        var wrap = MirrorContacts(device: MirrorDevice(Self.panel(trackingMaximum: 1)))
        var ids: [Int32] = []
        for id in UInt32(1)...3 {
            wrap.frame([PanelContact(id: id, slot: 0, x: 1, y: 1)], taken: [], hold: [], bound: 0, now: 0)
            wrap.frame([], taken: [], hold: [], bound: 0, now: 0)
            ids += wrap.out.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.map(\.value)
            wrap.out.removeAll()
        }
        #expect(ids == [0, 1, 0], "past the axis's maximum it wraps, as the kernel's own ids do")
        // A contact held while others land and lift past the wrap keeps its id to itself.
        var held = MirrorContacts(device: MirrorDevice(Self.panel(trackingMaximum: 3, slots: 2)))
        let stays = PanelContact(id: 1, slot: 0, x: 1, y: 1)
        var shown: [[Int32]] = []
        for id in UInt32(2)...7 {
            held.frame([stays, PanelContact(id: id, slot: 1, x: 5, y: 5)], taken: [], hold: [], bound: 0, now: 0)
            held.frame([stays], taken: [], hold: [], bound: 0, now: 0)
            shown.append(held.out.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.map(\.value))
            held.out.removeAll()
        }
        #expect(shown == [[0, 1], [2], [3], [1], [2], [3]], "0 is the held contact's: passed over at each wrap")
        // The touch keys as the kernel counts fingers: BTN_TOOL_QUINTTAP at five, none past it.
        #expect(MirrorDevice.tool(for: 5) == MirrorDevice.BTN_TOOL_QUINTTAP && MirrorDevice.tool(for: 6) == nil && MirrorDevice.tool(for: 0) == nil)
        // The mirror's own range, whatever the panel's: its ids are its own.
        let mirrored = VirtualTouchscreen.description(mirroring: Self.panel(trackingMaximum: 3))
        #expect(mirrored.axes[Evdev.ABS_MT_TRACKING_ID] == AbsAxis(minimum: 0, maximum: 65535))
    }

    @Test func liftAll_liftsEveryTouchAndKey_inOneFrame_andNothingWhenEmpty() {
        var m = R()
        m.frame(R.down(0, 7, 10, 10) + R.down(2, 8, 20, 20))
        m.mirror.liftAll()
        #expect(m.take() == ["3:47=0", "3:57=-1", "3:47=2", "3:57=-1", "1:333=0", "1:330=0", "0:0=0"])
        m.mirror.liftAll()
        #expect(m.take().isEmpty, "nothing left to lift: no empty frame")
    }

    @Test func takenTouch_palm_isCancelledThenLifted_andHiddenUntilItLifts() {
        var m = R(cancel: .palm)
        m.frame(R.down(0, 5, 100, 100))
        let taken = m.frame(R.move(0, 120, 100), taken: [1])
        #expect(taken == ["3:55=2", "0:0=0", "3:57=-1", "1:325=0", "1:330=0", "0:0=0"])
        #expect(m.seen.isEmpty)
        #expect(m.frame(R.move(0, 150, 100)).isEmpty, "its moves are held back")
        m.frame(R.up(0))
        // The next touch in the slot: a finger again, where the panel has it.
        m.frame(R.down(0, 6, 150, 100))
        #expect(m.seen == ["s0@150,100"])
        let landing = m.written.suffix(8).map { "\($0.code)=\($0.value)" }
        let finger = landing.firstIndex(of: "55=0"), id = landing.firstIndex { $0.hasPrefix("57=") && $0 != "57=-1" }
        #expect(finger != nil && id != nil && finger! < id!, "MT_TOOL_FINGER before the new touch's tracking id: libinput reads it there")
    }

    @Test func takenTouch_lift_endsAsALift() {
        var m = R()
        m.frame(R.down(1, 5, 100, 100))
        #expect(m.frame([], taken: [1]) == ["3:57=-1", "1:325=0", "1:330=0", "0:0=0"])
    }

    @Test func touchTakenInTheFrameItLands_isNeverShown() {
        var m = R()
        #expect(m.frame(R.down(0, 5, 100, 100), taken: [1]).isEmpty)
        #expect(m.frame(R.move(0, 200, 100)).isEmpty)
        m.frame(R.up(0))
        m.frame(R.down(0, 9, 300, 100))
        #expect(m.seen == ["s0@300,100"])
    }

    @Test func heldTouch_isReplayedInOrder_whenTheGestureFails() {
        var m = R()
        #expect(m.frame(R.down(0, 5, 10, 100), hold: [1], bound: 500_000_000, at: 0).isEmpty)
        #expect(m.frame(R.move(0, 20, 100), hold: [1], bound: 500_000_000, at: 10).isEmpty)
        let replay = m.frame(R.move(0, 30, 100), hold: [], at: 20)
        // Landing, then each move, each a frame of its own.
        #expect(replay.filter { $0 == "0:0=0" }.count == 3)
        #expect(replay.filter { $0.hasPrefix("3:53=") } == ["3:53=10", "3:53=20", "3:53=30"])
        #expect(m.seen == ["s0@30,100"])
    }

    @Test func heldTouch_isNeverShown_whenTheGestureTakesIt() {
        var m = R()
        m.frame(R.down(0, 5, 10, 100), hold: [1], bound: 500_000_000)
        #expect(m.frame(R.move(0, 20, 100), taken: [1]).isEmpty)
        m.frame(R.up(0))
        #expect(m.written.isEmpty)
    }

    @Test func heldTouch_isReplayed_afterTheBound_onADeadline() {
        var m = R()
        m.frame(R.down(0, 5, 10, 100), hold: [1], bound: 300_000_000, at: 0)
        #expect(m.mirror.releaseDue == 300_000_000)
        m.mirror.advance(taken: [], hold: [1], now: 299_000_000)
        #expect(m.take().isEmpty)
        m.mirror.advance(taken: [], hold: [1], now: 300_000_000)
        #expect(!m.take().isEmpty)
        #expect(m.seen == ["s0@10,100"])
        #expect(m.mirror.releaseDue == nil)
    }

    @Test func heldTouch_thatLifts_isReplayedWithItsLift() {
        var m = R()
        m.frame(R.down(0, 5, 10, 100), hold: [1], bound: 500_000_000)
        m.frame(R.up(0), hold: [])
        #expect(m.trackingIDs == [0])
        #expect(m.seen.isEmpty)
        #expect(m.mirror.touches == 0)
    }

    /// A waking touch that stays down (a drop of water) stays hidden until it lifts; a touch
    /// landing within half a second of it is the waking hand's, one landing later is shown.
    @Test func wakeTouch_thatStaysDown_hidesOnlyTheWakingHand() {
        var m = R()
        m.mirror.swallowNewTouches()
        m.frame(R.down(0, 5, 10, 10), at: 1_000)
        m.frame(R.down(1, 6, 50, 50), at: 1_400)
        #expect(m.seen.isEmpty)
        m.frame(R.down(2, 7, 90, 90), at: 1_600)
        #expect(m.seen == ["s2@90,90"])
        m.frame(R.up(1), at: 1_700)
        m.frame(R.down(1, 8, 30, 30), at: 1_800)
        #expect(m.seen == ["s1@30,30", "s2@90,90"])
    }

    @Test func wakeTouch_neverReachesTheMirror_butTouchesShownGoOn() {
        var m = R()
        m.frame(R.down(0, 5, 10, 10))
        m.mirror.swallowNewTouches()
        m.frame(R.down(1, 6, 50, 50))
        #expect(m.seen == ["s0@10,10"])
        m.frame(R.move(0, 20, 20))
        #expect(m.seen == ["s0@20,20"])
        m.frame(R.up(0) + R.up(1))
        m.frame(R.down(1, 7, 60, 60))
        #expect(m.seen == ["s1@60,60"], "once the panel was empty, touches show again")
    }

    @Test func otherAxes_andThePressure_areCarried() {
        var m = R()
        m.frame(R.down(0, 5, 10, 10) + [(Evdev.EV_ABS, Evdev.ABS_MT_PRESSURE, 80)])
        #expect(m.written.contains { $0.code == Evdev.ABS_MT_PRESSURE && $0.value == 80 })
        #expect(m.written.contains { $0.code == Evdev.ABS_PRESSURE && $0.value == 80 }, "ABS_PRESSURE follows the oldest contact")
        m.frame(R.up(0))
        #expect(m.written.last { $0.code == Evdev.ABS_PRESSURE }?.value == 0)
    }

    @Test func calibratedMirror_mapsEveryPosition_singleTouchAxesToo() {
        let d = R.panel
        let g = MirrorGeometry(x: d.axes[Evdev.ABS_MT_POSITION_X]!, y: d.axes[Evdev.ABS_MT_POSITION_Y]!, calibration: [1, 0, 0, 0, 1, 0], rotation: 180)!
        var m = R(mapping: g)
        m.frame(R.down(0, 5, 0, 0))
        #expect(m.seen == ["s0@999,499"])
        #expect(m.written.contains { $0.code == Evdev.ABS_X && $0.value == 999 })
    }

    /// A reload's new calibration on the same axes (`remap`): the touch down goes on from its
    /// next move mapped, and a later one back to none leaves positions as the panel sends them.
    @Test func aRemapMidTouch_mapsTheNextMove_andBackToNone() {
        let d = R.panel
        let g = MirrorGeometry(x: d.axes[Evdev.ABS_MT_POSITION_X]!, y: d.axes[Evdev.ABS_MT_POSITION_Y]!, calibration: [1, 0, 0, 0, 1, 0], rotation: 180)!
        var m = R()
        m.frame(R.down(0, 5, 100, 100))
        m.mirror.remap(g)
        m.frame([(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 110)])
        #expect(m.written.last { $0.code == Evdev.ABS_MT_POSITION_X }?.value == g.map(x: 110, y: 100).x && g.map(x: 110, y: 100).x != 110, "mapped from the next move")
        m.mirror.remap(nil)
        m.frame([(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 120)])
        #expect(m.written.last { $0.code == Evdev.ABS_MT_POSITION_X }?.value == 120, "as the panel sends it again")
    }

    @Test func singleTouchPanel_getsItsAxesAndKeys() {
        var d = DeviceDescription(name: "resistive")
        d.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH]  // (with BTN_TOOL_FINGER it would be a touchpad)
        d.axes[Evdev.ABS_X] = AbsAxis(minimum: 0, maximum: 4095)
        d.axes[Evdev.ABS_Y] = AbsAxis(minimum: 0, maximum: 4095)
        d.axes[Evdev.ABS_PRESSURE] = AbsAxis(minimum: 0, maximum: 255)
        d.codes[Evdev.EV_ABS] = Set(d.axes.keys)
        var m = R(d)
        let down = m.frame([(Evdev.EV_ABS, Evdev.ABS_X, 100), (Evdev.EV_ABS, Evdev.ABS_Y, 200), (Evdev.EV_ABS, Evdev.ABS_PRESSURE, 50), (Evdev.EV_KEY, Evdev.BTN_TOUCH, 1)])
        #expect(down == ["1:330=1", "3:0=100", "3:1=200", "3:24=50", "0:0=0"])
        #expect(m.frame([(Evdev.EV_ABS, Evdev.ABS_X, 120)]) == ["3:0=120", "0:0=0"])
        #expect(m.frame([(Evdev.EV_ABS, Evdev.ABS_PRESSURE, 0), (Evdev.EV_KEY, Evdev.BTN_TOUCH, 0)]) == ["1:330=0", "3:24=0", "0:0=0"])
    }

    /// The single-touch axes follow the touch shown longest, worked out again at each landing
    /// and lift (kept between them): a touch tapped twice, with frames between, moves them to
    /// each landing.
    @Test func singleTouchAxes_followEachLanding_afterFramesWithNoTouch() {
        var m = R()
        m.frame(R.down(0, 40, 100, 100))
        m.frame([(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)])
        let again = m.frame(R.down(0, 41, 700, 300))
        #expect(again.contains("3:0=700") && again.contains("3:1=300"), "\(again)")
        let second = m.frame(R.down(1, 42, 50, 60))
        #expect(!second.contains("3:0=50"), "the first touch still drives them: \(second)")
        let lifted = m.frame([(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0), (Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)])
        #expect(lifted.contains("3:0=50") && lifted.contains("3:1=60"), "then the second: \(lifted)")
    }

    @Test func aTrackingIDReplacedWithoutALift_liftsAndLandsInTwoFrames() {
        var m = R()
        m.frame(R.down(0, 40, 100, 100))
        // The panel replaces id 40 by 41 in slot 0 with no -1 between (or lost events did).
        let out = m.frame([(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 41), (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 900)])
        let lift = out.firstIndex(of: "3:57=-1"), land = out.firstIndex(of: "3:57=1")
        #expect(lift != nil && land != nil)
        #expect(out[lift!..<land!].contains("0:0=0"), "a SYN_REPORT between the lift and the landing: \(out)")
        #expect(m.seen == ["s0@900,100"])
    }

    @Test func afterLostEvents_whatWasShownIsLiftedFirst_thenThePanelsStateLands() {
        var m = R()
        m.frame(R.down(0, 40, 100, 100) + R.down(1, 41, 200, 200))
        // The same contacts, still down, in a discontinuous frame: lifted, then landed anew.
        m.mirror.frame(m.panel.panel, discontinuity: true, taken: [], hold: [], bound: 0, now: 0)
        let out = m.take()
        #expect(out.filter { $0 == "3:57=-1" }.count == 2)
        let firstSyn = out.firstIndex(of: "0:0=0")!
        #expect(!out[..<firstSyn].contains { $0.hasPrefix("3:57=") && $0 != "3:57=-1" }, "the lifts end their own frame")
        #expect(m.seen == ["s0@100,100", "s1@200,200"])
        #expect(m.trackingIDs == [0, 1, 2, 3])
    }

    @Test func thePanelsOtherKeys_arePassedOn_evenWithNoContact() {
        var d = R.panel
        d.codes[Evdev.EV_KEY]!.insert(125)  // KEY_LEFTMETA, a panel's home button
        d.codes[Evdev.EV_MSC] = [5]  // MSC_TIMESTAMP
        var m = R(d)
        #expect(m.frame([(Evdev.EV_KEY, 125, 1)]) == ["1:125=1", "0:0=0"])
        #expect(m.frame([(Evdev.EV_KEY, 125, 0), (Evdev.EV_MSC, 5, 1000)]) == ["1:125=0", "4:5=1000", "0:0=0"])
        #expect(m.frame([(Evdev.EV_KEY, 126, 1)]).isEmpty, "a key the mirror does not have is not written")
    }

    static func panel(trackingMaximum: Int32, slots: Int32 = 1) -> DeviceDescription {
        var d = DeviceDescription.multitouchPanel(name: "p", maxX: 99, maxY: 99, slots: slots)
        d.axes[Evdev.ABS_MT_TRACKING_ID] = AbsAxis(minimum: 0, maximum: trackingMaximum)
        return d
    }
}
