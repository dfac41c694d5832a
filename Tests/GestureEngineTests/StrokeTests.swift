import TestSupport
import Testing

@testable import GestureEngine

/// Shapes drawn by a scripted hand (one pixel is one millimetre here): a Z and a circle at other
/// sizes, places, speeds, tilts and with jitter are their shapes; taps, pans, swipes and arcs are
/// none; two fingers drawing a Z cost a one-finger scroll beside it nothing.
@Suite struct StrokeTests {
    static let zPolyline: [(Double, Double)] = [(0, 0), (1, 0), (0, 1), (1, 1)]

    /// Points along a polyline of the unit square, `n` of them evenly spaced.
    static func along(_ poly: [(Double, Double)], _ n: Int) -> [(Double, Double)] {
        var lengths: [Double] = []
        for i in 1..<poly.count {
            let dx = poly[i].0 - poly[i - 1].0, dy = poly[i].1 - poly[i - 1].1
            lengths.append((dx * dx + dy * dy).squareRoot())
        }
        let total = lengths.reduce(0, +)
        return (0..<n).map { k in
            var d = total * Double(k) / Double(n - 1)
            var i = 0
            while i < lengths.count - 1 && d > lengths[i] {
                d -= lengths[i]
                i += 1
            }
            let u = lengths[i] > 0 ? min(1, d / lengths[i]) : 0
            return (poly[i].0 + (poly[i + 1].0 - poly[i].0) * u, poly[i].1 + (poly[i + 1].1 - poly[i].1) * u)
        }
    }

    /// A circle in the unit square, from its rightmost point, clockwise on screen (or not).
    static func circle(clockwise: Bool) -> [(Double, Double)] {
        (0...48).map { k in
            let (c, s) = Angle.cosineAndSine(2 * Angle.pi * Double(k) / 48)
            return (0.5 + 0.5 * c, 0.5 + 0.5 * (clockwise ? s : -s))
        }
    }

    /// A hand drawing `poly` with `fingers` fingers: `size` mm across, centred at `at`, tilted by
    /// `tilt` radians, over `frames` frames of `frameMs`, each point off by up to `jitter` mm.
    static func draw(
        _ t: inout Timeline, _ poly: [(Double, Double)], size: Double, at: (Double, Double) = (500, 500), tilt: Double = 0,
        frames: Int = 60, frameMs: Int64 = 16, jitter: Double = 0, fingers: Int = 1, rng: inout SplitMix64
    ) {
        let (c, s) = Angle.cosineAndSine(tilt)
        let points = along(poly, frames).map { p -> (Double, Double) in
            let x = (p.0 - 0.5) * size, y = (p.1 - 0.5) * size
            return (at.0 + x * c - y * s + rng.jitter(jitter), at.1 + x * s + y * c + rng.jitter(jitter))
        }
        t.down((0..<fingers).map { k in (UInt32(k + 1), (points[0].0 + Double(k) * 15, points[0].1)) })
        for p in points.dropFirst() {
            t.wait(.milliseconds(frameMs))
            for k in t.contacts.indices { t.contacts[k].position = PixelPoint(x: p.0 + Double(k) * 15, y: p.1) }
            t.send()
        }
        t.upAll()
    }

    static func zTemplate() -> StrokeTemplate {
        StrokeTemplate(name: "z", path: along(zPolyline, 100).map { StrokePoint(x: $0.0 * 50, y: $0.1 * 50) })!
    }

    static func timeline(_ gestures: [GestureSpec], templates: [StrokeTemplate] = [zTemplate()]) -> Timeline {
        var t = Timeline(EngineConfiguration(
            screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000), regions: [RegionSpec(name: "all", gestures: gestures)],
            strokes: templates))
        t.engine.transitionLog = []
        return t
    }

    static func shapes(_ t: Timeline) -> [String] {
        t.events.filter { $0.kind == .stroke }.map { t.engine.configuration.shapeNames[$0.shape] }
    }

    @Test func aZ_atOtherSizesPlacesSpeedsAndTilts_withJitter_isTheZ() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<60 {
            var t = Self.timeline([GestureSpec(.stroke)])
            let size = Double.random(in: 25...150, using: &rng)
            let frames = Int(Double.random(in: 20...200, using: &rng))
            Self.draw(
                &t, Self.zPolyline, size: size, at: (Double.random(in: 200...800, using: &rng), Double.random(in: 200...800, using: &rng)), tilt: Double.random(in: -0.5...0.5, using: &rng),
                frames: frames, frameMs: Int64(Double.random(in: 5...min(20, 4800 / Double(frames)), using: &rng)), jitter: size / 60, rng: &rng)
            #expect(Self.shapes(t) == ["z"], "size \(size) frames \(frames): \(t.engine.transitionLog?.last.map { "\($0.reason.map(String.init(describing:)) ?? "")" } ?? "")")
            #expect(t.events.first.map { $0.score > 0.9 } ?? false)
        }
    }

    @Test func aCircle_eitherWayRound_isTheBuiltInCircle_andSaysWhichWay() {
        var rng = SplitMix64(seed: 3)
        for clockwise in [true, false] {
            var t = Self.timeline([GestureSpec(.stroke)], templates: [])
            Self.draw(&t, Self.circle(clockwise: clockwise), size: 60, frames: 50, jitter: 0.5, rng: &rng)
            #expect(Self.shapes(t) == ["circle"])
            #expect(t.events.first?.clockwise == clockwise)
        }
    }

    @Test func taps_pans_swipesAndArcs_areNoShape() {
        var rng = SplitMix64(seed: 11)
        for k in 0..<80 {
            var t = Self.timeline([GestureSpec(.stroke)])
            let bow = [0, 0.05, -0.1, 0.2, -0.3][k % 5]
            let line = (0...20).map { i -> (Double, Double) in
                let u = Double(i) / 20
                return (u, 0.5 + bow * 4 * u * (1 - u))
            }
            let frames = k % 4 == 0 ? 6 : 40  // a flick, or a drag
            Self.draw(&t, line, size: Double.random(in: 30...200, using: &rng), tilt: Double.random(in: -3.1...3.1, using: &rng), frames: frames, jitter: 0.3, rng: &rng)
            #expect(Self.shapes(t).isEmpty, "bow \(bow): \(t.events)")
        }
        var tap = Self.timeline([GestureSpec(.stroke)])
        Self.draw(&tap, [(0, 0), (0.02, 0.01)], size: 100, frames: 5, rng: &rng)
        #expect(tap.events.isEmpty)
        #expect(tap.engine.transitionLog?.last?.reason == .tooSmall)
    }

    @Test func strokeMinSize_justUnder_fails_justOver_isTheShape() {
        var rng = SplitMix64(seed: 1)
        var spec = GestureSpec(.stroke)
        spec.thresholds.strokeMinSize = 30
        // A Z `size` wide and high is size·√2 across.
        for (size, shape) in [(30 / 2.0.squareRoot() - 0.5, false), (30 / 2.0.squareRoot() + 0.5, true)] {
            var t = Self.timeline([spec])
            Self.draw(&t, Self.zPolyline, size: size, rng: &rng)
            #expect(Self.shapes(t) == (shape ? ["z"] : []), "size \(size)")
        }
    }

    /// The score of a Z drawn with `spec`'s thresholds at `tilt` (nil: no shape).
    static func score(_ spec: GestureSpec, tilt: Double = 0, frames: Int = 60, frameMs: Int64 = 16, jitter: Double = 0, seed: UInt64 = 1) -> Double? {
        var rng = SplitMix64(seed: seed)
        var t = timeline([spec])
        draw(&t, zPolyline, size: 60, tilt: tilt, frames: frames, frameMs: frameMs, jitter: jitter, rng: &rng)
        return t.events.first { $0.kind == .stroke }?.score
    }

    @Test func strokeMinScore_justUnder_isTheShape_justOver_isNot() throws {
        var loose = GestureSpec(.stroke)
        loose.thresholds.strokeMinScore = 0.5
        let s = try #require(Self.score(loose, tilt: 0.3, jitter: 3, seed: 8))
        var under = loose, over = loose
        under.thresholds.strokeMinScore = s - 0.001
        over.thresholds.strokeMinScore = s + 0.001
        #expect(Self.score(under, tilt: 0.3, jitter: 3, seed: 8) == s)
        #expect(Self.score(over, tilt: 0.3, jitter: 3, seed: 8) == nil)
    }

    @Test func strokeMaxDuration_justUnder_isTheShape_justOver_fails() {
        var spec = GestureSpec(.stroke)
        spec.thresholds.strokeMaxDuration = .seconds(2)
        // The lift comes with the last frame: frames − 1 steps of 20 ms after the landing.
        #expect(Self.score(spec, frames: 99, frameMs: 20) != nil)  // lifted at 1.96 s
        #expect(Self.score(spec, frames: 102, frameMs: 20) == nil)  // 2.02 s: failed at 2 s
    }

    /// Within `stroke_rotation_tolerance` a tilt costs nothing; beyond it the excess does.
    @Test func strokeRotationTolerance_aTiltWithin_costsNothing_beyond_theExcessDoes() throws {
        var spec = GestureSpec(.stroke)
        spec.thresholds.strokeMinScore = 0.5
        let straight = try #require(Self.score(spec))
        let within = try #require(Self.score(spec, tilt: 55 * Angle.pi / 180))
        let beyond = try #require(Self.score(spec, tilt: 75 * Angle.pi / 180))
        #expect(abs(within - straight) < 0.005)
        #expect(beyond < straight - 0.02)
    }

    @Test func shapes_aDrawingMoreLikeAShapeNotTaken_fails_ratherThanPassingForOneTaken() {
        var rng = SplitMix64(seed: 12)
        var spec = GestureSpec(.stroke)
        spec.shapes = ["z"]
        var t = Self.timeline([spec])
        Self.draw(&t, Self.circle(clockwise: true), size: 60, rng: &rng)
        #expect(t.events.isEmpty)
        #expect(t.engine.transitionLog?.last?.reason == .noShape)
    }

    /// A stroke in a region nested in another's pan: the pan begins at its slop as it would alone.
    @Test func aStrokeInAnInnerRegion_holdsUpNoGestureOfTheRegionAroundIt() {
        let screen = PixelRect(x: 0, y: 0, width: 1000, height: 1000)
        func pan(withInnerStroke: Bool) -> Double? {
            var regions = [RegionSpec(name: "outer", gestures: [GestureSpec(.pan), GestureSpec(.longPress)])]
            if withInnerStroke { regions.append(RegionSpec(name: "inner", rect: rect(200, 200, 400, 400), gestures: [GestureSpec(.stroke)])) }
            var t = Timeline(EngineConfiguration(screen: screen, regions: regions))
            t.down(1, at: (300, 300))
            t.drag(1, by: (0, 100), over: .milliseconds(300), steps: 20)
            t.upAll()
            return t.at(t.event("pan", .began))
        }
        #expect(pan(withInnerStroke: true) != nil)
        #expect(pan(withInnerStroke: true) == pan(withInnerStroke: false))
    }

    /// A stroke bound to an action (a system gesture) over a client's region: the client's pan
    /// begins at its slop as without it, and the shape drawn there still fires at the lift.
    @Test func aSystemStroke_runsWithAClientsGestures_holdingNoneOfThem() {
        let screen = PixelRect(x: 0, y: 0, width: 1000, height: 1000)
        func play(stroke: Bool, _ script: (inout Timeline) -> Void) -> Timeline {
            var system = GestureSpec(.stroke, name: "admin")
            system.outranksClients = true
            var client = RegionSpec(name: "app", rect: rect(100, 100, 800, 800), gestures: [GestureSpec(.pan)])
            client.fromClient = true
            var t = Timeline(EngineConfiguration(
                screen: screen, regions: [RegionSpec(name: "screen", gestures: stroke ? [system] : []), client]))
            script(&t)
            return t
        }
        let scroll: (inout Timeline) -> Void = { t in
            t.down(1, at: (500, 300))
            t.drag(1, by: (0, 200), over: .milliseconds(400), steps: 25)
            t.upAll()
        }
        let with = play(stroke: true, scroll), without = play(stroke: false, scroll)
        #expect(with.at(with.event("pan", .began)) == without.at(without.event("pan", .began)))
        var rng = SplitMix64(seed: 13)
        let circle = play(stroke: true) { t in Self.draw(&t, Self.circle(clockwise: true), size: 80, rng: &rng) }
        #expect(circle.event("admin", .recognized) != nil)
        #expect(circle.event("pan", .began) != nil)
    }

    @Test func rotation_withinTheTolerance_matches_beyondIt_onlyAnInvariantTemplate() {
        var rng = SplitMix64(seed: 5)
        for (tilt, invariant, matches) in [(0.6, false, true), (2.6, false, false), (2.6, true, true)] {
            var z = Self.zTemplate()
            z.rotationInvariant = invariant
            var t = Self.timeline([GestureSpec(.stroke)], templates: [z])
            Self.draw(&t, Self.zPolyline, size: 60, tilt: tilt, rng: &rng)
            #expect(Self.shapes(t) == (matches ? ["z"] : []), "tilt \(tilt) invariant \(invariant)")
        }
    }

    /// A Z turned a quarter is an N: with an N taught, it is the N (turned 0°), not the Z (turned 30° past the tolerance).
    @Test func aZTurnedAQuarter_isTheNWhenAnNIsTaught() {
        var rng = SplitMix64(seed: 5)
        let n = StrokeTemplate(name: "n", path: Self.along(Self.zPolyline, 100).map { StrokePoint(x: 50 - $0.1 * 50, y: $0.0 * 50) })!
        var t = Self.timeline([GestureSpec(.stroke)], templates: [Self.zTemplate(), n])
        Self.draw(&t, Self.zPolyline, size: 60, tilt: 1.57, rng: &rng)
        #expect(Self.shapes(t) == ["n"])
    }

    @Test func strokeMaxDuration_aSlowerStroke_fails() {
        var rng = SplitMix64(seed: 2)
        var t = Self.timeline([GestureSpec(.stroke)])
        Self.draw(&t, Self.zPolyline, size: 60, frames: 300, frameMs: 20, rng: &rng)  // 6 s
        #expect(Self.shapes(t).isEmpty)
        #expect(t.engine.transitionLog?.contains { $0.reason == .tooSlow } == true)
    }

    /// A path thinned (past `StrokePath`'s capacity) scores as the whole one would.
    @Test func aLongStroke_pastThePathsCapacity_scoresAsAShortOne() throws {
        let long = try #require(Self.score(GestureSpec(.stroke), frames: 1000, frameMs: 2))
        let short = try #require(Self.score(GestureSpec(.stroke), frames: 200, frameMs: 10))
        #expect(abs(long - short) < 0.002)
    }

    /// The example of docs/CONFIG.md: a list's one-finger scroll and a two-finger Z in one region.
    @Test func aTwoFingerZ_besideAOneFingerScroll_costsTheScrollNothing() {
        var rng = SplitMix64(seed: 9)
        var pan = GestureSpec(.pan)
        pan.axis = .vertical
        let z = GestureSpec(.stroke, name: "admin_z", fingers: 2)
        var scroll = Self.timeline([pan, z])
        scroll.down(1, at: (500, 300))
        scroll.drag(1, by: (0, 200), over: .milliseconds(400), steps: 25)
        scroll.upAll()
        var alone = Self.timeline([pan])
        alone.down(1, at: (500, 300))
        alone.drag(1, by: (0, 200), over: .milliseconds(400), steps: 25)
        alone.upAll()
        #expect(scroll.at(scroll.event("pan", .began)) == alone.at(alone.event("pan", .began)))
        #expect(scroll.at(scroll.event("pan", .began)) != nil)

        var drawn = Self.timeline([pan, z])
        Self.draw(&drawn, Self.zPolyline, size: 70, fingers: 2, rng: &rng)
        #expect(Self.shapes(drawn) == ["z"])
        #expect(drawn.events.first?.fingers == 2)
        #expect(drawn.event("pan", .began) == nil)
    }

    /// A swipe that waits for the stroke: a quick circle is the circle, a flick the swipe, both at the lift.
    @Test func aSwipeWaitingForAStroke_firesAtTheSameLift_whenTheStrokeIsNoShape() {
        var rng = SplitMix64(seed: 6)
        var swipe = GestureSpec(.swipe)
        swipe.requiresFailureOf = ["stroke"]
        var circle = Self.timeline([swipe, GestureSpec(.stroke)], templates: [])
        Self.draw(&circle, Self.circle(clockwise: false), size: 60, frames: 20, frameMs: 10, rng: &rng)
        #expect(Self.shapes(circle) == ["circle"])
        #expect(circle.event("swipe", .recognized) == nil)
        var flick = Self.timeline([swipe, GestureSpec(.stroke)], templates: [])
        Self.draw(&flick, [(0, 0.5), (1, 0.5)], size: 60, frames: 8, frameMs: 10, rng: &rng)
        #expect(Self.shapes(flick).isEmpty)
        #expect(flick.at(flick.event("swipe", .recognized)) == flick.elapsed)
    }

    @Test func normalize_ignoresPlaceAndSize_andSpacing() {
        let a = Self.along(Self.zPolyline, 40).map { StrokePoint(x: $0.0 * 10, y: $0.1 * 10) }
        let b = Self.along(Self.zPolyline, 300).map { StrokePoint(x: 400 + $0.0 * 90, y: 70 + $0.1 * 90) }
        let va = StrokeShape.normalized(a)!, vb = StrokeShape.normalized(b)!
        #expect(va.count == StrokeShape.vectorLength)
        #expect(StrokeTemplate.isNormalized(va))
        // The same vector but for where resampling cuts the corners of the sparser path.
        #expect(zip(va, vb).reduce(0) { $0 + $1.0 * $1.1 } > 0.999)
        #expect(StrokeShape.normalized([StrokePoint(x: 1, y: 1), StrokePoint(x: 1, y: 1)]) == nil)
    }
}

/// Timelines that take every row of the stroke's table.
extension TargetedTimelines {
    static func strokes() -> [(GestureKind, [Transition])] {
        var rng = SplitMix64(seed: 1)
        let two = GestureSpec(.stroke, fingers: 2)
        let three = GestureSpec(.stroke, fingers: 3)
        var behind = GestureSpec(.stroke)
        behind.requiresFailureOf = ["slow"]
        var out: [(GestureKind, [Transition])] = []
        // A finger replaced and one lifting on the way.
        // Recognized (the built-in circle), and no shape (a Z, with no Z template here).
        out.append(rows(.stroke, play([GestureSpec(.stroke)]) { t in
            StrokeTests.draw(&t, StrokeTests.circle(clockwise: true), size: 60, rng: &rng)
        }))
        out.append(rows(.stroke, play([GestureSpec(.stroke)]) { t in
            StrokeTests.draw(&t, StrokeTests.zPolyline, size: 60, rng: &rng)
        }))
        out.append(rows(.stroke, play([two]) { t in
            t.down(1, at: (400, 400))
            t.down(2, at: (420, 400))
            t.dragAll(by: (0, 40), over: .milliseconds(100))
            t.contacts.removeAll { $0.id == 2 }
            t.contacts.append(Contact(id: 3, position: PixelPoint(x: 430, y: 440)))
            t.send()
            t.up(1)
            t.upAll()
        }))
        // Too many fingers landing at once, and a third landing on two.
        out.append(rows(.stroke, play([two]) { t in t.down([(1, (400, 400)), (2, (420, 400)), (3, (440, 400))]); t.upAll() }))
        out.append(rows(.stroke, play([two]) { t in t.down([(1, (400, 400)), (2, (420, 400))]); t.down(3, at: (440, 400)); t.upAll() }))
        // Too few fingers: moved a pan's slop, a slop moved as a finger is replaced, or the settle deadline.
        out.append(rows(.stroke, play([two]) { t in t.down(1, at: (400, 400)); t.drag(1, by: (20, 0), over: .milliseconds(50)); t.upAll() }))
        out.append(rows(.stroke, play([three]) { t in
            t.down([(1, (400, 400)), (2, (420, 400))])
            t.contacts.removeAll { $0.id == 2 }
            t.contacts[0].position.x += 10
            t.contacts.append(Contact(id: 3, position: PixelPoint(x: 440, y: 400)))
            t.send()
            t.upAll()
        }))
        out.append(rows(.stroke, play([two]) { t in t.down(1, at: (400, 400)); t.wait(.milliseconds(300)); t.upAll() }))
        // Ready, then beaten by a slow tap it waits on; rejected while tracking by a pan.
        out.append(rows(.stroke, play([TargetedTimelines.slowTap(fingers: 1), behind]) { t in
            StrokeTests.draw(&t, StrokeTests.circle(clockwise: true), size: 60, rng: &rng)
        }))
        out.append(rows(.stroke, play([GestureSpec(.pan), GestureSpec(.stroke)]) { t in
            t.down(1, at: (400, 400))
            t.drag(1, by: (40, 0), over: .milliseconds(100))
            t.upAll()
        }))
        return out
    }
}

extension SplitMix64 {
    /// A number in -r...r.
    mutating func jitter(_ r: Double) -> Double { r > 0 ? Double.random(in: -r...r, using: &self) : 0 }
}
