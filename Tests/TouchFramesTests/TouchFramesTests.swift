import GestureEngine
import Testing

@testable import TouchFrames

/// A 5-slot multitouch panel, 0…999 × 0…499 units, 10 units/mm (100 × 50 mm).
func panel(slots: Int32 = 4, resolution: Int32 = 10) -> DeviceDescription {
    .multitouchPanel(name: "test panel", maxX: 999, maxY: 499, slots: slots + 1, resolution: resolution)
}

/// A pixel a device unit (1000 × 500 units, 1000 × 500 px), so positions read back as the raw values.
func identityGeometry() -> GeometryConfiguration {
    var g = GeometryConfiguration()
    g.screenWidth = 1000
    g.screenHeight = 500
    return g
}

struct Feeder {
    var decoder: FrameDecoder
    var frames: [TouchFrame] = []
    var ms: Int64 = 0

    init(_ d: DeviceDescription = panel(), geometry: GeometryConfiguration = identityGeometry()) {
        decoder = FrameDecoder(description: d, geometry: geometry)!
    }

    mutating func abs(_ code: UInt16, _ value: Int32) { send(Evdev.EV_ABS, code, value) }
    mutating func key(_ code: UInt16, _ value: Int32) { send(Evdev.EV_KEY, code, value) }
    mutating func syn(_ code: UInt16 = Evdev.SYN_REPORT) {
        send(Evdev.EV_SYN, code, 0)
        ms += 10
    }
    mutating func send(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        if let f = decoder.feed(InputEvent(time: Timestamp(nanoseconds: ms * 1_000_000), type: type, code: code, value: value)) {
            frames.append(f)
        }
    }
    mutating func touch(slot: Int32, id: Int32, x: Int32, y: Int32) {
        abs(Evdev.ABS_MT_SLOT, slot)
        abs(Evdev.ABS_MT_TRACKING_ID, id)
        abs(Evdev.ABS_MT_POSITION_X, x)
        abs(Evdev.ABS_MT_POSITION_Y, y)
    }
    var last: [Contact] { Array(frames.last?.contacts ?? []) }
    var positions: [PixelPoint] { last.map(\.position) }
}

@Suite struct FrameDecoderTests {
    @Test func protocolB_twoFingers_downMoveLift() {
        var f = Feeder()
        f.touch(slot: 0, id: 10, x: 100, y: 200)
        f.touch(slot: 1, id: 11, x: 300, y: 400)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 100, y: 200), PixelPoint(x: 300, y: 400)])
        f.abs(Evdev.ABS_MT_SLOT, 0)
        f.abs(Evdev.ABS_MT_POSITION_X, 150)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 150, y: 200), PixelPoint(x: 300, y: 400)])
        let ids = f.last.map(\.id)
        f.abs(Evdev.ABS_MT_SLOT, 1)
        f.abs(Evdev.ABS_MT_TRACKING_ID, -1)
        f.syn()
        #expect(f.last.map(\.id) == [ids[0]])
        f.abs(Evdev.ABS_MT_SLOT, 0)
        f.abs(Evdev.ABS_MT_TRACKING_ID, -1)
        f.syn()
        #expect(f.last.isEmpty)
        #expect(f.frames.count == 4)
    }

    @Test func slotWithoutPosition_isLeftOutUntilItHasOne() {
        var f = Feeder()
        f.abs(Evdev.ABS_MT_SLOT, 2)
        f.abs(Evdev.ABS_MT_TRACKING_ID, 5)
        f.syn()
        #expect(f.last.isEmpty)
        f.abs(Evdev.ABS_MT_POSITION_X, 10)
        f.syn()
        #expect(f.last.isEmpty)
        f.abs(Evdev.ABS_MT_POSITION_Y, 20)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 10, y: 20)])
    }

    @Test func valuesOutsideTheAxisRange_areClamped() {
        var f = Feeder()
        f.touch(slot: 0, id: 1, x: -50, y: 9999)
        f.syn()
        // Clamped to the axis maximum (499), the last of the 500 px screen's rows.
        #expect(f.positions == [PixelPoint(x: 0, y: 499)])
    }

    @Test func eventsBeforeTheFirstReport_andUnknownCodes_areHarmless() {
        var f = Feeder()
        f.abs(0x28, 7)  // ABS_MISC: not ours
        f.send(0x04, 0x04, 1)  // EV_MSC
        f.touch(slot: 0, id: 1, x: 5, y: 6)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 5, y: 6)])
    }

    @Test func synDropped_discardsUpToTheNextReport_andMarksADiscontinuity() {
        var f = Feeder()
        f.touch(slot: 0, id: 1, x: 5, y: 6)
        f.syn()
        f.syn(Evdev.SYN_DROPPED)
        f.abs(Evdev.ABS_MT_POSITION_X, 900)  // lost with the drop
        f.syn()
        #expect(f.frames.last?.discontinuity == true)
        #expect(f.positions == [PixelPoint(x: 5, y: 6)])
        f.abs(Evdev.ABS_MT_POSITION_X, 7)
        f.syn()
        #expect(f.frames.last?.discontinuity == false)
        #expect(f.positions == [PixelPoint(x: 7, y: 6)])
        #expect(f.decoder.droppedCount == 1)
    }

    /// Nothing between the SYN_DROPPED and its SYN_REPORT (a frame's end, or the mark
    /// `touchgesturectl record` writes before the kernel's state): no frame of the state before
    /// the loss; the next frame, whole, is the discontinuity, where the kernel says the finger is.
    @Test func synDroppedAtAFramesEnd_theNextFrameIsTheDiscontinuity() {
        var f = Feeder()
        f.touch(slot: 0, id: 1, x: 5, y: 6)
        f.syn()
        let made = f.frames.count
        f.syn(Evdev.SYN_DROPPED)
        f.syn()
        #expect(f.frames.count == made, "no frame of the stale state")
        f.abs(Evdev.ABS_MT_POSITION_X, 900)
        f.syn()
        #expect(f.frames.last?.discontinuity == true)
        #expect(f.positions == [PixelPoint(x: 900, y: 6)])
        f.abs(Evdev.ABS_MT_POSITION_X, 901)
        f.syn()
        #expect(f.frames.last?.discontinuity == false)
    }

    @Test func trackingIDReplacedWithoutALift_isANewContact() {
        var f = Feeder()
        f.touch(slot: 0, id: 1, x: 5, y: 6)
        f.syn()
        let first = f.last[0].id
        f.abs(Evdev.ABS_MT_TRACKING_ID, 2)
        f.syn()
        #expect(f.last.count == 1 && f.last[0].id != first)
        // The same kernel id coming back after a lift is a new contact too.
        f.abs(Evdev.ABS_MT_TRACKING_ID, -1)
        f.syn()
        f.abs(Evdev.ABS_MT_TRACKING_ID, 2)
        f.syn()
        #expect(f.last.count == 1 && f.last[0].id != first)
    }

    @Test func contactsInAnySlot_comeInSlotOrder_theLastSlotIncluded() {
        // The decoder looks only as far as the highest slot a contact has used: a first
        // contact in the last slot, then one in a low slot, are both in the frame.
        var f = Feeder()
        f.touch(slot: 4, id: 1, x: 40, y: 41)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 40, y: 41)])
        f.touch(slot: 1, id: 2, x: 10, y: 11)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 10, y: 11), PixelPoint(x: 40, y: 41)])
        f.abs(Evdev.ABS_MT_SLOT, 4)
        f.abs(Evdev.ABS_MT_TRACKING_ID, -1)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 10, y: 11)])
    }

    @Test func slotBeyondTheDevicesSlots_isDropped() {
        var f = Feeder(panel(slots: 1))
        f.touch(slot: 0, id: 1, x: 5, y: 6)
        f.touch(slot: 7, id: 2, x: 50, y: 60)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 5, y: 6)])
    }

    @Test func palmToolType_marksThePalm() {
        var f = Feeder()
        f.touch(slot: 0, id: 1, x: 5, y: 6)
        f.abs(Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM)
        f.syn()
        #expect(f.last.first?.isPalm == true)
    }

    /// The kernel keeps a slot's tool type from one contact to the next (an equal value is not
    /// sent again): a second palm in the slot is a palm, as the mirror shows it; a finger after
    /// it says so.
    @Test func aSecondPalmInTheSlot_sendsNoToolType_andIsAPalm() {
        var f = Feeder()
        f.touch(slot: 0, id: 1, x: 5, y: 6)
        f.abs(Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM)
        f.syn()
        f.abs(Evdev.ABS_MT_TRACKING_ID, -1)
        f.syn()
        f.touch(slot: 0, id: 2, x: 50, y: 6)
        f.syn()
        #expect(f.last.first?.isPalm == true)
        f.abs(Evdev.ABS_MT_TRACKING_ID, -1)
        f.syn()
        f.touch(slot: 0, id: 3, x: 5, y: 6)
        f.abs(Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_FINGER)
        f.syn()
        #expect(f.last.first?.isPalm == false)
    }

    /// The test panel (100 × 50 mm, 10 units/mm) reporting a touch size: with its own resolution
    /// (`majorResolution` units/mm), or in surface units (0.1 mm each here).
    static func panelWithTouchSize(majorResolution: Int32) -> DeviceDescription {
        var d = panel()
        d.axes[Evdev.ABS_MT_TOUCH_MAJOR] = AbsAxis(minimum: 0, maximum: 1000, resolution: majorResolution)
        d.codes[Evdev.EV_ABS]?.insert(Evdev.ABS_MT_TOUCH_MAJOR)
        return d
    }

    static func isPalm(major: Int32, _ d: DeviceDescription, palmSize: Double = 30) -> Bool? {
        var g = identityGeometry()
        g.palmSize = palmSize
        var f = Feeder(d, geometry: g)
        f.touch(slot: 0, id: 1, x: 5, y: 6)
        f.abs(Evdev.ABS_MT_TOUCH_MAJOR, major)
        f.syn()
        return f.last.first?.isPalm
    }

    @Test func touchMajorAbovePalmSize_isAPalm_inTheAxisResolution() {
        // 4 units/mm: 30 mm is 120 units; just over is a palm, at it is not.
        let d = Self.panelWithTouchSize(majorResolution: 4)
        #expect(Self.isPalm(major: 121, d) == true)
        #expect(Self.isPalm(major: 120, d) == false)
        #expect(Self.isPalm(major: 40, d) == false)
    }

    @Test func touchMajorAbovePalmSize_isAPalm_inSurfaceUnits() {
        // No resolution on the size axis: surface units, 0.1 mm here (the position axes' 10/mm).
        let d = Self.panelWithTouchSize(majorResolution: 0)
        #expect(Self.isPalm(major: 301, d) == true)
        #expect(Self.isPalm(major: 299, d) == false)
    }

    @Test func palmSize_isOffAtZero_andWhereThePanelReportsNoSize() {
        #expect(Self.isPalm(major: 900, Self.panelWithTouchSize(majorResolution: 4), palmSize: 0) == false)
        // The plain test panel has no ABS_MT_TOUCH_MAJOR: a stray event of it changes nothing.
        #expect(Self.isPalm(major: 900, panel()) == false)
    }

    @Test func aContactTheSizeOfAPalm_cancelsThePanUnderWay() {
        var f = Feeder(Self.panelWithTouchSize(majorResolution: 4))
        var engine = Engine(configuration: .standard(screen: PixelRect(x: 0, y: 0, width: 999, height: 499)))
        var events: [GestureEvent] = []
        f.touch(slot: 0, id: 1, x: 100, y: 100)
        f.abs(Evdev.ABS_MT_TOUCH_MAJOR, 40)
        f.syn()
        for i in 1...10 {
            f.abs(Evdev.ABS_MT_SLOT, 0)
            f.abs(Evdev.ABS_MT_POSITION_X, 100 + Int32(i) * 10)
            f.syn()
        }
        // The side of a hand comes down: 50 mm long.
        f.touch(slot: 1, id: 2, x: 600, y: 300)
        f.abs(Evdev.ABS_MT_TOUCH_MAJOR, 200)
        f.syn()
        for frame in f.frames { engine.handle(frame, into: &events) }
        #expect(events.filter { $0.kind == .pan }.map(\.phase).first == .began)
        #expect(events.last.map { $0.kind == .pan && $0.phase == .cancelled } == true)
    }

    @Test func singleTouchPanel_isOneContact() {
        var d = DeviceDescription(name: "resistive")
        d.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH]
        d.axes[Evdev.ABS_X] = AbsAxis(minimum: 0, maximum: 999)
        d.axes[Evdev.ABS_Y] = AbsAxis(minimum: 0, maximum: 499)
        #expect(d.touchKind == .singleTouch)
        var f = Feeder(d)
        f.abs(Evdev.ABS_X, 10)
        f.abs(Evdev.ABS_Y, 20)
        f.key(Evdev.BTN_TOUCH, 1)
        f.syn()
        #expect(f.positions == [PixelPoint(x: 10, y: 20)])
        let id = f.last[0].id
        f.abs(Evdev.ABS_X, 30)
        f.syn()
        #expect(f.last.map(\.id) == [id])
        f.key(Evdev.BTN_TOUCH, 0)
        f.syn()
        #expect(f.last.isEmpty)
        f.key(Evdev.BTN_TOUCH, 1)
        f.syn()
        #expect(f.last.count == 1 && f.last[0].id != id)
    }

    @Test func touchpad_isNotATouchscreen() {
        var d = panel()
        d.properties = [Evdev.INPUT_PROP_POINTER]
        d.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH, Evdev.BTN_TOOL_FINGER]
        #expect(d.touchKind == nil)
        #expect(FrameDecoder(description: d, geometry: GeometryConfiguration()) == nil)
    }
}
