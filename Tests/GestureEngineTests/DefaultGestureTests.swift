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
