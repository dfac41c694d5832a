import Foundation
import Testing

@testable import GestureEngine

/// The built-in default configuration, one hand at a time. 1 px = 1 mm, screen 1000 × 1000.
@Suite struct TapTests {
    @Test func tap_isRecognizedOnlyAfterTheDoubleTapWindow() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(80))
        t.up(1)
        t.wait(.milliseconds(299))
        #expect(t.log == [])
        t.wait(.milliseconds(1))
        #expect(t.log == ["tap recognized"])
        #expect(t.at(t.event("tap", .recognized)) == 380)
        #expect(t.events[0].count == 1 && t.events[0].fingers == 1)
        #expect(t.events[0].position == PixelPoint(x: 500, y: 500))
    }

    @Test func doubleTap_twoQuickTaps_emitsOneDoubleTapAndNoSingle() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(80))
        t.up(1)
        t.wait(.milliseconds(100))
        t.down(2, at: (505, 503))
        t.wait(.milliseconds(80))
        t.up(2)
        #expect(t.log == ["double_tap recognized"])
        t.finish()
        #expect(t.log == ["double_tap recognized"])
        #expect(t.event("double_tap", .recognized)?.count == 2)
    }

    @Test(arguments: [(299, ["double_tap recognized"]), (300, ["tap recognized", "tap recognized"])])
    func doubleTap_secondDownJustBeforeOrAtTheInterval(gap: Int, expected: [String]) {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(50))
        t.up(1)
        t.wait(.milliseconds(gap))
        t.down(2, at: (500, 500))
        t.wait(.milliseconds(50))
        t.up(2)
        t.finish()
        #expect(t.log == expected)
    }

    @Test(arguments: [(14.9, ["double_tap recognized"]), (15.1, ["tap recognized", "tap recognized"])])
    func doubleTap_secondTapDistance(distance: Double, expected: [String]) {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.up(1)
        t.wait(.milliseconds(100))
        t.down(2, at: (500 + distance, 500))
        t.up(2)
        t.finish()
        #expect(t.log == expected)
    }

    @Test(arguments: [(2.9, ["tap recognized"]), (3.1, ["pan began", "pan ended"])])
    func tap_slop(distance: Double, expected: [String]) {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(40))
        t.move(1, to: (500 + distance, 500))
        t.wait(.milliseconds(40))
        t.up(1)
        t.finish()
        #expect(t.log == expected)
    }

    @Test func tap_heldJustUnderTheLimit_isATap_andAtTheLimit_isALongPress() {
        var a = Timeline()
        a.down(1, at: (500, 500))
        a.wait(.milliseconds(499))
        a.up(1)
        a.finish()
        #expect(a.log == ["tap recognized"])

        var b = Timeline()
        b.down(1, at: (500, 500))
        b.wait(.milliseconds(500))
        b.up(1)
        b.finish()
        #expect(b.log == ["long_press began", "long_press ended"])
    }

    @Test func twoFingerTap_fingersLandingWithinTheSettleWindow_isOneTwoFingerTap() {
        var two = GestureSpec(.tap, name: "two_finger_tap", fingers: 2)
        two.tapCount = 1
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.tap), two])])
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(100))
        t.down(2, at: (560, 500))
        t.wait(.milliseconds(60))
        t.up(1)
        t.up(2)
        t.finish()
        #expect(t.log == ["two_finger_tap recognized"])
        #expect(t.events.first?.fingers == 2)
    }

    // MARK: The default set's multi-finger taps

    @Test(arguments: [0, 140, 160])
    func default_twoFingerTap_secondFingerLate_isOneTwoFingerTapAtTheLift(lateBy ms: Int) {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(ms))
        t.down(2, at: (560, 500))
        t.wait(.milliseconds(80))
        t.up(1)
        t.up(2)
        // No double-tap window to wait for: recognized at the lift.
        #expect(t.log == ["two_finger_tap recognized"])
        #expect(t.at(t.events.first) == Double(ms + 80))
        t.finish()
        #expect(t.log == ["two_finger_tap recognized"])
        #expect(t.events.first?.fingers == 2 && t.events.first?.position == PixelPoint(x: 530, y: 500))
    }

    @Test func default_threeFingerTap_fingersLandingOver110ms_isOneThreeFingerTap() {
        var t = Timeline()
        t.down(1, at: (400, 500))
        t.wait(.milliseconds(50))
        t.down(2, at: (460, 500))
        t.wait(.milliseconds(60))
        t.down(3, at: (520, 500))
        t.wait(.milliseconds(90))
        t.upAll()
        t.finish()
        #expect(t.log == ["three_finger_tap recognized"])
        #expect(t.events.first?.fingers == 3)
    }

    @Test func default_oneFingerLiftsBeforeTheSecondLands_isTwoTapsInARowNotATwoFingerTap() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(60))
        t.up(1)
        t.wait(.milliseconds(40))
        t.down(2, at: (505, 500))
        t.wait(.milliseconds(60))
        t.up(2)
        t.finish()
        #expect(t.log == ["double_tap recognized"])
    }

    @Test func default_twoFingerTapThatMoves_isNoTap() {
        var t = Timeline()
        t.down([(1, (500, 500)), (2, (560, 500))])
        t.dragAll(by: (20, 0), over: .milliseconds(100))
        t.upAll()
        t.finish()
        #expect(!t.log.contains { $0.contains("tap") })
    }

    @Test func tripleTap_isRecognizedWithCountThree() {
        var triple = GestureSpec(.tap, name: "triple_tap")
        triple.tapCount = 3
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [triple])])
        for i in 0..<3 {
            t.down(UInt32(i + 1), at: (500, 500))
            t.wait(.milliseconds(50))
            t.up(UInt32(i + 1))
            t.wait(.milliseconds(100))
        }
        #expect(t.log == ["triple_tap recognized"])
        #expect(t.events.first?.count == 3)
    }
}

@Suite struct LongPressTests {
    @Test func longPress_firesAtItsDeadline_thenChangesAndEnds() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(499))
        #expect(t.log == [])
        t.wait(.milliseconds(1))
        #expect(t.log == ["long_press began"])
        #expect(t.at(t.events.first) == 500)
        t.wait(.milliseconds(100))
        t.move(1, to: (520, 500))
        t.up(1)
        t.finish()
        #expect(t.log == ["long_press began", "long_press changed", "long_press ended"])
        #expect(t.events[1].position == PixelPoint(x: 520, y: 500))
    }

    @Test(arguments: [(2.9, true), (3.1, false)])
    func longPress_tolerance(drift: Double, fires: Bool) {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(200))
        t.move(1, to: (500, 500 + drift))
        t.wait(.milliseconds(400))
        t.up(1)
        t.finish()
        #expect(t.log.contains("long_press began") == fires)
    }

    @Test func longPress_secondFingerBeforeDeadline_fails() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(200))
        t.down(2, at: (540, 500))
        t.wait(.milliseconds(600))
        t.upAll()
        t.finish()
        #expect(!t.log.contains("long_press began"))
    }
}

@Suite struct PanAndSwipeTests {
    @Test(arguments: [(2.9, false), (3.0, true)])
    func pan_slop(distance: Double, begins: Bool) {
        var u = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan)])])
        u.down(1, at: (500, 500))
        u.wait(.milliseconds(20))
        u.move(1, to: (500, 500 + distance))
        #expect(u.log == (begins ? ["pan began"] : []))
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
}

@Suite struct PinchAndEdgeTests {
    @Test func pinch_spread_beginsAndReportsScale_andTheOneFingerPanFails() {
        var t = Timeline()
        t.down([(1, (400, 500)), (2, (600, 500))])
        for _ in 0..<10 {
            t.wait(.milliseconds(20))
            t.move(1, to: (t.contacts[0].position.x - 2, 500))
            t.move(2, to: (t.contacts[1].position.x + 2, 500))
        }
        t.upAll()
        t.finish()
        #expect(t.log.first == "pinch began")
        #expect(t.log.last == "pinch ended")
        #expect(!t.log.contains { $0.hasPrefix("pan") || $0.hasPrefix("tap") })
        let ended = t.event("pinch", .ended)
        #expect(abs((ended?.scale ?? 0) - 1.2) < 1e-9)
        #expect(abs(ended?.rotation ?? 1) < 1e-9)
        #expect(ended?.fingers == 2)
        #expect(ended?.position == PixelPoint(x: 500, y: 500))
    }

    @Test func pinch_rotation_quarterTurnClockwise() {
        var t = Timeline()
        t.down([(1, (400, 500)), (2, (600, 500))])
        for i in 1...18 {
            let a = Double(i) * 5 * .pi / 180
            t.wait(.milliseconds(10))
            t.contacts[0].position = PixelPoint(x: 500 - 100 * cos(a), y: 500 - 100 * sin(a))
            t.contacts[1].position = PixelPoint(x: 500 + 100 * cos(a), y: 500 + 100 * sin(a))
            t.send()
        }
        t.upAll()
        let ended = t.event("pinch", .ended)
        #expect(abs((ended?.rotation ?? 0) - 90) < 1e-6)
        #expect(abs((ended?.scale ?? 0) - 1) < 1e-9)
    }

    @Test(arguments: [(5.9, true), (6.1, false)])
    func edgeSwipe_fromTheLeftEdge_band(x: Double, isEdge: Bool) {
        var t = Timeline()
        t.down(1, at: (x, 500))
        t.drag(1, by: (80, 0), over: .milliseconds(300))
        t.up(1)
        t.finish()
        if isEdge {
            #expect(t.log.first == "edge_swipe began")
            #expect(t.log.last == "edge_swipe ended")
            #expect(t.event("edge_swipe", .began)?.edge == .left)
            #expect(!t.log.contains { $0.hasPrefix("pan") || $0.hasPrefix("swipe") })
        } else {
            #expect(t.log.first == "pan began")
            #expect(!t.log.contains { $0.hasPrefix("edge_swipe") })
        }
    }

    @Test func edgeSwipe_alongTheEdge_failsAndLetsThePanGo() {
        var t = Timeline()
        t.down(1, at: (998, 500))
        t.drag(1, by: (0, 80), over: .milliseconds(300))
        t.up(1)
        #expect(t.log.first == "pan began")
        #expect(!t.log.contains("edge_swipe began"))
    }

    @Test func edgeSwipe_fromTheBottom() {
        var t = Timeline()
        t.down(1, at: (500, 997))
        t.drag(1, by: (0, -50), over: .milliseconds(200))
        t.up(1)
        #expect(t.event("edge_swipe", .began)?.edge == .bottom)
    }
}

@Suite struct MultiFingerTests {
    @Test func fourFingerPan_fingersLandingOver110ms_beginsWithFourFingers() {
        let pan4 = GestureSpec(.pan, name: "pan4", fingers: 4, maxFingers: 4)
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan), pan4])])
        for i in 0..<4 {
            t.down(UInt32(i + 1), at: (400 + 40 * Double(i), 500))
            t.wait(.milliseconds(36))
            t.moveAll(by: (0, 0.5))
        }
        t.dragAll(by: (0, 60), over: .milliseconds(300))
        t.upAll()
        #expect(t.log.first == "pan4 began")
        #expect(t.event("pan4", .began)?.fingers == 4)
        #expect(!t.log.contains { $0.hasPrefix("pan ") })
    }

    @Test func onePan_whenASecondFingerLandsBeforeRecognition_fails() {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan)])])
        t.down(1, at: (500, 500))
        t.move(1, to: (501, 500))
        t.down(2, at: (560, 500))
        t.dragAll(by: (0, 60), over: .milliseconds(300))
        t.upAll()
        #expect(t.log == [])
    }

    @Test func twoFingerPan_withOnlyOneFingerAfterTheSettleWindow_fails() {
        let pan2 = GestureSpec(.pan, name: "pan2", fingers: 2, maxFingers: 2)
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [pan2])])
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(150))
        t.down(2, at: (560, 500))
        t.dragAll(by: (0, 60), over: .milliseconds(300))
        t.upAll()
        #expect(t.log == [])
    }
}

@Suite struct CancellationTests {
    @Test func palm_cancelsAnActivePan_andTheNextSequenceWorks() {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan)])])
        t.down(1, at: (500, 500))
        t.drag(1, by: (30, 0), over: .milliseconds(100))
        t.palm()
        t.drag(1, by: (30, 0), over: .milliseconds(100))
        t.upAll()
        #expect(t.log.last == "pan cancelled")
        t.events.removeAll()
        t.down(2, at: (500, 500))
        t.drag(2, by: (30, 0), over: .milliseconds(100))
        t.up(2)
        #expect(t.log.first == "pan began" && t.log.last == "pan ended")
    }

    @Test func lostEvents_cancelTheSequence() {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan)])])
        t.down(1, at: (500, 500))
        t.drag(1, by: (30, 0), over: .milliseconds(100))
        t.engine.handle(
            TouchFrame(time: t.time, contacts: t.contacts, scale: .identity, discontinuity: true), into: &t.events)
        t.drag(1, by: (30, 0), over: .milliseconds(100))
        t.upAll()
        #expect(t.log.last == "pan cancelled")
        #expect(t.engine.isIdle)
    }

    @Test func deviceRemoved_afterATap_recognizesTheTapThatWaitedForTheDoubleTapWindow() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(60))
        t.up(1)
        t.wait(.milliseconds(100))
        t.engine.deviceRemoved(at: t.time, into: &t.events)
        #expect(t.log == ["tap recognized"])
        #expect(t.at(t.events.first) == 160)
        #expect(t.engine.isIdle && t.engine.nextDeadline == nil)
    }

    @Test func deviceRemoved_midSecondTap_recognizesTheFirstTapOnly() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.up(1)
        t.wait(.milliseconds(100))
        t.down(2, at: (500, 500))
        t.engine.deviceRemoved(at: t.time, into: &t.events)
        #expect(t.log == ["tap recognized"])
    }

    /// Found by the engine fuzzer (Fuzz/FuzzEngine): a finger lifting and another landing between
    /// the same two SYN_REPORTs left a long press that had begun without an end.
    @Test func fingersReplacedWithinOneFrame_endTheOldSequenceFirst() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(600))
        t.contacts = [Contact(id: 2, position: PixelPoint(x: 300, y: 300))]
        t.send()
        t.upAll()
        t.finish()
        #expect(Array(t.log.prefix(2)) == ["long_press began", "long_press ended"])
        #expect(t.log.last == "tap recognized")
        #expect(t.engine.isIdle)
    }

    @Test func deviceRemoved_cancelsTheActiveGesture() {
        var t = Timeline()
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(600))
        t.engine.deviceRemoved(at: t.time, into: &t.events)
        #expect(t.log == ["long_press began", "long_press cancelled"])
        #expect(t.engine.isIdle)
    }
}
