import GestureEngine
import Testing

@testable import GestureConfig

let examplesDirectory: String = {
    // Tests/GestureConfigTests/ConfigTests.swift -> the package root.
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/") + "/examples"
}()

func readFile(_ path: String) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var out = ""
    var buf = [CChar](repeating: 0, count: 4096)
    while fgets(&buf, Int32(buf.count), f) != nil {
        let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        out += String(decoding: bytes, as: UTF8.self)
    }
    return out
}

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ConfigTests {
    @Test func noRegions_givesTheStandardGestures_withTheFilesThresholds() throws {
        let c = try ConfigLoader.parse("[thresholds]\ntap_slop = 4.5\nlong_press_duration = 650\n", file: "k.toml")
        #expect(c.engine.regions.count == 1)
        #expect(c.engine.regions[0].name == "screen")
        #expect(c.engine.regions[0].gestures.map(\.name) == ["double_tap", "tap", "two_finger_tap", "three_finger_tap", "long_press", "pan", "swipe", "pinch", "edge_swipe"])
        #expect(c.engine.regions[0].gestures.allSatisfy { $0.thresholds.tapSlop == 4.5 })
        #expect(c.engine.regions[0].gestures[4].thresholds.longPressDuration == .milliseconds(650))
    }

    /// Recognizers read their deadlines from `Thresholds.ns`, which the duration setters keep:
    /// every duration key a file sets must arrive there, in the file's scope and a gesture's.
    @Test func durationKeys_reachTheNanosecondsRecognizersRead() throws {
        let keys = "tap_max_duration = 410\nmulti_tap_interval = 320\nlong_press_duration = 730\nfinger_settle = 140\nswipe_max_duration = 620\n"
        let c = try ConfigLoader.parse("[thresholds]\n" + keys, file: "k.toml")
        let g = try ConfigLoader.parse("[[region]]\nname = 'r'\n[[region.gesture]]\nkind = 'long_press'\n" + keys, file: "g.toml")
        for t in [c.engine.regions[0].gestures[4].thresholds, g.engine.regions[0].gestures[0].thresholds] {
            #expect(t.ns.tapMax == 410_000_000)
            #expect(t.ns.multiTapInterval == 320_000_000)
            #expect(t.ns.longPress == 730_000_000)
            #expect(t.ns.fingerSettle == 140_000_000)
            #expect(t.ns.swipeMax == 620_000_000)
        }
        let d = Thresholds.standard  // the defaults, set without their setters, agree too
        #expect(d.ns.tapMax == d.tapMaxDuration.nanosecondsClamped && d.ns.multiTapInterval == d.multiTapInterval.nanosecondsClamped)
        #expect(d.ns.longPress == d.longPressDuration.nanosecondsClamped && d.ns.fingerSettle == d.fingerSettle.nanosecondsClamped)
        #expect(d.ns.swipeMax == d.swipeMaxDuration.nanosecondsClamped)
    }

    @Test func deviceMode_observeByDefault_grabTheOlderSpelling_passthrough() throws {
        #expect(try ConfigLoader.parse("", file: "m.toml").daemon.mode == .observe)
        #expect(try ConfigLoader.parse("[daemon]\ngrab = true\n", file: "m.toml").daemon.mode == .grab)
        #expect(try ConfigLoader.parse("[daemon]\ngrab = true\n[device]\nmode = 'grab'\n", file: "m.toml").daemon.mode == .grab)
        #expect(try ConfigLoader.parse("[device]\nmode = 'passthrough'\n", file: "m.toml").daemon.mode == .passthrough)
        // A taken touch is lifted on the mirror unless the compositor is known to forward cancels.
        #expect(try ConfigLoader.parse("[device]\nmode = 'passthrough'\n", file: "m.toml").daemon.cancel == .lift)
        #expect(try ConfigLoader.parse("[device]\nmode = 'passthrough'\ncancel = 'palm'\n", file: "m.toml").daemon.cancel == .palm)
        let c = try ConfigLoader.parse("[daemon]\nrequest_socket = ''\n", file: "m.toml")
        #expect(c.daemon.requestSocket == "")
        let idle = try ConfigLoader.parse("[idle]\nafter = 2.5\n[[action]]\nname = 'undim'\non = 'wake'\nexec = ['/bin/true']\n", file: "m.toml")
        #expect(idle.idleAfter == 2.5)
        #expect(idle.actions.first?.on == .wake && idle.actions.first?.gesture == "")
        #expect(idle.displayWakes && idle.sysfsRoot == "/sys")
        // A touch on a dark display wakes the kiosk with no [idle] after: a wake action needs none.
        let dark = try ConfigLoader.parse("[idle]\nsysfs = '/tmp/sys'\n[[action]]\nname = 'light'\non = 'wake'\nexec = ['/bin/true']\n", file: "m.toml")
        #expect(dark.idleAfter == 0 && dark.sysfsRoot == "/tmp/sys" && dark.actions.first?.on == .wake)
    }

    @Test func emptyFile_isTheBuiltInDefault() throws {
        let c = try ConfigLoader.parse("# nothing\n", file: "empty.toml")
        #expect(c.engine == Configuration.standard.engine)
        #expect(c.geometry == Configuration.standard.geometry)
    }

    @Test func fullFile_readsEveryPart() throws {
        let text = """
            [screen]
            width = 1280
            height = 800

            [device]
            rotation = 90
            calibration = [1, 0, 0, 0, -1, 1]
            width_mm = 217
            height_mm = 136
            output = [0, 0, 1280, 800]

            [[region]]
            name = "list"
            priority = "high"

              [[region.gesture]]
              kind = "pan"
              name = "scroll"
              axis = "vertical"
              min_fingers = 1
              max_fingers = 2
              pan_slop = 5

              [[region.gesture]]
              kind = "swipe"
              directions = ["up_left", "down"]
              simultaneous_with = ["scroll"]
              requires_failure_of = ["row/slide"]

              [region.drag]
              projection = 200
              initial = [0, 100]

              [region.drag.y]
              min = 0
              max = inf
              mode = "rubber_band"
              factor = 0.5
              snap = [0, 200, 400]

            [[region]]
            name = "row"
            rect = [0, 100, 1280, 80]
            gesture = [{ kind = "pan", name = "slide", axis = "horizontal" }, { kind = "tap", count = 2, fingers = 1 }]
            """
        let c = try ConfigLoader.parse(text, file: "full.toml")
        #expect(c.geometry.screenWidth == 1280 && c.geometry.rotation == 90 && c.geometry.widthMM == 217)
        #expect(c.geometry.calibration == [1, 0, 0, 0, -1, 1])
        let list = c.engine.regions[0]
        #expect(list.gestures[0].axis == .vertical && list.gestures[0].maxFingers == 2)
        #expect(list.gestures[0].priority == .high)
        #expect(list.gestures[0].thresholds.panSlop == 5)
        #expect(list.gestures[1].directionCount == 8 && list.gestures[1].directions == [.upLeft, .down])
        #expect(list.drag?.y?.max == .infinity && list.drag?.y?.snapPoints == [0, 200, 400])
        #expect(list.drag?.projection == .milliseconds(200) && list.drag?.initial == PixelPoint(x: 0, y: 100))
        let row = c.engine.regions[1]
        #expect(row.rect == PixelRect(x: 0, y: 100, width: 1280, height: 80))
        #expect(row.gestures.map(\.name) == ["slide", "tap"])
        #expect(row.gestures[1].tapCount == 2 && row.gestures[1].minFingers == 1)
    }

    @Test(arguments: ["bottom-sheet", "swipeable-rows", "photo-viewer", "kiosk-admin", "chromium-kiosk", "museum-table", "pointer-kiosk", "noisy-panel"])
    func examples_load(name: String) throws {
        let path = "\(examplesDirectory)/\(name).toml"
        let text = try #require(readFile(path))
        let c = try ConfigLoader.parse(text, file: path)
        #expect(!c.engine.regions.isEmpty)
    }

    static let refusals: [(String, Int, String)] = [
        // A cycle through implicit ranks: slide must fail before swipe (rule), swipe before tap
        // (high priority), the two-finger tap before slide (more fingers).
        ("[[region]]\nname = 'list'\npriority = 'high'\n[[region.gesture]]\nkind = 'swipe'\nrequires_failure_of = ['row/slide']\n[[region]]\nname = 'row'\nrect = [0, 0, 10, 10]\ngesture = [{ kind = 'pan', name = 'slide' }, { kind = 'tap', fingers = 2 }]",
            6, "rule cycle: "),
        ("colour = 1", 1, "unknown key 'colour' in the top level"),
        ("[screen]\nwidth = \"big\"", 2, "'width' must be a number, found a string"),
        ("[screen]\n\nheight = -5", 3, "'height' must be at least 1, found -5"),
        ("[thresholds]\ntap_slop = nan", 2, "'tap_slop' is NaN"),
        ("[thresholds]\npan_slop = -1", 2, "'pan_slop' must be from 0 to 100 mm"),
        ("[thresholds]\ntap_slopp = 1", 2, "unknown key 'tap_slopp' in [thresholds]"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'tap'\nslopp = 1", 5, "unknown key 'slopp'"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'pan'\ncount = 2", 5, "'count' does not apply to a pan"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'wiggle'", 4, "'kind' must be one of"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nname = 'x'", 3, "a gesture needs a 'kind'"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'tap'\nrequires_failure_of = ['nope']", 5,
            "unknown gesture 'nope' in requires_failure_of of 'a/tap'"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'tap'\nsimultaneous_with = ['tap']", 5, "names itself"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'tap'\nname = 'x'\nrequires_failure_of = ['y']\n[[region.gesture]]\nkind = 'pan'\nname = 'y'\nrequires_failure_of = ['x']",
            6, "rule cycle: "),
        ("[[region]]\nname = 'a'\n[[region]]\nname = 'a'", 4, "region 'a' is defined twice"),
        ("[[region]]\nname = 'a'\nrect = [0, 0, 0, 10]", 3, "width and height more than 0"),
        ("[[region]]\nrect = [0, 0, 10, 10]", 1, "a [[region]] needs a 'name'"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'tap'\n[[region.gesture]]\nkind = 'tap'", 5, "gesture 'tap' is defined twice"),
        // On one line with `standard_gestures` (the second 'x' is no replacement of a standard one).
        ("region = [{ name = 'r', standard_gestures = true, gesture = [{ kind = 'tap', name = 'x', fingers = 3 }, { kind = 'pan', name = 'x' }] }]", 1,
            "gesture 'x' is defined twice"),
        ("[device]\nrotation = 45", 2, "'rotation' must be 0, 90, 180 or 270"),
        ("[[panel]]\nrotation = 90", 1, "a [[panel]] needs 'match'"),
        ("[[panel]]\nmatch = 'x'\noutput = [0, 0, -1, 5]", 3, "'output' width and height must be more than 0"),
        ("[device]\ncalibration = [1, 0, 0]", 2, "'calibration' must hold 6 numbers"),
        // What would make the compile (every pair of gestures) take seconds and gigabytes.
        (String(repeating: "[[region]]\nname = 'r'\n", count: 1).replacingOccurrences(of: "'r'", with: "'r0'")
            + (1...1025).map { "[[region]]\nname = 'r\($0)'\n" }.joined(), 2049, "more than 1024 regions in the configuration (the file and its drop-ins together)"),
        ((0..<103).map { "[[region]]\nname = 'r\($0)'\nstandard_gestures = true\ngesture = [{ kind = 'tap', name = 'x' }]\n" }.joined(),
            409, "more than 1024 gestures in the configuration (the file and its drop-ins together)"),
        ("[[region]]\nname = 'r'\n[[region.gesture]]\nkind = 'tap'\nrequires_failure_of = [" + (0..<1025).map { "'g\($0)'" }.joined(separator: ",") + "]",
            5, "'requires_failure_of' names 1025 gestures; 1024 at most"),
        ("# " + String(repeating: "x", count: 1 << 20) + "\n", 1, "a config holds 1048576 at most"),
        // A header with a Cyrillic 'е' that looks like an ASCII 'e' is named as such.
        ("[scr\u{0435}en]\nwidth = 5", 1, "a bare key holds only A-Z, a-z, 0-9, '_' and '-'"),
        ("[screen]\nw\u{0456}dth = 5", 2, "a bare key holds only A-Z, a-z, 0-9, '_' and '-'"),
        ("[daemon]\nset_regions_uids = [-1]", 2, "found -1"),
        // Keys 30,000 parts deep: the nested tables overflowed the stack when released.
        (String(repeating: "a.", count: 30_000) + "a = 1", 1, "a key of more than 128 dotted parts"),
        ("[" + String(repeating: "a.", count: 30_000) + "a]", 1, "a key of more than 128 dotted parts"),
        // Degenerate geometry: every touch at one place, or none on the screen.
        ("[device]\ncalibration = [0, 0, 0, 0, 0, 0]", 2, "'calibration' folds the panel onto a line or a point"),
        ("[device]\ncalibration = [1, 2, 0, 2, 4, 0]", 2, "'calibration' folds the panel onto a line or a point"),
        ("[device]\ncalibration = [1e308, 0, 0, 0, 1, 0]", 2, "'calibration' numbers must lie within ±1000"),
        ("[device]\noutput = [-1e308, 0, 1e308, 1]", 2, "'output' numbers must lie within ±1048576 px"),
        ("[device]\nwidth_mm = 100", 2, "set both 'width_mm' and 'height_mm'"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'pan'\naxis = 'diagonal'", 5, "'axis' must be one of \"free\", \"horizontal\", \"vertical\""),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'pinch'\nmin_fingers = 1", 5, "a pinch needs at least 2 fingers"),
        ("[[region]]\nname = 'a'\n[region.drag.y]\nmin = 5\nmax = 1", 5, "'max' (1) is less than 'min' (5)"),
        // Found by a probe of the keys against CONFIG.md (2026-12-02).
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'pan'\nfingers = 2\nmin_fingers = 1", 6, "'fingers' sets both 'min_fingers' and 'max_fingers'"),
        ("[[region]]\nname = 'a'\n[region.drag]\ninitial = [0, 5000]\n[region.drag.y]\nmax = 100", 4, "'initial' y 5000 lies outside the bounds (min -inf, max 100)"),
        ("[screen]\nwidth = 1920.5", 2, "'width' is a whole number of pixels, found 1920.5"),
        ("[device]\nrotation = 360", 2, "'rotation' must be 0, 90, 180 or 270, found 360"),
        ("[[action]]\nname = 'a/b'\ngesture = 'tap'\nkeys = 'KEY_A'", 2, "an action name must be non-empty and hold no '/'"),
        ("[[region]]\nname = 'a'\n[region.drag.y]\nmode = 'bouncy'", 4, "'mode' must be one of"),
        ("[[region]]\nname = 'a'\n[region.drag.y]\nmin = inf\nmax = inf", 4, "'min' may be -inf (no lower bound) but not inf"),
        ("[[region]]\nname = 'a'\n[region.drag.x]\nmax = -inf", 4, "'max' may be inf (no upper bound) but not -inf"),
        ("a = ", 1, "expected a value"),
        ("a = 1\na = 2", 2, "key 'a' is defined twice"),
        ("[screen]\nwidth = 1920\n[screen]", 3, "table [screen] is defined twice"),
        // TOML 1.0 reads dates and times as their own kind; the schema then refuses one where it wants a number.
        ("[thresholds]\n\ntap_slop = 1979-05-27", 3, "'tap_slop' must be a number, found a local date"),
        ("[thresholds]\nlong_press_duration = 07:32:00", 2, "must be a number, found a local time"),
        // Multi-line strings are read (a newline right after the opening is dropped).
        ("[[region]]\nname = '''\nrow'''\n[[region]]\nname = \"\"\"\nrow\"\"\"", 5, "region 'row' is defined twice"),
        // Found by probing from outside (hardening): each trapped or was read when it should be refused.
        ("[daemon]\nset_regions_uids = [-1]", 2, "'set_regions_uids' must hold user or group ids"),
        ("[daemon]\nset_regions_uids = [4294967296]", 2, "'set_regions_uids' must hold user or group ids"),
        ("[daemon]\n\nset_regions_gids = [1e30]", 3, "'set_regions_gids' must hold user or group ids"),
        ("[daemon]\nset_regions_gids = [0.5]", 2, "'set_regions_gids' must hold user or group ids"),
        ("[screen]\nwidth = 1e-320", 2, "'width' must be at least 1"),
        ("[daemon]\nmax_clients = 1024\noutput_buffer_bytes = 16777216", 3, "max_clients × (output_buffer_bytes + max_line_bytes) is"),
        ("[daemon]\nmax_line_bytes = 1048576", 2, "is 64 × (8192 + 1048576) bytes, 64.5 MiB: clients that never read"),
        ("[daemon]\nmax_line_bytes = 1044481\noutput_buffer_bytes = 4096", 2, "is 64 × (4096 + 1044481) bytes, 64.1 MiB"),
        ("[daemon]\ncoalesce_ms = 101", 2, "'coalesce_ms'"),
        ("[[action]]\nname = 'dim'\non = 'idle'\nexec = ['/bin/true']", 3, "action 'dim' fires on idle, but the kiosk never goes idle: set [idle] after (seconds)"),
        ("[idle]\nafter = 60\n[[action]]\nname = 'dim'\non = 'idle'\ngesture = 'tap'\nexec = ['/bin/true']", 6, "action 'dim' fires on idle, not on a gesture: 'gesture' does not apply"),
        ("[idle]\nafter = -1", 2, "'after' must be 0 (off) or from 0.5"),
        ("[idle]\nbefore = 1", 2, "unknown key 'before'"),
        ("[idle]\nsysfs = 'sys'", 2, "'sysfs' must be an absolute path"),
        ("[idle]\ndisplay = 'yes'", 2, "'display' must be true or false"),
        ("[idle]\ndisplay = false\n[[action]]\nname = 'light'\non = 'wake'\nexec = ['/bin/true']", 5, "action 'light' fires on wake, but the kiosk never goes idle"),
        ("[device]\nmode = 'mirror'", 2, "'mode' must be one of \"observe\", \"grab\", \"passthrough\", found \"mirror\""),
        ("[device]\nmode = 'passthrough'\ncancel = 'up'", 3, "'cancel' must be one of \"lift\", \"palm\", found \"up\""),
        ("[daemon]\ngrab = true\n[device]\nmode = 'passthrough'", 4, "[device] mode = \"passthrough\" contradicts [daemon] grab = true"),
        ("[daemon]\nrequest_socket = 'run/r.sock'", 2, "'request_socket' must be an absolute path shorter than 108 bytes, or \"\" for none"),
        ("[daemon]\n\ncoalesce_ms = -1", 3, "'coalesce_ms'"),
        ("[daemon]\ncoalesce_ms = 2.5", 2, "'coalesce_ms'"),
        ("[thresholds]\ntap_slop = 1e-999", 2, "too small for a 64-bit float"),
        ("[thresholds]\ntap_slop = 1e999", 2, "out of range for a 64-bit float"),
        ("[thresholds]\ntap_slop = 9223372036854775808", 2, "out of range for a 64-bit integer"),
        ("[[region]]\nname = \"a\\nb\"", 2, "a region name may hold no control character (U+A)"),
        ("[[region]]\nname = \"<0>\\u001b[31mforged\"", 2, "no control character (U+1B)"),
        ("[[region]]\nname = '" + String(repeating: "n", count: 65) + "'", 2, "a region name may have 64 bytes at most, found 65"),
        ("[[region]]\nname = 'a'\n[[region.gesture]]\nkind = 'tap'\nname = \"t\\u0000\"", 5, "a gesture name may hold no control character (U+0)"),
        // Found by the conformance suite: read as valid by the earlier reader.
        ("[thresholds]\ntap_slop = 03", 2, "leading zeros are not allowed"),
        ("[thresholds]\ntap_slop = 1.", 2, "is not a value"),
        ("[thresholds]\ntap_slop = 1__0", 2, "is not a value"),
        ("a = 1 # bell \u{07}", 1, "is not allowed in a comment"),
        ("[a]\nb.c = 1\n[a.b]", 3, "already defined by dotted keys"),
        ("a = {b = 1}\na.c = 2", 2, "inline table, which cannot be extended"),
        ("s = \"open", 1, "unterminated string"),
        ("x = [1, 2", 1, "expected ',' or ']'"),
        ("[screen\nwidth = 1", 1, "expected ']'"),
        // Found by the config fuzzer (Fuzz/FuzzConfig): deep nesting overflowed the stack.
        ("a = " + String(repeating: "[", count: 5000), 1, "nested too deeply"),
        ("a = " + String(repeating: "{b = ", count: 5000), 1, "nested too deeply"),
        // Found by a ten-minute config fuzz run: a huge duration overflowed Int64 nanoseconds.
        ("[[region]]\nname = 'p'\n[[region.gesture]]\nkind = 'long_press'\nlong_press_duration = 4e112", 5,
         "'long_press_duration' must be from 50 to 60000 ms, found"),
        ("[thresholds]\ntap_slop = 20000", 2, "'tap_slop' must be from 0 to 100 mm"),
        ("[[region]]\nname = 'p'\n[region.drag]\nprojection = 1e30", 4, "'projection' must be from 0 to 10000 ms"),
    ]

    @Test(arguments: refusals)
    func badConfig_isRefusedWithFileLineAndReason(text: String, line: Int, reason: String) {
        #expect {
            _ = try ConfigLoader.parse(text, file: "kiosk.toml")
        } throws: { error in
            guard let e = error as? ConfigError else { return false }
            let ok = e.file == "kiosk.toml" && e.line == line && e.reason.contains(reason)
            if !ok { Issue.record("got \(e)") }
            return ok
        }
    }

    @Test func errorDescription_isFileColonLineColonReason() {
        let e = ConfigError(file: "/etc/touchgestured.toml", line: 12, reason: "unknown key 'x'")
        #expect(e.description == "/etc/touchgestured.toml:12: unknown key 'x'")
    }

    @Test func panels_giveEachTouchscreenItsOwnGeometry() throws {
        let c = try ConfigLoader.parse(
            "[screen]\nwidth = 3840\n[device]\nwidth_mm = 300\nheight_mm = 200\n[[panel]]\nmatch = \"ILITEK*\"\noutput = [1920, 0, 1920, 1080]\n[[panel]]\nmatch = \"0eef:0001\"\nrotation = 90\n",
            file: "k.toml")
        let left = c.geometry(path: "/dev/input/event3", name: "ILITEK Multi-Touch", vendor: 0x222a, product: 1)
        #expect(left.output == PixelRect(x: 1920, y: 0, width: 1920, height: 1080))
        #expect(left.widthMM == 300)  // [device] keys carry into the panel
        #expect(c.geometry(path: "/dev/input/event4", name: "eGalax", vendor: 0x0eef, product: 1).rotation == 90)
        #expect(c.geometry(path: "/dev/input/event5", name: "Other", vendor: 1, product: 2) == c.geometry)
        #expect(devicePatternMatches("/dev/input/event5", path: "/dev/input/event5", name: "x", vendor: 0, product: 0))
        // A panel placed off the screen would touch no region: refused with its line.
        #expect(throws: ConfigError.self) {
            try ConfigLoader.parse("[[panel]]\nmatch = \"ILITEK*\"\noutput = [1920, 0, 1920, 1080]\n", file: "k.toml")
        }
    }

    @Test func palmSize_isReadPerPanel_andRefusedWhenNegative() throws {
        let c = try ConfigLoader.parse("[device]\npalm_size = 25\n[[panel]]\nmatch = \"ILITEK*\"\npalm_size = 0\n", file: "k.toml")
        #expect(c.geometry.palmSize == 25)
        #expect(c.geometry(path: "/dev/input/event3", name: "ILITEK Multi-Touch", vendor: 0x222a, product: 1).palmSize == 0)
        #expect(try ConfigLoader.parse("", file: "k.toml").geometry.palmSize == 30)
        #expect(throws: ConfigError.self) { try ConfigLoader.parse("[device]\npalm_size = -1\n", file: "k.toml") }
    }

    @Test func daemonSection_isRead() throws {
        let c = try ConfigLoader.parse("[daemon]\nsocket = '/tmp/x.sock'\nset_regions_uids = [1000]\n", file: "k.toml")
        #expect(c.daemon.socket == "/tmp/x.sock")
        #expect(c.daemon.maySetRegions(uid: 1000, gid: 5) && !c.daemon.maySetRegions(uid: 1001, gid: 5))
    }
}

/// docs/CONFIG.md names every threshold with its unit and default; docs/PROTOCOL.md every kind.
@Suite struct DocsTests {
    static let docs: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/docs"
    }()

    @Test func configDoc_listsEveryThresholdWithItsUnitRangeAndDefault() throws {
        let doc = try #require(readFile(Self.docs + "/CONFIG.md"))
        for key in ThresholdKey.all {
            let value = key.get(.standard)
            let shown = value == value.rounded() ? String(Int(value)) : String(value)
            let row = "| `\(key.key)` | \(key.unit.rawValue), \(key.rangeText) | \(shown) |"
            #expect(doc.contains(row), "CONFIG.md: \(row)")
        }
    }

    @Test func protocolDoc_namesEveryKindPhaseAndDirection() throws {
        let doc = try #require(readFile(Self.docs + "/PROTOCOL.md"))
        for k in GestureKind.allCases { #expect(doc.contains("`\(k.rawValue)`"), "PROTOCOL.md: \(k.rawValue)") }
        for p in ["began", "changed", "ended", "cancelled", "recognized"] { #expect(doc.contains("`\(p)`")) }
        for d in SwipeDirection.allCases { #expect(doc.contains("`\(d.rawValue)`"), "PROTOCOL.md: \(d.rawValue)") }
        for e in ScreenEdge.allCases { #expect(doc.contains("`\(e.rawValue)`")) }
    }
}
