import GestureConfig
import GestureEngine
import Pipeline
import PointerEmulation
import Testing
import TouchFrames

/// Pointer regions through a whole pipeline: the config's gestures, the pointer ops and lines
/// that replay prints, the kinetic tail as a deadline, and, in pass-through, the claim on the
/// fingers that land in a pointer region.
@Suite struct PointerRegionTests {
    static let page = "[[region]]\nname = \"page\"\nemulate = \"pointer\"\n"
    static let passThrough = "[device]\nmode = \"passthrough\"\n"

    /// Feeds `synth`'s events one at a time (deadlines fire between them, as in the daemon's
    /// timer), then the deadlines left; the ops, and the slots claimed.
    static func run(_ config: String, _ synth: Synth) throws -> (ops: [PointerOp], claimed: [UInt32], lines: String) {
        let c = try ConfigLoader.parse(config, file: "p.toml")
        var pipeline = try DevicePipeline(description: Synth.panel, configuration: c)
        var out = PipelineOutput(wants: .init(pointerLines: true))
        var ops: [PointerOp] = [], claimed: [UInt32] = [], lines = ""
        func take() {
            ops += out.pointerOps
            claimed += out.takenContacts
            lines += String(decoding: out.lines, as: UTF8.self)
            out.removeAll()
        }
        for e in synth.events {
            while let t = pipeline.nextDeadline, t < e.time {
                pipeline.advance(to: t, into: &out)
                take()
            }
            pipeline.feed(e, into: &out)
            take()
        }
        while let t = pipeline.nextDeadline {
            pipeline.advance(to: t, into: &out)
            take()
        }
        #expect(pipeline.isIdle)
        return (ops, claimed, lines)
    }

    @Test func config_emulatePointer_addsTheGesturesItsMappingUses() throws {
        let c = try ConfigLoader.parse(Self.page, file: "p.toml")
        #expect(c.engine.regions[0].gestures.map(\.name) == ["tap", "two_finger_tap", "long_press", "pan_vertical", "pan_horizontal", "pinch"])
        #expect(c.pointerRegions.map(\.name) == ["page"])
        let m = try ConfigLoader.parse(
            Self.page + "[region.pointer]\npinch = \"none\"\ntap = \"none\"\naxis_lock = false\nlong_press = \"drag\"\npixels_per_notch = 80\n",
            file: "p.toml")
        #expect(m.engine.regions[0].gestures.map(\.name) == ["two_finger_tap", "long_press", "pan"])
        #expect(m.pointerRegions[0].mapping.longPress == .drag && m.pointerRegions[0].mapping.pixelsPerNotch == 80)
    }

    /// check-config's line names what the region's gestures do, not every mapping's key.
    @Test func theSummary_namesOnlyTheRolesTheRegionsGesturesPlay() throws {
        let c = try ConfigLoader.parse(
            Self.page.replacingOccurrences(of: "emulate", with: "gesture = [{ kind = \"tap\" }, { kind = \"pan\", fingers = 3 }]\nemulate")
                + "[region.pointer]\npan = \"drag\"\n", file: "p.toml")
        let roles = Set(c.engine.regions[0].gestures.compactMap(PointerRole.init))
        #expect(c.pointerRegions[0].summary(roles: roles) == "tap: left click")
        #expect(c.pointerRegions[0].summary().contains("pinch: Ctrl+wheel zoom"))
    }

    @Test func config_refusesWhatMakesNoSense() {
        func refused(_ text: String, _ reason: String) -> Bool {
            do {
                _ = try ConfigLoader.parse(text, file: "p.toml")
                return false
            } catch { return error.reason.contains(reason) }
        }
        #expect(refused("[[region]]\nname = \"a\"\n[region.pointer]\ntap = \"left\"\n", "applies to a region with emulate"))
        #expect(refused(Self.page + "[region.pointer]\ntap = \"double\"\n", "'tap' must be one of"))
        #expect(refused(Self.page + "[region.pointer]\ndeceleration = 0.5\n", "from 0.9 to 1"))
        #expect(refused(Self.page + "[region.pointer]\npixels_per_notch = 0\n", "from 1 to 1000 px"))
        #expect(refused(Self.page + "[region.pointer]\nwheel = 1\n", "wheel"))
        #expect(refused("[[region]]\nname = \"a\"\nemulate = \"mouse\"\n", "'emulate' must be one of"))
    }

    @Test func clientRegion_cannotEmulateAPointer() throws {
        let base = try ConfigLoader.parse(Self.page.replacingOccurrences(of: "page", with: "file"), file: "p.toml")
        let table = try parseTOML(bytes: Array("name = \"mine\"\nemulate = \"pointer\"\n".utf8))
        #expect(throws: ConfigError.self) { try ConfigLoader.clientRegions([table], base: base, file: "client") }
    }

    @Test func tap_clicksAtOnce_andATapNextToIt_isTheSamePlace() throws {
        var s = Synth()
        s.tap((300, 400))
        s.wait(150)
        s.tap((304, 402))
        let r = try Self.run(Self.page, s)
        #expect(r.ops.map(\.kind).filter { if case .press = $0 { return true } else { return false } }.count == 2)
        let moves = r.ops.compactMap { op -> PixelPoint? in if case .move(let p) = op.kind { return p } else { return nil } }
        // Each finger brings the pointer where it lands; the second click lands where the first did.
        #expect(moves.count == 4 && moves[1] == moves[3] && moves[0] == moves[1])
        #expect(moves[2] != moves[3], "the second landing hovers where the finger is")
        #expect(r.lines.contains(#"{"type":"pointer","op":"press","button":"left","#))
        #expect(r.claimed.isEmpty, "observe mode claims nothing")
        // The lines in the order things happened: the tap's gesture line, then the click it made.
        let tap = try #require(r.lines.range(of: #""gesture":"tap""#)), press = try #require(r.lines.range(of: #""op":"press""#))
        #expect(tap.lowerBound < press.lowerBound)
    }

    @Test func drag_turnsTheWheelByTheTravel_andAFling_coastsOnDeadlines() throws {
        var slow = Synth()
        slow.down(0, (960, 200))
        slow.sync()
        slow.drag([0], by: (0, 300), over: 600)
        slow.wait(300)
        slow.move(0, (960, 500))
        slow.sync()
        slow.up(0)
        slow.sync()
        let r = try Self.run(Self.page, slow)
        let v = r.ops.reduce(0) { if case .wheel(let w) = $1.kind { return $0 + Int(w.vertical) } else { return $0 } }
        #expect(v == 720, "300 px at 50 px a notch")

        var fling = Synth()
        fling.down(0, (960, 800))
        fling.sync()
        fling.drag([0], by: (0, -400), over: 100)
        fling.up(0)
        fling.sync()
        let lift = Timestamp(nanoseconds: fling.microseconds * 1000)
        let f = try Self.run(Self.page, fling)
        let after = f.ops.filter { $0.time > lift }
        #expect(after.count > 50, "the wheel turns on after the lift, a tick every 10 ms")
        #expect(after.allSatisfy { if case .wheel(let w) = $0.kind { return w.vertical < 0 } else { return false } })
    }

    @Test func passThrough_claimsFingersLandingInAPointerRegion_only() throws {
        let config = Self.passThrough + "[[region]]\nname = \"page\"\nrect = [0, 0, 960, 1080]\nemulate = \"pointer\"\n"
            + "[[region]]\nname = \"other\"\nrect = [960, 0, 960, 1080]\nstandard_gestures = true\n"
        var s = Synth()
        s.tap((300, 400))
        s.wait(400)
        s.tap((1300, 400))
        let r = try Self.run(config, s)
        #expect(r.claimed == [1], "the tap in 'page' is the pointer's; the one in 'other' reaches the app")
    }

    static func presses(_ ops: [PointerOp]) -> Int { ops.filter { if case .press = $0.kind { return true } else { return false } }.count }

    /// A strip nested in a pointer region that is not the pointer's (an edge swipe's, as in
    /// examples/pointer-kiosk.toml): a finger landing there is the app's and the strip's, never
    /// the pointer's, though the page's gestures see it (a parent sees its children's fingers):
    /// its tap clicks nothing, its drag turns no wheel, and the app is not taken from.
    @Test func aStripNestedInAPointerRegion_isNotThePointers() throws {
        let config = Self.passThrough + Self.page
            + "[[region]]\nname = \"edge\"\nrect = [0, 0, 16, 1080]\ngesture = [{ kind = \"edge_swipe\", edges = [\"left\"] }]\n"
        var s = Synth()
        s.tap((8, 500))
        s.wait(400)
        s.down(0, (8, 300))
        s.sync()
        s.drag([0], by: (0, 300), over: 300)
        s.up(0)
        s.sync()
        s.wait(400)
        s.tap((500, 500))
        let r = try Self.run(config, s)
        #expect(Self.presses(r.ops) == 1, "only the tap in the page proper clicks: \(r.ops.map(\.kind))")
        #expect(!r.ops.contains { if case .wheel = $0.kind { return true } else { return false } }, "the strip's drag scrolls nothing")
        #expect(r.claimed.count == 1, "only the page's finger is taken from the app")
    }

    /// A strip's finger landing in the very frame the page's pan begins (another finger moved
    /// past the slop then): the pan is that sequence's, and scrolls nothing.
    @Test func aStripLanding_inTheFrameAPanBegins_stillKeepsThePointerOut() throws {
        let config = Self.passThrough + "[[region]]\nname = \"page\"\nemulate = \"pointer\"\n"
            + "gesture = [{ kind = \"pan\", min_fingers = 1, max_fingers = 2 }]\n"
            + "[[region]]\nname = \"edge\"\nrect = [0, 0, 16, 1080]\ngesture = [{ kind = \"edge_swipe\", edges = [\"left\"] }]\n"
        var s = Synth()
        s.down(0, (960, 200))
        s.sync()
        s.wait(20)
        s.move(0, (960, 250))
        s.down(1, (8, 500))
        s.sync()
        s.drag([0, 1], by: (0, 100), over: 100)
        s.up(0)
        s.up(1)
        s.sync()
        let r = try Self.run(config, s)
        #expect(!r.ops.contains { if case .wheel = $0.kind { return true } else { return false } }, "\(r.ops.map(\.kind))")
    }

    /// A tap that stops a kinetic scroll clicks nothing (UIScrollView's rule); the next one does.
    /// A palm brings no pointer and stops no scroll.
    @Test func aTapThatStopsAScroll_clicksNothing() throws {
        var s = Synth()
        s.down(0, (960, 800))
        s.sync()
        s.drag([0], by: (0, -400), over: 100)
        s.up(0)
        s.sync()
        s.wait(100)
        s.down(1, (300, 300))
        s.palm(1)
        s.sync()
        s.wait(50)
        s.up(1)
        s.sync()
        s.wait(50)
        let stop = s.microseconds * 1000
        s.tap((500, 500))
        s.wait(400)
        s.tap((520, 500))
        let r = try Self.run(Self.page, s)
        func wheels(from a: Int64, to b: Int64) -> Bool {
            r.ops.contains { $0.time.nanoseconds > stop + a && $0.time.nanoseconds < stop + b && { if case .wheel = $0.kind { return true } else { return false } }($0) }
        }
        let moves = r.ops.compactMap { op -> PixelPoint? in if case .move(let p) = op.kind { return p } else { return nil } }
        #expect(!moves.contains(PixelPoint(x: 300, y: 300)), "the palm brings no pointer")
        #expect(wheels(from: -40_000_000, to: 0), "the scroll still coasted past the palm")
        #expect(Self.presses(r.ops) == 1, "the tap that stopped the scroll clicks nothing; the next one does")
        #expect(!wheels(from: 10_000_000, to: 300_000_000), "and it stopped")
    }

    @Test func passThrough_pointerRegion_makesThePipelineDecideBeforeTheMirror() throws {
        let c = try ConfigLoader.parse(Self.passThrough + Self.page, file: "p.toml")
        #expect(try DevicePipeline(description: Synth.panel, configuration: c).holdsTouches)
        let observe = try ConfigLoader.parse(Self.page, file: "p.toml")
        #expect(try !DevicePipeline(description: Synth.panel, configuration: observe).holdsTouches)
    }
}
