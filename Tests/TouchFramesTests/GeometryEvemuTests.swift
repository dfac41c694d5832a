import GestureEngine
import Testing

@testable import TouchFrames

@Suite struct GeometryTests {
    // 1000 × 500 units (libinput's count: maximum − minimum + 1), 100 × 50 mm.
    let x = AbsAxis(minimum: 0, maximum: 999, resolution: 10)
    let y = AbsAxis(minimum: 0, maximum: 499, resolution: 10)

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
        // Each unit covers 2 px, as libinput maps it: the maximum is one unit short of the far edge.
        #expect(g.map(x: 999, y: 499) == PixelPoint(x: 1998, y: 998))
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
        // The last unit's row is one unit (2 px) from the top.
        #expect(g.map(x: 500, y: 499) == PixelPoint(x: 1000, y: 2))
        #expect(g.map(x: 500, y: 250) == PixelPoint(x: 1000, y: 500))
    }

    @Test func output_placesThePanelOnPartOfTheScreen() {
        let g = geometry { $0.output = PixelRect(x: 1000, y: 0, width: 1000, height: 500) }
        #expect(g.map(x: 0, y: 0) == PixelPoint(x: 1000, y: 0))
        #expect(g.map(x: 500, y: 250) == PixelPoint(x: 1500, y: 250))
        #expect(g.map(x: 999, y: 499) == PixelPoint(x: 1999, y: 499))
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

extension GeometryTests {
    /// A panel's own configured size wins over its axis resolution (a cheap panel's may be
    /// wrong); one configured for every panel stands in for a resolution a panel lacks, or one
    /// giving a size no panel has, which is otherwise the 15.6-inch guess, said so.
    @Test func thePanelsSize_winsOverTheResolution_andAnImplausibleResolutionIsAGuess() {
        var c = GeometryConfiguration()
        (c.screenWidth, c.screenHeight) = (1920, 1080)
        let wrong = AbsAxis(minimum: 0, maximum: 4095, resolution: 1)  // 4 m "wide"
        let guess = ScreenGeometry(x: wrong, y: wrong, configuration: c)
        #expect(guess.sizeSource == .implausibleResolution && guess.sizeSource.isGuess)
        #expect(guess.sizeMM.width == GeometryConfiguration.defaultPanelSize.width)
        let right = AbsAxis(minimum: 0, maximum: 4095, resolution: 14)  // 292.6 mm
        let wall = AbsAxis(minimum: 0, maximum: 26_570, resolution: 10)  // a 2.7 m frame
        #expect(ScreenGeometry(x: right, y: right, configuration: c).sizeSource == .resolution)
        #expect(ScreenGeometry(x: wall, y: wall, configuration: c).sizeSource == .resolution)
        (c.widthMM, c.heightMM) = (300, 200)  // [device]: for panels without a usable resolution
        #expect(ScreenGeometry(x: right, y: right, configuration: c).sizeSource == .resolution)
        #expect(ScreenGeometry(x: wrong, y: wrong, configuration: c).sizeMM.width == 300)
        c.sizeIsThePanels = true  // its [[panel]]: over its resolution
        for axis in [wrong, right] {
            let g = ScreenGeometry(x: axis, y: axis, configuration: c)
            #expect(g.sizeSource == .configuration && g.sizeMM.width == 300 && g.sizeMM.height == 200)
        }
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

    /// `libinput record`'s YAML: the touchscreen among the devices, its events; the rest passed over.
    static let libinputRecord = """
        # libinput record
        version: 1
        ndevices: 2
        libinput:
          version: "1.22.1"
        system:
          dmi: "dmi:a#b:"
        devices:
        - node: /dev/input/event3
          evdev:
            name: "Keyboard"
            id: [17, 1, 1, 43841]
            codes:
              1: [30, 31]
            properties: []
          events:
          - evdev:
            - [  0,      0,   1,  30,      1] # EV_KEY / KEY_A
            - [  0,      0,   0,   0,      0]
        - node: /dev/input/event5
          evdev:
            # Name: Panel #2
            name: "Panel #2"
            id: [3, 1267, 8240, 273]
            codes:
              0: [0, 1, 3] # EV_SYN
              1: [330] # EV_KEY
              3: [0, 1, 47, 53, 54, 57] # EV_ABS
            absinfo:
              0: [0, 3200, 0, 0, 10]
              1: [0, 1800, 0, 0, 10]
              47: [0, 9, 0, 0, 0]
              53: [0, 3200, 0, 0, 10]
              54: [0, 1800, 0, 0, 10]
              57: [0, 65535, 0, 0, 0]
            properties: [1]
          hid: [
            0x05, 0x0d
          ]
          udev:
            properties:
            - ID_INPUT_TOUCHSCREEN=1
          quirks:
          events:
          # Current time is 12:31:56
          - evdev:
            - [  0,      0,   3,  57,      7] # EV_ABS / ABS_MT_TRACKING_ID 7
            - [  0,      0,   3,  53,   1600]
            - [  0,      0,   3,  54,    900]
            - [  0,      0,   1, 330,      1]
            - [  0,      0,   0,   0,      0] # ------------ SYN_REPORT (0) ---------- +0ms
          - libinput:
            - {time: 0.0, type: TOUCH_DOWN}
          - evdev:
            - [  0,  80000,   3,  57,     -1]
            - [  0,  80000,   1, 330,      0]
            - [  0,  80000,   0,   0,      0]
        """

    @Test func aLibinputRecordFile_isReadAsItsTouchscreen() throws {
        let r = try Evemu.parse(Self.libinputRecord, file: "rec.yml")
        let d = try #require(r.description)
        #expect(d.name == "Panel #2" && d.vendor == 1267 && d.product == 8240 && d.bustype == 3)
        #expect(d.touchKind == .multitouch && d.slotCount == 10 && d.properties == [Evdev.INPUT_PROP_DIRECT])
        #expect(d.axes[Evdev.ABS_MT_POSITION_X]?.resolution == 10)
        #expect(r.events.count == 8 && r.events[5].value == -1 && r.events[7].time.nanoseconds == 80_000_000)
        let bad = Self.libinputRecord.replacingOccurrences(of: "[  0,  80000,   3,  57,     -1]", with: "[  0,  80000,   3,  57]")
        #expect(throws: RecordingError(file: "rec.yml", line: 55, reason: "expected 5 integers in [...]")) { try Evemu.parse(bad, file: "rec.yml") }
    }

    /// The same file saved with Windows line ends ("\r\n", one Character in Swift) reads the same.
    @Test func aLibinputRecordFile_withWindowsLineEnds_readsTheSame() throws {
        let lf = try Evemu.parse(Self.libinputRecord, file: "rec.yml")
        let crlf = try Evemu.parse(Self.libinputRecord.replacingOccurrences(of: "\n", with: "\r\n"), file: "rec.yml")
        #expect(crlf.description == lf.description && crlf.events == lf.events && crlf.events.count == 8)
    }

    /// A '#' in a name is the name's ("Touch Panel #2"); elsewhere it starts a comment. A
    /// control character in a name is written as '?' (it would steer the terminal).
    @Test func aNameKeepsItsHash_andIsWrittenWithoutControlCharacters() throws {
        let r = try Evemu.parse("N: Touch Panel #2 (USB)\nA: 35 0 100 0 0 0\nA: 36 0 100 0 0 0\n", file: "hash.events")
        #expect(r.description?.name == "Touch Panel #2 (USB)")
        var evil = r
        evil.description?.name = "evil\u{1B}]0;PWNED\u{07}"
        #expect(Evemu.format(evil).contains("N: evil?]0;PWNED?\n"))
    }

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
        // A probe of the tools' bad inputs (2026-12-02): slot events misread, unbounded lines.
        ("N: x\nA: 35 0 100 0 0 0\nA: 36 0 100 0 0 0\nE: 0.1 0003 002f 1", 4, "a slot event (ABS_MT_SLOT), and the device has no slot axis"),
        ("N: " + String(repeating: "n", count: 1025), 1, "a device name of 1025 bytes; 1024 at most"),
        ("E: 0.5 0000 0000 " + String(repeating: "1", count: 5000), 1, "a line of 5017 bytes; a recording's are 4096 at most"),
        ("E: 0.1 0003 0035\n", 1, "an event needs 4 fields"),
        ("N: x\nA: 35 0 100 0 0 0\nA: 35 0 10 0 0 1\n", 3, "axis 35 is described twice"),
        ("E: 9000000000.000000 0000 0000 0\n", 1, "(seconds, 0 to 4611686017: 12.345678)"),
        ("# c\nE: x 0003 0035 1", 2, "bad event time"),
        ("E: 0.1 00zz 0035 1", 1, "bad event type"),
        ("E: 0.1 0003 0035 1.5", 1, "bad event value"),
        ("\n\nQ: what", 3, "unknown line type"),
        ("A: 00 10 5 0 0", 1, "minimum 10 above maximum 5"),
        ("N: panel\nA: 35 0 0 0 0 0", 2, "minimum equals maximum (0): every position on it would map to one point"),
        ("hello", 1, "expected a line like"),
        ("N: x\nB: 01" + String(repeating: " 00", count: 90) + "\nB: 01 00 00 00 00 00 00 00", 3, "runs past 96 bytes"),
        ("P:" + String(repeating: " 00", count: 97), 1, "the properties run past 96 bytes"),
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

    /// A recording whose clock runs backwards is refused with its line (replayed, two taps
    /// would become a double tap; the evemu fuzzer, Fuzz/FuzzEvemu, first found such a file);
    /// a negative time too, whatever its size ("-0.3" once read as 0.3).
    @Test func timeRunningBackwards_orNegative_isRefused() throws {
        let text = "N: x\nA: 35 0 100 0 0 0\nE: 5.000000 0003 0035 1\nE: 2.000000 0000 0000 0\n"
        #expect(throws: RecordingError(file: "back.events", line: 4, reason: "time goes back to 2.0 s after 5.0 s (events must be in time order)")) {
            try Evemu.parse(text, file: "back.events")
        }
        for t in ["-0.3", "-1.3", "+0.3", "-.5"] {
            #expect(throws: RecordingError.self) { try Evemu.parse("E: \(t) 0003 0035 1\n", file: "neg.events") }
        }
    }

    /// A slot the device does not have (the kernel passes on none: a file written by hand or
    /// damaged) is refused with its line, not dropped without a word with its touch; without
    /// a description (events alone) nothing is checked.
    @Test(arguments: [99, -1, 10])
    func aSlotPastTheDevicesSlots_isRefused(slot: Int) throws {
        let text = "N: x\nA: 2f 0 9 0 0 0\nE: 0.000000 0003 002f 1\nE: 0.000000 0003 002f \(slot)\n"
        #expect(throws: RecordingError(file: "slot.events", line: 4, reason: "slot \(slot) is not one of the device's (0-9)")) {
            try Evemu.parse(text, file: "slot.events")
        }
        #expect(try Evemu.parse("E: 0.000000 0003 002f \(slot)\n", file: "alone.events").events.count == 1)
        // The description after the events (as a hand-made file may put it): the same refusal.
        #expect(throws: RecordingError(file: "after.events", line: 2, reason: "slot \(slot) is not one of the device's (0-9)")) {
            try Evemu.parse("E: 0.000000 0003 002f 1\nE: 0.000000 0003 002f \(slot)\nN: x\nA: 2f 0 9 0 0 0\n", file: "after.events")
        }
    }

    /// Events read as another device (`--device DESC`) are checked against that one's slots; a
    /// slot past the 64 the decoder reads (of a device that says it has 100) is refused too,
    /// where its touch was dropped without a word.
    @Test func slotsAreChecked_againstTheDeviceTheEventsAreReadAs_andTheDecodersLimit() throws {
        let ten = try #require(try Evemu.parse("N: x\nA: 2f 0 9 0 0 0\n", file: "ten.desc").description)
        #expect(throws: RecordingError(file: "events.events", line: 2, reason: "slot 12 is not one of the device's (0-9)")) {
            try Evemu.parse("E: 0.000000 0003 002f 1\nE: 0.000000 0003 002f 12\n", file: "events.events", describedAs: ten)
        }
        #expect(try Evemu.parse("E: 0.000000 0003 002f 9\n", file: "ok.events", describedAs: ten).description?.name == "x")
        let text = "N: x\nA: 2f 0 99 0 0 0\nE: 0.000000 0003 002f 63\nE: 0.000000 0003 002f 64\n"
        #expect(throws: RecordingError(file: "wide.events", line: 4, reason: "slot 64 is past the 64 slots touchgestured reads (0-63)")) {
            try Evemu.parse(text, file: "wide.events")
        }
    }

    /// A file that ends inside its last event's line (no newline after it: cut short, the value
    /// perhaps cut with it, "1" of "1079") is read as it is, and the line is named for the tools'
    /// warning; a file ending with a newline names none.
    @Test func aLastEventWithoutItsNewline_isNamed() throws {
        let cut = try Evemu.parse("N: x\nA: 35 0 100 0 0 0\nE: 0.000000 0003 0035 1\nE: 0.010000 0003 0036 1", file: "cut.events")
        #expect(cut.unterminatedLine == 4 && cut.events.count == 2)
        #expect(try Evemu.parse("N: x\nE: 0.000000 0003 0035 1\n", file: "whole.events").unterminatedLine == nil)
        #expect(try Evemu.parse("N: x\nE: 0.000000 0003 0035 1\n# a comment", file: "comment.events").unterminatedLine == nil)
        // Cut before its value, or inside its code: left out, and said so; the same cut on a
        // line with a newline after it is an error, as any broken line.
        for tail in ["E: 0.010000 0003 00", "E: 0.010000 0003 0036", "E: 0.01"] {
            let short = try Evemu.parse("N: x\nA: 35 0 100 0 0 0\nE: 0.000000 0003 0035 1\n" + tail, file: "short.events")
            #expect(short.events.count == 1 && short.unterminatedLine == 4 && short.unterminatedLeftOut, "\(tail)")
            #expect(short.unterminatedWarning?.hasSuffix("left out") == true)
            #expect(throws: RecordingError.self) { try Evemu.parse("N: x\nA: 35 0 100 0 0 0\n" + tail + "\n", file: "broken.events") }
        }
        #expect(!cut.unterminatedLeftOut && cut.unterminatedWarning?.contains("may be cut too") == true)
    }

    /// Events made out of order (a resync's frame stamped after a packet the kernel stamped
    /// during it) are written in time order, so `record`'s own files always read back.
    @Test func format_eventsOutOfOrder_writesThemInTimeOrder() throws {
        let events = [5, 2, 7].map { InputEvent(time: Timestamp(nanoseconds: Int64($0) * 1_000_000_000), type: 3, code: 0x35, value: 1) }
        let again = try Evemu.parse(Evemu.format(Recording(description: nil, events: events)), file: "formatted")
        #expect(again.events.map(\.time.nanoseconds) == [0, 0, 2_000_000_000])
    }

    @Test func format_thenParse_roundTrips() throws {
        let r = try Evemu.parse(Self.sample, file: "sample.events")
        let again = try Evemu.parse(Evemu.format(r), file: "formatted")
        #expect(again.description == r.description)
        #expect(again.events.map(\.value) == r.events.map(\.value))
        #expect(again.events.map(\.time) == r.events.map { Timestamp(nanoseconds: $0.time.nanoseconds - 1_000) })
    }
}

extension EvemuTests {
    /// A recording cut inside its last frame: that frame is ended first, so its lift counts (a
    /// replay ended every gesture, where it left a tap a long press begun forever); one cut in
    /// a dropped stretch (after a SYN_DROPPED, whose events the decoder discards) is ended, then
    /// its contact lifted.
    @Test(arguments: [
        ("E: 0.040000 0003 0039 -1\n", 1),
        ("E: 0.040000 0000 0003 0\nE: 0.040000 0003 0039 -1\n", 4),
    ])
    func aLastFrameWithoutItsReport_isEnded_andEveryContactLifted(tail: String, added: Int) throws {
        let head = Self.sample.split(separator: "\n").filter { !$0.hasPrefix("E:") }.joined(separator: "\n") + "\n"
        let text = head + """
            E: 0.000000 0003 0039 1
            E: 0.000000 0003 0035 400
            E: 0.000000 0003 0036 300
            E: 0.000000 0000 0000 0
            E: 0.020000 0003 0035 410
            E: 0.020000 0000 0000 0

            """ + tail
        let r = try Evemu.parse(text, file: "cut.events")
        let events = r.eventsLiftedAtEnd
        #expect(events.count == r.events.count + added)
        #expect(events.last.map { $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT } == true)
        let description = try #require(r.description)
        var d = try #require(FrameDecoder(description: description, geometry: GeometryConfiguration()))
        var lastContacts = -1
        for e in events { if let f = d.feed(e) { lastContacts = f.contacts.filter { !$0.isLifted }.count } }
        #expect(lastContacts == 0, "nothing is left down")
    }
}
