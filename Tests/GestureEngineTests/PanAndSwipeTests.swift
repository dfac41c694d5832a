import Foundation
import Testing

@testable import GestureEngine

@Suite struct PanAndSwipeTests {
    @Test(arguments: [(2.9, false), (3.0, true)])
    func pan_slop(distance: Double, begins: Bool) {
        var u = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan)])])
        u.down(1, at: (500, 500))
        u.wait(.milliseconds(20))
        u.move(1, to: (500, 500 + distance))
        #expect(u.log == (begins ? ["pan began"] : []))
    }

    /// A held lift (the chatter filter's `Contact.isLifted`) moved in its first held frame (the
    /// filter shows a fast contact's lift where the finger left, ahead of its smoothing): that
    /// move is the finger's travel and motion, so the touch is no tap and a pan begins; a held
    /// lift that stays where it was moves nothing.
    @Test(arguments: [(6.0, ["pan began", "pan ended"]), (0.0, ["tap recognized"])])
    func aHeldLiftsLastMove_isTheFingersMotion(jump: Double, log: [String]) throws {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.tap), GestureSpec(.pan)])])
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(16))
        t.move(1, to: (502, 500))
        t.wait(.milliseconds(16))
        t.contacts[0] = Contact(id: 1, position: PixelPoint(x: 502 + jump, y: 500), isLifted: true)
        t.send()
        t.wait(.milliseconds(35))
        t.up(1)
        t.wait(.milliseconds(400))
        #expect(t.log == log)
        // Where the finger lifted, its translation from where it landed.
        if jump > 0 {
            let ended = try #require(t.event("pan", .ended))
            #expect(ended.position == PixelPoint(x: 502 + jump, y: 500) && ended.translation == PixelPoint(x: 2 + jump, y: 0))
        }
    }

    @Test func pan_reportsTranslationVelocityAndCentroid() {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan)])])
        t.down(1, at: (100, 100))
        t.drag(1, by: (50, 0), over: .milliseconds(500), steps: 50)
        t.up(1)
        let ended = t.event("pan", .ended)
        #expect(ended?.translation == PixelPoint(x: 50, y: 0))
        #expect(ended?.position.x == 150)
        // 50 mm over 0.5 s, steady: 100 mm/s (1 px = 1 mm).
        #expect(abs((ended?.velocity.x ?? 0) - 100) < 0.5)
        #expect(t.log.first == "pan began")
        #expect(t.log.filter { $0 == "pan changed" }.count > 10)
    }

    @Test func pan_pauseBeforeLift_endsWithZeroVelocity() {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan)])])
        t.down(1, at: (100, 100))
        t.drag(1, by: (50, 0), over: .milliseconds(200))
        t.wait(.milliseconds(150))
        t.up(1)
        #expect(t.event("pan", .ended)?.velocity == .zero)
    }

    @Test func swipe_fastFlick_isRecognizedWithDirection_andRunsWithThePan() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.drag(1, by: (60, 0), over: .milliseconds(100))
        t.up(1)
        t.finish()
        #expect(t.log.first == "pan began")
        #expect(t.log.suffix(2) == ["pan ended", "swipe recognized"])
        let swipe = t.event("swipe", .recognized)
        #expect(swipe?.direction == .right)
        #expect(abs((swipe?.speed ?? 0) - 600) < 1)
    }

    /// Panels reporting at 200 Hz and more (here up to 1 kHz): the velocity tracker once kept only
    /// the first and the latest sample, so a stroke longer than the velocity horizon ended with
    /// velocity 0 and no swipe was recognized.
    @Test(arguments: [100, 250, 1000])
    func swipe_atHighReportRates_hasItsVelocity(hz: Int) {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.drag(1, by: (180, 0), over: .milliseconds(300), steps: hz * 3 / 10)  // longer than the horizon
        t.up(1)
        t.finish()
        let swipe = t.event("swipe", .recognized)
        #expect(swipe?.direction == .right)
        #expect(abs((swipe?.speed ?? 0) - 600) < 1)
        #expect(abs((t.event("pan", .ended)?.velocity.x ?? 0) - 600) < 1)
    }

    /// A 20 Hz panel (a report every 50 ms) whose lift came 56 ms after its last report (a late
    /// report, ±30 % jitter): the fit reads back two and a half report intervals, not the 100 ms
    /// that held only that report and the lift's (a swipe at 400 mm/s read as still). A drag that
    /// stopped on such a panel ends still.
    @Test(arguments: [(20.0, true), (0.0, false)])
    func aSlowPanelsSwipe_whoseLiftCameLate_hasItsVelocity(step: Double, swipes: Bool) {
        var t = Timeline()
        t.down(1, at: (100, 500))
        for k in 1...6 {
            t.wait(.milliseconds(50))
            t.move(1, to: (100 + 20 * Double(min(k, 4)) + step * Double(max(0, k - 4)), 500))
        }
        t.wait(.milliseconds(56))
        t.up(1)
        t.finish()
        #expect((t.event("swipe", .recognized) != nil) == swipes, "\(t.log)")
        let v = t.event("pan", .ended)?.velocity.x ?? 0
        #expect(swipes ? v > 150 : v == 0, "released at \(v) mm/s")
    }

    /// A 60 Hz drag that stops, silent for a while (the kernel sends nothing of a still finger),
    /// twitches a unit, then lifts: the pause is no report interval, and the fit reads the
    /// default horizon (no swipe, the release still, as without the twitch).
    @Test(arguments: [60, 90, 120, 150])
    func aPauseThenATwitch_isNoSlowPanel(pause: Int) {
        var t = Timeline()
        t.down(1, at: (100, 500))
        for k in 1...12 {
            t.wait(.milliseconds(17))
            t.move(1, to: (100 + 10 * Double(k), 500))
        }
        t.wait(.milliseconds(Int64(pause)))
        t.move(1, to: (221, 500))
        t.wait(.milliseconds(17))
        t.up(1)
        t.finish()
        #expect(t.event("swipe", .recognized) == nil, "\(t.log)")
        let v = t.event("pan", .ended)?.velocity.x ?? 0
        #expect(v < 100, "released at \(v) mm/s")
    }

    @Test(arguments: [
        ((0.0, -60.0), SwipeDirection.up), ((0.0, 60.0), .down), ((-60.0, 0.0), .left), ((60.0, 10.0), .right),
    ])
    func swipe_fourDirections(d: (Double, Double), expected: SwipeDirection) {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.drag(1, by: d, over: .milliseconds(100))
        t.up(1)
        #expect(t.event("swipe", .recognized)?.direction == expected)
    }

    @Test func swipe_twoFingerFlick_isASwipeWithTwoFingers() {
        var t = Timeline()
        t.down([(1, (400, 500)), (2, (460, 500))])
        t.dragAll(by: (0, 80), over: .milliseconds(100))
        t.upAll()
        let swipe = t.event("swipe", .recognized)
        #expect(swipe?.fingers == 2)
        #expect(swipe?.direction == .down)
    }

    @Test func swipe_sixFingers_isTooMany() {
        var t = Timeline()
        t.down((1...6).map { (UInt32($0), (Double($0) * 50 + 200, 500.0)) })
        t.dragAll(by: (0, 80), over: .milliseconds(100))
        t.upAll()
        #expect(t.event("swipe", .recognized) == nil)
    }

    @Test func swipe_eightDirections_diagonal() {
        var s = GestureSpec(.swipe)
        s.directionCount = 8
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [s])])
        t.down(1, at: (500, 500))
        t.drag(1, by: (-40, -40), over: .milliseconds(80))
        t.up(1)
        #expect(t.event("swipe", .recognized)?.direction == .upLeft)
    }

    /// The sector numbering is `allCases`' order, both ways (the allowed bits and the quantizer use it).
    @Test func swipeDirection_sector_isItsPlaceInAllCases() {
        for (k, d) in SwipeDirection.allCases.enumerated() {
            #expect(d.sector == UInt8(k))
            #expect(SwipeDirection(sector: k) == d)
        }
    }

    /// Each of the eight flicks is recognized with its own direction, and only where allowed.
    @Test(arguments: SwipeDirection.allCases)
    func swipe_eachDirection_isQuantizedAndFilteredByItsSector(d: SwipeDirection) {
        let angle = Double(d.sector) * Double.pi / 4
        let by = (cos(angle) * 60, sin(angle) * 60)
        for allowed: Set<SwipeDirection> in [[d], Set(SwipeDirection.allCases).subtracting([d])] {
            var s = GestureSpec(.swipe)
            s.directionCount = 8
            s.directions = allowed
            var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [s])])
            t.down(1, at: (500, 500))
            t.drag(1, by: by, over: .milliseconds(80))
            t.up(1)
            #expect(t.event("swipe", .recognized)?.direction == (allowed.contains(d) ? d : nil))
        }
    }

    @Test(arguments: [(9.5, false), (10.5, true)])
    func swipe_minimumDistance(distance: Double, recognized: Bool) {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.swipe)])])
        t.down(1, at: (500, 500))
        t.drag(1, by: (distance, 0), over: .milliseconds(30), steps: 3)
        t.up(1)
        #expect(t.log == (recognized ? ["swipe recognized"] : []))
    }

    @Test(arguments: [(95.0, false), (105.0, true)])
    func swipe_minimumVelocity(speed: Double, recognized: Bool) {
        // 40 mm at `speed` mm/s, steady, released without a pause.
        var th = Thresholds.standard
        th.swipeMaxDuration = .seconds(2)
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.swipe, thresholds: th)])])
        t.down(1, at: (500, 500))
        t.drag(1, by: (40, 0), over: .milliseconds(Int64(40 / speed * 1000)), steps: 40)
        t.up(1)
        #expect(t.log == (recognized ? ["swipe recognized"] : []))
    }

    @Test(arguments: [(490, true), (510, false)])
    func swipe_maximumDuration(ms: Int64, recognized: Bool) {
        var th = Thresholds.standard
        th.swipeMinVelocity = 10
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.swipe, thresholds: th)])])
        t.down(1, at: (500, 500))
        t.drag(1, by: (60, 0), over: .milliseconds(ms), steps: 10)
        t.up(1)
        #expect(t.log == (recognized ? ["swipe recognized"] : []))
    }

    /// With both swipe thresholds at 0 (in range), a touch that never moved has no direction: a
    /// tap, never a swipe "right" at 0 px/s that takes it.
    @Test func zeroThresholds_aStillTouch_isNoSwipe() {
        var th = Thresholds.standard
        (th.swipeMinDistance, th.swipeMinVelocity) = (0, 0)
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.swipe, thresholds: th), GestureSpec(.tap)])])
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(60))
        t.up(1)
        #expect(t.log == ["tap recognized"])
    }
}
