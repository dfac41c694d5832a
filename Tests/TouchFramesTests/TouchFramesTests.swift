import GestureEngine
import Testing

@testable import TouchFrames

/// A 5-slot multitouch panel, 0…999 × 0…499 units, 10 units/mm (100 × 50 mm).
func panel(slots: Int32 = 4, resolution: Int32 = 10) -> DeviceDescription {
    .multitouchPanel(name: "test panel", maxX: 999, maxY: 499, slots: slots + 1, resolution: resolution)
}

/// Screen = device units, so positions read back as the raw values.
func identityGeometry() -> GeometryConfiguration {
    var g = GeometryConfiguration()
    g.screenWidth = 999
    g.screenHeight = 499
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
        // The axis maximum (499) is the far edge, which belongs to the last pixel row of the
        // 499 px screen: 498.
        #expect(f.positions == [PixelPoint(x: 0, y: 498)])
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

@Suite struct GeometryTests {
    let x = AbsAxis(minimum: 0, maximum: 1000, resolution: 10)
    let y = AbsAxis(minimum: 0, maximum: 500, resolution: 10)

    func geometry(_ edit: (inout GeometryConfiguration) -> Void) -> ScreenGeometry {
        var c = GeometryConfiguration()
        c.screenWidth = 2000
        c.screenHeight = 1000
        edit(&c)
        return ScreenGeometry(x: x, y: y, configuration: c)
    }

    @Test func identity_scalesToTheScreen_andMillimetresFromResolution() {
        let g = geometry { _ in }
        #expect(g.map(x: 0, y: 0) == PixelPoint(x: 0, y: 0))
        #expect(g.map(x: 500, y: 250) == PixelPoint(x: 1000, y: 500))
        // The axis maximum is the far edge, which belongs to the last pixel: inside the screen.
        #expect(g.map(x: 1000, y: 500) == PixelPoint(x: 1999, y: 999))
        #expect(g.sizeSource == .resolution)
        // 100 mm across 2000 px.
        #expect(abs(g.scale.x - 0.05) < 1e-12 && abs(g.scale.y - 0.05) < 1e-12)
    }

    @Test(arguments: [
        (90, PixelPoint(x: 1999, y: 0)), (180, PixelPoint(x: 1999, y: 999)), (270, PixelPoint(x: 0, y: 999)),
    ])
    func rotation_movesTheTopLeftCorner(degrees: Int, corner: PixelPoint) {
        let g = geometry { $0.rotation = degrees }
        #expect(g.map(x: 0, y: 0) == corner)
    }

    @Test func rotation90_swapsTheMillimetreScale() {
        let g = geometry { $0.rotation = 90 }
        // Screen x now runs along the panel's 50 mm axis: 50 mm / 2000 px.
        #expect(abs(g.scale.x - 0.025) < 1e-12)
        #expect(abs(g.scale.y - 0.1) < 1e-12)
    }

    @Test func calibrationMatrix_flipY_inLibinputsConvention() {
        let g = geometry { $0.calibration = [1, 0, 0, 0, -1, 1] }
        #expect(g.map(x: 0, y: 0) == PixelPoint(x: 0, y: 999))
        #expect(g.map(x: 500, y: 500) == PixelPoint(x: 1000, y: 0))
        #expect(g.map(x: 500, y: 250) == PixelPoint(x: 1000, y: 500))
    }

    @Test func output_placesThePanelOnPartOfTheScreen() {
        let g = geometry { $0.output = PixelRect(x: 1000, y: 0, width: 1000, height: 500) }
        #expect(g.map(x: 0, y: 0) == PixelPoint(x: 1000, y: 0))
        #expect(g.map(x: 500, y: 250) == PixelPoint(x: 1500, y: 250))
        #expect(g.map(x: 1000, y: 500) == PixelPoint(x: 1999, y: 499))
        // An output partly off the screen keeps to the screen.
        let wide = geometry { $0.output = PixelRect(x: 1500, y: 0, width: 1000, height: 500) }
        #expect(wide.map(x: 1000, y: 0) == PixelPoint(x: 1999, y: 0))
    }

    @Test func sizeFallsBack_toConfig_thenToTheDefaultPanel() {
        let noRes = AbsAxis(minimum: 0, maximum: 1000)
        var c = GeometryConfiguration()
        c.screenWidth = 1920
        c.screenHeight = 1080
        let fallback = ScreenGeometry(x: noRes, y: noRes, configuration: c)
        #expect(fallback.sizeSource == .fallback)
        #expect(abs(fallback.scale.x - 344.2 / 1920) < 1e-12)
        c.widthMM = 192
        c.heightMM = 108
        let configured = ScreenGeometry(x: noRes, y: noRes, configuration: c)
        #expect(configured.sizeSource == .configuration)
        #expect(abs(configured.scale.x - 0.1) < 1e-12 && abs(configured.scale.y - 0.1) < 1e-12)
    }
}

@Suite struct EvemuTests {
    static let sample = """
        # EVEMU 1.3
        N: Sample Panel
        I: 0018 04f3 2d0b 0100
        P: 02 00 00 00 00 00 00 00
        B: 00 0b 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 04 00 00 00 00 00 00
        B: 03 03 00 00 00 00 80 60 02
        A: 00 0 1279 0 0 12
        A: 01 0 767 0 0
        A: 2f 0 4 0 0 0
        A: 35 0 1279 0 0 12
        A: 36 0 767 0 0 12
        A: 39 0 65535 0 0 0
        E: 0.000001 0003 0039 0001\t# EV_ABS / ABS_MT_TRACKING_ID 1
        E: 0.000001 0003 0035 0404
        E: 1.5 0000 0000 0000
        """

    @Test func parse_readsTheDescriptionAndEvents() throws {
        let r = try Evemu.parse(Self.sample, file: "sample.events")
        let d = try #require(r.description)
        #expect(d.name == "Sample Panel")
        #expect(d.bustype == 0x18 && d.vendor == 0x04f3 && d.product == 0x2d0b && d.version == 0x0100)
        #expect(d.properties == [Evdev.INPUT_PROP_DIRECT])
        #expect(d.supports(Evdev.EV_KEY, Evdev.BTN_TOUCH))
        #expect(d.supports(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID))
        #expect(d.axes[Evdev.ABS_X]?.resolution == 12)
        #expect(d.axes[Evdev.ABS_Y]?.resolution == 0)  // the 5-field form
        #expect(d.slotCount == 5)
        #expect(d.touchKind == .multitouch)
        // Leading zeros are decimal, not octal; the fraction is decimal.
        #expect(r.events[1].value == 404)
        #expect(r.events[0].time.nanoseconds == 1_000)
        #expect(r.events[2].time.nanoseconds == 1_500_000_000)
    }

    @Test(arguments: [
        ("E: 0.1 0003 0035", 1, "an event needs 4 fields"),
        ("# c\nE: x 0003 0035 1", 2, "bad event time"),
        ("E: 0.1 00zz 0035 1", 1, "bad event type"),
        ("E: 0.1 0003 0035 1.5", 1, "bad event value"),
        ("\n\nQ: what", 3, "unknown line type"),
        ("A: 00 10 5 0 0", 1, "minimum 10 above maximum 5"),
        ("N: panel\nA: 35 0 0 0 0 0", 2, "minimum equals maximum (0): every position on it would map to one point"),
        ("hello", 1, "expected a line like"),
    ])
    func parse_malformed_namesTheLine(text: String, line: Int, reason: String) {
        #expect {
            _ = try Evemu.parse(text, file: "bad.events")
        } throws: { error in
            guard let e = error as? RecordingError else { return false }
            return e.file == "bad.events" && e.line == line && e.reason.contains(reason)
        }
    }

    /// Event lines in evemu's exact form are read from the bytes (`Evemu.fastEvent`); each must
    /// read as the general path reads it (a trailing comment sends a line down the general path),
    /// and a line the fast path declines must still be read, or refused, by the general one.
    @Test(arguments: [
        "E: 0.000001 0003 0039 1", "E: 12.5 0000 0000 0", "E: 1350644052.895553 0003 0035 -1",
        "E: 0.123456789 00ff 02ff 2147483647", "E: 0.1 0003 0035 -2147483648", "E: 7.000000 0001 014A 0001",
        "E: 0.1234567891 0003 0035 1", "E: 0.1 00003 0035 1", "E: 99999999999.0 0003 0035 1",
        "E: 0.1 0003 0035 2147483648", "E: 0.1 0020 0000 0", "E: 0.1 0003 0300 0", "E: 0.1 0003 0035 +5",
        "E: 0.1  0003 0035 5", "E: 0.1 0003 0035 5\r", "E:0.1 0003 0035 5", "E: .5 0003 0035 5", "E: 5. 0003 0035 5",
    ])
    func parse_fastEventLines_readAsTheGeneralPathDoes(line: String) {
        let fast = try? Evemu.parse(line, file: "f")
        let general = try? Evemu.parse(line + " # via the general path", file: "g")
        #expect(fast?.events == general?.events)
        #expect(fast?.description == nil)
    }

    /// Found by the evemu fuzzer (Fuzz/FuzzEvemu): a recording whose clock runs backwards was
    /// written with negative times that could not be read back.
    @Test func format_timeRunningBackwards_staysReadable() throws {
        let r = try Evemu.parse("N: x\nA: 35 0 100 0 0 0\nE: 5.000000 0003 0035 1\nE: 2.000000 0000 0000 0\n", file: "back.events")
        let again = try Evemu.parse(Evemu.format(r), file: "formatted")
        #expect(again.events.map(\.time.nanoseconds) == [3_000_000_000, 0])
    }

    @Test func format_thenParse_roundTrips() throws {
        let r = try Evemu.parse(Self.sample, file: "sample.events")
        let again = try Evemu.parse(Evemu.format(r), file: "formatted")
        #expect(again.description == r.description)
        #expect(again.events.map(\.value) == r.events.map(\.value))
        #expect(again.events.map(\.time) == r.events.map { Timestamp(nanoseconds: $0.time.nanoseconds - 1_000) })
    }
}

/// A live read hands its events on in the kernel's layout; the decoder must make the same frames
/// of them as of the decoded events a replay gives it.
@Suite struct KernelLayoutTests {
    /// Two fingers landing, moving and lifting, with SYN_REPORTs at whole microseconds.
    static let events: [InputEvent] = {
        var e: [InputEvent] = []
        func add(_ us: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            e.append(InputEvent(time: Timestamp(seconds: 12, microseconds: us), type: type, code: code, value: value))
        }
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 7)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 100)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 200)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 1)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 8)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 300)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 400)
        add(100, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        add(8_250, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0)
        add(8_250, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 150)
        add(8_250, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        add(999_999, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
        add(999_999, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 1)
        add(999_999, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
        add(999_999, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        return e
    }()

    static func frames(_ feed: (inout FrameDecoder, inout Int) -> Bool, count: Int) -> [(Timestamp, [Contact])] {
        var decoder = FrameDecoder(description: panel(), geometry: identityGeometry())!
        var out: [(Timestamp, [Contact])] = []
        var i = 0
        while i < count {
            if feed(&decoder, &i) { out.append((decoder.frame.time, Array(decoder.frame.contacts))) }
        }
        return out
    }

    @Test func kernelLayout_givesTheFramesOfDecodedEvents() {
        let kernel = Self.events.map {
            KernelInputEvent(
                seconds: Int($0.time.nanoseconds / 1_000_000_000), microseconds: Int($0.time.nanoseconds % 1_000_000_000 / 1000),
                type: $0.type, code: $0.code, value: $0.value)
        }
        #expect(MemoryLayout<KernelInputEvent>.stride == 24)
        let decoded = Self.events.withUnsafeBufferPointer { buf in
            Self.frames({ $0.feed(buf, from: &$1) }, count: buf.count)
        }
        let read = kernel.withUnsafeBufferPointer { buf in
            Self.frames({ $0.feed(buf, from: &$1) }, count: buf.count)
        }
        #expect(decoded.count == 3)
        #expect(read.map(\.0) == decoded.map(\.0))
        #expect(read.map(\.1) == decoded.map(\.1))
        #expect(read.map(\.0) == [Timestamp(seconds: 12, microseconds: 100), Timestamp(seconds: 12, microseconds: 8_250), Timestamp(seconds: 12, microseconds: 999_999)])
        #expect(read.map { $0.1.count } == [2, 2, 0])
        #expect(InputBatch(kernel: UnsafeBufferPointer(start: nil, count: 0)).count == 0)
        #expect(kernel.withUnsafeBufferPointer { InputBatch(kernel: $0).decoded } == Self.events)
    }
}
