import Foundation
import Testing

@testable import GestureEngine

/// The thresholds not covered beside their recognizer's tests: each just under and just over.
@Suite struct ThresholdEdgeTests {
    @Test(arguments: [(140, true), (160, false)])
    func fingerSettle_secondFingerOfATwoFingerTap(delay: Int64, recognized: Bool) {
        // A two-finger tap whose second finger lands `delay` ms after the first.
        var two = GestureSpec(.tap, name: "two", fingers: 2)
        two.thresholds.tapMaxDuration = .seconds(1)
        let pan2 = GestureSpec(.pan, name: "pan2", fingers: 2, maxFingers: 2)
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [pan2, two])])
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(delay))
        t.down(2, at: (560, 500))
        t.dragAll(by: (0, 40), over: .milliseconds(200))
        t.upAll()
        // The two-finger pan needs both fingers within the settle window.
        #expect(t.log.contains("pan2 began") == recognized)
    }

    @Test(arguments: [(2.9, false), (3.1, true)])
    func pinchSlop_spanChange(change: Double, begins: Bool) {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pinch, fingers: 2, maxFingers: 2)])])
        t.down([(1, (400, 500)), (2, (600, 500))])
        t.wait(.milliseconds(20))
        // Both fingers move out by `change`: the mean distance from the centroid grows by `change`.
        t.move(1, to: (400 - change, 500))
        t.move(2, to: (600 + change, 500))
        #expect(t.log.contains("pinch began") == begins)
    }

    @Test(arguments: [(9.9, false), (10.1, true)])
    func rotationSlop_turn(degrees: Double, begins: Bool) {
        var th = Thresholds.standard
        th.pinchSlop = 100  // rotation alone
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pinch, fingers: 2, maxFingers: 2, thresholds: th)])])
        t.down([(1, (400, 500)), (2, (600, 500))])
        t.wait(.milliseconds(20))
        let a = degrees * .pi / 180
        t.contacts[0].position = PixelPoint(x: 500 - 100 * cos(a), y: 500 - 100 * sin(a))
        t.contacts[1].position = PixelPoint(x: 500 + 100 * cos(a), y: 500 + 100 * sin(a))
        t.send()
        #expect(t.log.contains("pinch began") == begins)
    }

    @Test(arguments: [(4.9, false), (5.1, true)])
    func edgeMinDistance_inwardTravel(distance: Double, begins: Bool) {
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.edgeSwipe)])])
        t.down(1, at: (2, 500))
        t.wait(.milliseconds(20))
        t.move(1, to: (2 + distance, 500))
        #expect(t.log.contains("edge_swipe began") == begins)
    }

    @Test(arguments: [(50, true), (101, false)])
    func velocityHorizon_pauseBeforeLift(pause: Int64, hasVelocity: Bool) {
        // Samples older than the horizon do not count: after a longer rest the release is still.
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [GestureSpec(.pan)])])
        t.down(1, at: (100, 100))
        t.drag(1, by: (100, 0), over: .milliseconds(100))
        t.wait(.milliseconds(pause))
        t.up(1)
        let v = t.event("pan", .ended)?.velocity.x ?? 0
        #expect((v != 0) == hasVelocity)
    }
}
