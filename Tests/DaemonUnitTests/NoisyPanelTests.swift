import Daemon
import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import Testing
import TestSupport
import TouchFrames

typealias Contacts = [(slot: Int32, id: Int32, x: Int32, y: Int32)]

/// examples/noisy-panel.toml on recordings of what cheap panels do, through `replay --mirror`'s
/// path (the daemon's route offline) and the gestures': what the app would see and what the
/// gestures make of it.
@Suite struct NoisyPanelTests {
    /// 3,840 × 2,160 units at 11 units a mm (349 × 196 mm), 60 Hz.
    static let panel = DeviceDescription.multitouchPanel(name: "cheap", maxX: 3839, maxY: 2159, slots: 10, resolution: 11)
    static let frame: Int64 = 16_666_000
    static var config: Configuration {
        get throws {
            let path = Repository.root + "/examples/noisy-panel.toml"
            return try ConfigLoader.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        }
    }

    /// Frames of slot contacts (slot, tracking id, x, y): the events the kernel sends for them,
    /// each value only when it changed.
    static func recording(_ frames: [[(slot: Int32, id: Int32, x: Int32, y: Int32)]], start: Int64 = 0, period: Int64 = frame) -> Recording {
        var events: [InputEvent] = []
        var last: [Int32: (id: Int32, x: Int32, y: Int32)] = [:]
        var slot: Int32 = 0
        for (k, contacts) in frames.enumerated() {
            let t = Timestamp(nanoseconds: start + Int64(k) * period)
            func e(_ type: UInt16, _ code: UInt16, _ value: Int32) { events.append(InputEvent(time: t, type: type, code: code, value: value)) }
            func select(_ s: Int32) {
                if s != slot { e(3, Evdev.ABS_MT_SLOT, s) }
                slot = s
            }
            for (s, was) in last.sorted(by: { $0.key < $1.key }) where !contacts.contains(where: { $0.slot == s && $0.id == was.id }) {
                select(s)
                e(3, Evdev.ABS_MT_TRACKING_ID, -1)
                last[s] = nil
            }
            for c in contacts {
                let was = last[c.slot]
                if was?.id != c.id { select(c.slot); e(3, Evdev.ABS_MT_TRACKING_ID, c.id) }
                if was?.x != c.x || was?.id != c.id { select(c.slot); e(3, Evdev.ABS_MT_POSITION_X, c.x) }
                if was?.y != c.y || was?.id != c.id { select(c.slot); e(3, Evdev.ABS_MT_POSITION_Y, c.y) }
                last[c.slot] = (c.id, c.x, c.y)
            }
            e(0, 0, 0)
        }
        return Recording(description: panel, events: events)
    }

    /// What the virtual touchscreen shows: each frame's (tracking id, x) per slot, and the
    /// tracking ids it used.
    static func mirror(_ rec: Recording) throws -> (xs: [Int32], ids: Set<Int32>) {
        var replay = try MirrorReplay(description: panel, configuration: try config, path: "noisy")
        replay.play(rec.eventsLiftedAtEnd)
        let xs = replay.events.filter { $0.type == 3 && $0.code == Evdev.ABS_MT_POSITION_X }.map(\.value)
        let ids = Set(replay.events.filter { $0.type == 3 && $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }.map(\.value))
        return (xs, ids)
    }

    /// The mirror's events for `rec` under `configuration`.
    static func mirrorEvents(_ rec: Recording, configuration: Configuration) throws -> [InputEvent] {
        var replay = try MirrorReplay(description: panel, configuration: configuration, path: "noisy")
        replay.play(rec.eventsLiftedAtEnd)
        return replay.events
    }

    static func gestures(_ rec: Recording, configuration: Configuration? = nil) throws -> [String] {
        let lines = try DevicePipeline.lines(rec, description: panel, configuration: try configuration ?? config)
        return lines.split(separator: "\n").compactMap(FilteredGestureTests.name)
    }

    static func spread(_ v: [Int32]) -> Double {
        let d = v.map(Double.init), mean = d.reduce(0, +) / Double(d.count)
        return (d.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(d.count)).squareRoot()
    }

    @Test func aRestingFinger_isHeldStill_andIsOneLongPress() throws {
        var seed: UInt32 = 7
        let frames = (0..<120).map { _ -> [(slot: Int32, id: Int32, x: Int32, y: Int32)] in
            seed = seed &* 1_103_515_245 &+ 12345
            return [(0, 1, 1920 + Int32((seed >> 16) % 33) - 16, 1080)]  // ±1.5 mm
        }
        let rec = Self.recording(frames + [[]])
        let raw = frames.map { $0[0].x }
        let shown = try Self.mirror(rec)
        #expect(Self.spread(Array(shown.xs.dropFirst(3))) <= 0.4 * Self.spread(raw), "raw \(Self.spread(raw)), shown \(Self.spread(shown.xs))")
        let lines = try Self.gestures(rec).filter { !$0.hasSuffix(" changed") }
        #expect(lines == ["long_press began", "long_press ended"], "\(lines)")
    }

    @Test func aFastSwipe_endsOnTheMirrorNearWhereTheFingerLifted() throws {
        // 500 mm/s: 8.3 mm a frame, 92 units.
        let frames = (0..<20).map { k -> [(slot: Int32, id: Int32, x: Int32, y: Int32)] in [(0, 1, 400 + 92 * Int32(k), 1080)] }
        let shown = try Self.mirror(Self.recording(frames + [[]]))
        let last = try #require(shown.xs.last)
        #expect(Double(400 + 92 * 19 - last) / 11 <= 6, "\(Double(400 + 92 * 19 - last) / 11) mm short")
    }

    /// A flick on a 30 Hz panel: its landing, one report 17 mm on (500 mm/s), its lift. Shown
    /// where it landed (it was young, and moving), its held lift is shown where the finger
    /// lifted, to the gestures too: a pan and a swipe, as without the filters (a tap before,
    /// where it landed: the report before its last was its landing, no second report that way).
    @Test func aFlickOfOneReport_isASwipe_notATap() throws {
        let flick = [[(slot: Int32(0), id: Int32(1), x: Int32(3000), y: Int32(1080))], [(0, 1, 2817, 1080)], []]
        let rec = Self.recording(flick + Array(repeating: [], count: 10), start: 100_000_000, period: 33_333_333)
        let lines = try Self.gestures(rec).filter { !$0.hasSuffix(" changed") }
        #expect(lines.contains { $0.hasPrefix("swipe") } && !lines.contains { $0.hasPrefix("tap") }, "\(lines)")
        let last = try #require(try Self.mirror(rec).xs.last)
        #expect(abs(Double(last - 2817)) / 11 <= 6, "ends \(Double(last - 2817) / 11) mm from the lift")
    }

    /// A quick short drag (8 mm in 83 ms after a rest): the smoothing holds its path under the
    /// slops, but its held lift is shown where the finger lifted, to the gestures too, so it is a
    /// pan as without the filters (a tap before: a click where the user scrolled).
    @Test func aQuickShortDrag_isAPan_notATap() throws {
        let still = [(slot: Int32(0), id: Int32(1), x: Int32(1920), y: Int32(1080))]
        let moving = (1...5).map { k in [(slot: Int32(0), id: Int32(1), x: Int32(1920 + 18 * k), y: Int32(1080))] }
        let rec = Self.recording(Array(repeating: still, count: 4) + moving + Array(repeating: [], count: 30))
        let slops = try ConfigLoader.parse("[thresholds]\ntap_slop = 4\npan_slop = 4\n", file: "slops.toml")
        let plain = try Self.gestures(rec, configuration: slops)
        #expect(plain.contains("pan began") && !plain.contains("tap"), "without the filters: \(plain)")
        let filtered = try Self.gestures(rec)
        #expect(filtered.contains("pan began") && filtered.contains("pan ended") && !filtered.contains { $0.contains("tap") }, "\(filtered)")
    }

    /// A swipe that drops out for a report 67 ms after it landed, still speeding up (it came of
    /// age as a rest, the smoothing's speed estimate behind it): one contact and one swipe for
    /// everyone, ending on the mirror where the finger lifted (a tap and a swipe, two contacts,
    /// before: a click where the user swiped).
    @Test func aSwipeDroppingOutAsItSetsOff_isOneSwipe_noTap() throws {
        try Self.expectOneSwipe([(1, 2600), (1, 2590), (1, 2540), (1, 2450), nil, (2, 2270), (2, 2180), (2, 2090), (2, 2000)])
    }

    /// A one-finger swipe along y = 1080 (`nil`: a frame with nothing down) that drops out: one
    /// contact on the mirror, ending where the finger lifted, and a swipe with no tap.
    static func expectOneSwipe(_ path: [(id: Int32, x: Int32)?]) throws {
        let frames = path.map { p in p.map { [(slot: Int32(0), id: $0.id, x: $0.x, y: Int32(1080))] } ?? [] }
        let rec = Self.recording(frames + Array(repeating: [], count: 30))
        let shown = try Self.mirror(rec)
        #expect(shown.ids.count == 1, "\(shown.ids)")
        let last = try #require(shown.xs.last), lifted = try #require(path.last??.x)
        #expect(abs(last - lifted) <= 1, "the mirror's swipe ends at \(last), the finger lifted at \(lifted)")
        let gestures = try Self.gestures(rec)
        #expect(gestures.contains("swipe") && !gestures.contains { $0.contains("tap") }, "\(gestures)")
    }

    /// A swipe still speeding up when it drops out, 33 ms after it landed (8.5 mm at 257 mm/s
    /// over its reports, 600 mm/s by then): it lands again 20 mm on, 11.5 mm past where its speed
    /// puts it, ahead on its line. One contact and one swipe for everyone (two contacts before).
    @Test func aSwipeSpeedingUpAsItDropsOut_isOneSwipe() throws {
        try Self.expectOneSwipe([(1, 1000), (1, 1022), (1, 1094), nil, (2, 1314), (2, 1446), (2, 1578), (2, 1710), (2, 1842)])
    }

    /// A 500 mm/s swipe along an arc (a thumb's: radius 60 or 100 mm, either way round) that
    /// drops out for one report mid-way, on a 30 and a 60 Hz panel: one contact on the mirror and
    /// one pan for the gestures, no tap (two contacts before: the landing lay up to 11 mm off the
    /// straight line its speed predicted).
    @Test(arguments: [60.0, 100.0], [30.0, 60.0])
    func aCurvedSwipeDroppingOut_isOneContact(radius: Double, hertz: Double) throws {
        for turn in [1.0, -1.0] {
            let period = 1 / hertz, n = Int(0.4 / period), drop = n / 2
            let frames: [Contacts] = (0..<n).map { k in
                guard k != drop else { return [] }
                // 11 units a mm; centred on the panel, so the arc stays on it.
                let angle = turn * 500 * Double(k) * period / radius
                let x = 174.5 + radius * cos(angle), y = 98 + radius * sin(angle)
                return [(slot: 0, id: k < drop ? 1 : 2, x: Int32(x * 11), y: Int32(y * 11))]
            }
            let rec = Self.recording(frames + Array(repeating: [], count: 30), period: Int64(period * 1e9))
            let what = "radius \(radius) mm, \(hertz) Hz, turning \(turn)"
            #expect(try Self.mirror(rec).ids.count == 1, "\(what)")
            let gestures = try Self.gestures(rec)
            #expect(gestures.filter { $0 == "pan began" }.count == 1 && !gestures.contains { $0.contains("tap") }, "\(what): \(gestures)")
        }
    }

    /// A two-finger swipe (20 mm apart, 550 mm/s, 30 Hz) whose fingers drop out together for a
    /// report and land again in each other's slots: each goes on as itself on the mirror (its
    /// tracking id never jumps to the other's line), as a straight swipe's do.
    @Test func twoFingersDroppingOutTogether_landingSwapped_keepTheirIds() throws {
        let period = 1.0 / 30, drop = 6
        let frames: [Contacts] = (0..<12).map { k in
            guard k != drop else { return [] }
            let x = Int32((40 + 550 * Double(k) * period) * 11)
            let (a, b): (Int32, Int32) = k < drop ? (0, 1) : (1, 0)
            return [(slot: a, id: k < drop ? 1 : 3, x: x, y: 1080), (slot: b, id: k < drop ? 2 : 4, x: x, y: 1300)].sorted { $0.slot < $1.slot }
        }
        let events = try Self.mirrorEvents(Self.recording(frames + Array(repeating: [], count: 30), period: Int64(period * 1e9)), configuration: try Self.config)
        var slot: Int32 = 0, ids: [Int32: Int32] = [:], ys: [Int32: [Int32]] = [:]
        for e in events where e.type == 3 {
            switch e.code {
            case Evdev.ABS_MT_SLOT: slot = e.value
            case Evdev.ABS_MT_TRACKING_ID: ids[slot] = e.value
            case Evdev.ABS_MT_POSITION_Y: if let id = ids[slot], id >= 0 { ys[id, default: []].append(e.value) }
            default: break
            }
        }
        for (id, line) in ys { #expect(line.max()! - line.min()! < 110, "tracking id \(id) moved between \(line.min()!) and \(line.max()!)") }
    }

    /// Two fingers (`x` and `y` in mm a frame, nil: the frame they drop out in, together) as
    /// contacts of this panel, from 0.3 s: ids 1 and 2, then 3 and 4 after the dropout.
    static func twoFingers(_ a: [(x: Double, y: Double)?], _ b: [(x: Double, y: Double)?]) -> Recording {
        let drop = a.firstIndex { $0 == nil } ?? a.count
        let frames: [Contacts] = zip(a, b).enumerated().map { k, pair in
            guard let p = pair.0, let q = pair.1 else { return [] }
            let id: Int32 = k < drop ? 1 : 3
            return [(slot: 0, id: id, x: Int32(p.x * 11), y: Int32(p.y * 11)), (slot: 1, id: id + 1, x: Int32(q.x * 11), y: Int32(q.y * 11))]
        }
        return Self.recording(frames + Array(repeating: [], count: 30), start: 300_000_000)
    }

    /// A two-finger swipe (500 mm/s, 60 Hz, 30 mm apart, ±1.5 mm of noise) whose fingers drop
    /// out together one report after they landed: one finger's two reports lie 9.8 mm apart, the
    /// other's 7.5, too few to call it moving. Both are carried on at the hand's mean speed: two
    /// contacts on the mirror, and a swipe with no pinch (a third contact and a pinch before).
    @Test func twoFingersDroppingOutAsTheySetOff_areOneSwipe_noPinch() throws {
        let a: [(x: Double, y: Double)?] = [
            (59.2, 50.1), (68.9, 48.7), nil, (85.0, 49.2), (95.3, 49.9), (103.3, 51.1), (111.9, 48.7), (119.4, 48.6), (129.2, 51.1),
            (136.8, 50.9), (146.9, 48.8), (155.7, 49.8), (162.9, 49.7), (171.7, 51.2), (181.1, 51.5),
        ]
        let b: [(x: Double, y: Double)?] = [
            (59.6, 80.3), (67.1, 81.0), nil, (87.2, 79.9), (94.7, 78.9), (102.9, 80.7), (112.2, 80.3), (121.1, 79.9), (129.2, 81.3),
            (137.0, 81.3), (144.6, 79.1), (154.7, 79.4), (162.4, 80.3), (172.0, 81.3), (180.5, 79.0),
        ]
        let rec = Self.twoFingers(a, b)
        #expect(try Self.mirror(rec).ids.count == 2)
        let gestures = try Self.gestures(rec)
        #expect(gestures.contains("swipe") && !gestures.contains { $0.hasPrefix("pinch") }, "\(gestures)")
    }

    /// A tester's recording (60 Hz, ±1.5 mm of noise), its contacts on the mirror and its
    /// gestures with examples/noisy-panel.toml.
    static func fixture(_ name: String) throws -> (ids: Int, gestures: [String]) {
        let path = Repository.fixtures + "/" + name
        let rec = try Evemu.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        let panel = try #require(rec.description)
        var replay = try MirrorReplay(description: panel, configuration: try Self.config, path: path)
        replay.play(rec.eventsLiftedAtEnd)
        let landings = replay.events.filter { $0.type == 3 && $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value >= 0 }
        let lines = try DevicePipeline.lines(rec, description: panel, configuration: try Self.config)
        return (Set(landings.map(\.value)).count, lines.split(separator: "\n").compactMap(FilteredGestureTests.name))
    }

    /// A finger resting on a key lifts in the same report as a scrolling finger beside it (120
    /// mm/s) ends, and the next key's finger lands 12 mm on, the scroll's way, two reports later:
    /// a tap of its own, not the resting finger's bounce (carried at the hand's speed, its noise
    /// pointing that way, it took the tap: two contacts where there were three, and a swipe).
    @Test func aRestingKeysFingerLiftingWithAScroll_leavesTheNextKeysTap() throws {
        let (ids, gestures) = try Self.fixture("noisy-key-beside-scroll.events")
        #expect(ids == 3)
        #expect(gestures.contains("tap") && !gestures.contains("swipe"), "\(gestures)")
    }

    /// Two fingers swiping (500 mm/s) beside a resting one, all three dropping out in one report
    /// for two reports: the swiping fingers land again where their own speed puts them, one
    /// contact each (the resting finger's noise counted into the hand's mean slowed them, and
    /// one came back as a new contact).
    @Test func aRestingFingerBesideASwipe_leavesTheSwipingFingersTheirSpeed() throws {
        let (ids, gestures) = try Self.fixture("noisy-rest-beside-swipe.events")
        #expect(ids == 3)
        #expect(gestures.filter { $0 == "swipe" }.count == 1, "\(gestures)")
    }

    /// A pinch whose fingers (moving apart, 300 mm/s each) drop out together: each is carried on
    /// at its own speed, not at the hand's (about none): two contacts and a pinch.
    @Test func aPinchDroppingOut_keepsEachFingersOwnWay() throws {
        func finger(_ x: Double, _ way: Double) -> [(x: Double, y: Double)?] {
            (0..<10).map { k in k == 3 ? nil : (x: x + way * 5 * Double(k), y: 100) }
        }
        let rec = Self.twoFingers(finger(150, -1), finger(200, 1))
        #expect(try Self.mirror(rec).ids.count == 2)
        #expect(try Self.gestures(rec).contains("pinch began"))
    }

    @Test func aChatteringTap_isOneTouch_andOneTap() throws {
        let down = [(slot: Int32(0), id: Int32(1), x: Int32(1920), y: Int32(1080))]
        let again = [(slot: Int32(0), id: Int32(2), x: Int32(1924), y: Int32(1082))]
        let rec = Self.recording([down, down, down, [], again, again] + Array(repeating: [], count: 30))
        #expect(try Self.mirror(rec).ids.count == 1)
        #expect(try Self.gestures(rec) == ["tap"])
    }

    /// A bounce the panel puts in another slot (a driver that slots a contact by its controller's
    /// id, which may change at a bounce), above or below the first, a frame after the lift or in
    /// the lift's own frame, with another finger resting elsewhere or not: one touch, one tap.
    @Test func aChatteringTapInAnotherSlot_isOneTouch_andOneTap() throws {
        let rest = (slot: Int32(3), id: Int32(9), x: Int32(300), y: Int32(300))
        for (first, second) in [(Int32(0), Int32(1)), (Int32(2), Int32(0))] {
            for sameFrame in [false, true] {
                for others in [[], [rest]] {
                    func rec(_ again: Int32) -> Recording {
                        let down = others + [(slot: first, id: Int32(1), x: Int32(1920), y: Int32(1080))]
                        let landed = others + [(slot: again, id: Int32(2), x: Int32(1924), y: Int32(1082))]
                        let gap: [Contacts] = sameFrame && again != first ? [] : [others]
                        return Self.recording([down, down, down] + gap + Array(repeating: landed, count: 4) + [others] + Array(repeating: [], count: 30))
                    }
                    let what = "slot \(first) to \(second), same frame \(sameFrame), others \(others.count)"
                    #expect(try Self.mirror(rec(second)).ids.count == 1 + others.count, "\(what)")
                    // As the same bounce in its own slot a frame later: a tap (beside a resting
                    // finger, what the gestures make of two fingers).
                    let lines = try Self.gestures(rec(second)), sameSlot = try Self.gestures(rec(first))
                    #expect(lines == sameSlot, "\(what): \(lines)")
                    #expect(!others.isEmpty || lines == ["tap"], "\(what): \(lines)")
                }
            }
        }
    }

    /// A bounce into another slot while a new finger takes the bounced one's slot, and two
    /// fingers bouncing at once into each other's slots: as the same bounces in their own slots
    /// (the same gestures, one contact a finger on the mirror).
    @Test func bouncesAcrossSlots_whileTheSlotsAreTaken_areTheSameFingers() throws {
        typealias C = (slot: Int32, id: Int32, x: Int32, y: Int32)
        func rec(_ before: [C], _ after: [C]) -> Recording {
            Self.recording([before, before, before, []] + Array(repeating: after, count: 4) + Array(repeating: [], count: 30))
        }
        // A far finger lands in slot 0 as the bounce lands in slot 1.
        let a = (slot: Int32(0), id: Int32(1), x: Int32(1920), y: Int32(1080))
        let far: C = (slot: 0, id: 3, x: 3000, y: 1500), bounce: C = (slot: 1, id: 2, x: 1924, y: 1082)
        let taken = rec([a], [far, bounce])
        let own = rec([a], [(slot: 1, id: 3, x: 3000, y: 1500), (slot: 0, id: 2, x: 1924, y: 1082)])
        #expect(try Self.mirror(taken).ids.count == 2)
        #expect(try Self.gestures(taken) == Self.gestures(own))
        // Two fingers 30 mm apart land again swapped, each 1.5 mm from where it left.
        let two: [C] = [(slot: 0, id: 1, x: 1920, y: 1080), (slot: 1, id: 2, x: 2250, y: 1080)]
        let swapped = rec(two, [(slot: 0, id: 3, x: 2266, y: 1080), (slot: 1, id: 4, x: 1936, y: 1080)])
        let same = rec(two, [(slot: 0, id: 3, x: 1936, y: 1080), (slot: 1, id: 4, x: 2266, y: 1080)])
        #expect(try Self.mirror(swapped).ids.count == 2)
        let lines = try Self.gestures(swapped)
        #expect(lines == (try Self.gestures(same)) && lines.filter { $0.contains("tap") }.count == 1, "\(lines)")
    }

    @Test func oneFrameGhosts_areNoTouch_andNoGesture() throws {
        var ghosts: [Contacts] = []
        for k in Int32(0)..<5 {
            ghosts.append([(slot: 0, id: k + 1, x: 300 + 500 * k, y: 700)])
            ghosts += Array(repeating: [], count: 30)
        }
        let rec = Self.recording(ghosts)
        #expect(try Self.mirror(rec).ids.isEmpty)
        #expect(try Self.gestures(rec).isEmpty)
    }

    @Test func aStuckContact_isEnded_andATapBesideItIsATap() throws {
        let stuck = (slot: Int32(0), id: Int32(1), x: Int32(100), y: Int32(100))
        let tap = (slot: Int32(1), id: Int32(2), x: Int32(1920), y: Int32(1080))
        // Stuck for 6 s (silent: the kernel sends nothing for it), then a tap beside it.
        var frames: [[(slot: Int32, id: Int32, x: Int32, y: Int32)]] = [[stuck]]
        frames += Array(repeating: [stuck], count: 360)
        frames += Array(repeating: [stuck, tap], count: 5) + Array(repeating: [stuck], count: 30)
        let rec = Self.recording(frames)
        let lines = try Self.gestures(rec)
        #expect(lines.contains("tap"), "\(lines)")
        // On the mirror it ends as `[device] cancel` says: a palm first (libinput's TOUCH_CANCEL)
        // with "palm", a plain lift with the default "lift"; each once, before the tap lands.
        func palms(_ cancel: MirrorCancel) throws -> [Int32] {
            var c = try Self.config
            c.daemon.cancel = cancel
            let events = try Self.mirrorEvents(rec, configuration: c)
            let lift = try #require(events.firstIndex { $0.type == 3 && $0.code == Evdev.ABS_MT_TRACKING_ID && $0.value == -1 })
            #expect(events[lift].time.nanoseconds >= 5_000_000_000, "\(cancel): ended after stuck_after")
            return events[..<lift].filter { $0.type == 3 && $0.code == Evdev.ABS_MT_TOOL_TYPE }.map(\.value)
        }
        #expect(try palms(.palm) == [Evdev.MT_TOOL_PALM])
        #expect(try palms(.lift).isEmpty)
        var unfiltered = try Self.config
        unfiltered.geometry.filters.stuckAfterNs = nil
        let before = try Self.gestures(rec, configuration: unfiltered)
        #expect(!before.contains("tap"), "without the stuck filter the tap is lost: \(before)")
    }
}
