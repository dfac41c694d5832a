import Testing

@testable import GestureEngine

/// Messy real hands: two people or two hands on one panel, a finger landing late, a hand resting
/// on the glass, a zoom with the thumb still. Each case failed before touches were delivered per
/// region (UIKit's hit-testing) and gestures followed their own fingers.
@Suite struct RealHandsTests {
    /// Two halves of a 1000 × 1000 table, each with the standard gestures.
    static var halves: [RegionSpec] {
        [
            RegionSpec(name: "left", rect: rect(0, 0, 500, 1000), gestures: EngineConfiguration.standardGestures()),
            RegionSpec(name: "right", rect: rect(500, 0, 500, 1000), gestures: EngineConfiguration.standardGestures()),
        ]
    }

    // MARK: Independent sequences side by side

    @Test func waitingTap_survivesATouchInAnotherRegion() {
        var t = Timeline(regions: Self.halves)
        t.down(1, at: (200, 500))
        t.wait(.milliseconds(60))
        t.up(1)
        // "Select, then confirm": the next touch lands on the other button within the
        // double-tap window of the first.
        t.wait(.milliseconds(120))
        t.down(2, at: (800, 500))
        t.wait(.milliseconds(60))
        t.up(2)
        t.finish()
        #expect(t.qualifiedLog == ["left/tap recognized", "right/tap recognized"])
        #expect(t.event("tap", .recognized)?.position == PixelPoint(x: 200, y: 500))
        // Each tap at its own double-tap deadline: 300 ms after its own lift.
        #expect(t.at(t.events.first) == 360)
        #expect(t.at(t.events.last) == 540)
    }

    @Test func twoTapsInTwoRegions20msApart_areTwoSingleTaps() {
        var t = Timeline(regions: Self.halves)
        t.down(1, at: (200, 500))
        t.wait(.milliseconds(20))
        t.down(2, at: (800, 500))
        t.wait(.milliseconds(60))
        t.up(1)
        t.wait(.milliseconds(20))
        t.up(2)
        t.finish()
        #expect(t.qualifiedLog == ["left/tap recognized", "right/tap recognized"])
        #expect(t.events.allSatisfy { $0.fingers == 1 && $0.count == 1 })
        #expect(t.events[0].sequence != t.events[1].sequence)
    }

    @Test func longPressAndTapInTwoRegions_bothRecognized_theLongPressStaysOnItsFinger() {
        var t = Timeline(regions: Self.halves)
        t.down(1, at: (200, 500))
        t.wait(.milliseconds(300))
        t.down(2, at: (800, 600))
        t.wait(.milliseconds(50))
        t.up(2)
        t.wait(.milliseconds(400))
        t.up(1)
        t.finish()
        #expect(t.qualifiedLog == ["left/long_press began", "right/tap recognized", "left/long_press ended"])
        #expect(t.at(t.event("long_press", .began)) == 500)
        for e in t.events where t.name(e) == "long_press" {
            #expect(e.position == PixelPoint(x: 200, y: 500) && e.fingers == 1)
        }
    }

    @Test func twoOppositeSwipesInTwoRegions_areTwoSwipes() {
        var t = Timeline(regions: Self.halves)
        t.down(1, at: (300, 500))
        t.wait(.milliseconds(10))
        t.down(2, at: (700, 500))
        for _ in 0..<10 {
            t.wait(.milliseconds(10))
            t.contacts[0].position.x -= 12
            t.contacts[1].position.x += 12
            t.send()
        }
        t.upAll()
        t.finish()
        let swipes = t.events.filter { $0.kind == .swipe }
        #expect(swipes.count == 2)
        #expect(swipes.map { t.regionName($0) }.sorted() == ["left", "right"])
        #expect(swipes.first { t.regionName($0) == "left" }?.direction == .left)
        #expect(swipes.first { t.regionName($0) == "right" }?.direction == .right)
        #expect(swipes.allSatisfy { $0.fingers == 1 })
    }

    @Test func panInOneRegionAndPinchInAnother_atOnce() {
        var t = Timeline(regions: Self.halves)
        t.down(1, at: (200, 500))
        t.down([(2, (700, 500)), (3, (800, 500))])
        for _ in 0..<10 {
            t.wait(.milliseconds(10))
            t.contacts[0].position.y += 10
            t.contacts[1].position.x -= 5
            t.contacts[2].position.x += 5
            t.send()
        }
        t.upAll()
        t.finish()
        let began = t.qualifiedLog.filter { $0.hasSuffix("began") }
        #expect(began == ["left/pan began", "right/pinch began"])
        let pinchEnd = t.event("pinch", .ended)
        #expect(pinchEnd.map { abs($0.scale - 2) < 1e-9 && $0.fingers == 2 } == true)
        #expect(t.event("pan", .ended)?.translation == PixelPoint(x: 0, y: 100))
        #expect(t.event("pan", .ended)?.fingers == 1)
    }

    // MARK: A parent region sees its children's fingers

    /// A table with a two-finger pan over two halves with a one-finger pan each.
    static func table(priority: Priority) -> [RegionSpec] {
        var both = GestureSpec(.pan, name: "both", fingers: 2)
        both.priority = priority
        return [
            RegionSpec(name: "table", gestures: [both]),
            RegionSpec(name: "left", rect: rect(0, 0, 500, 1000), gestures: [GestureSpec(.pan)]),
            RegionSpec(name: "right", rect: rect(500, 0, 500, 1000), gestures: [GestureSpec(.pan)]),
        ]
    }

    static func twoHandsDragDown(_ t: inout Timeline) {
        t.down(1, at: (300, 300))
        t.wait(.milliseconds(20))
        t.down(2, at: (700, 300))
        t.dragAll(by: (0, 100), over: .milliseconds(100))
        t.upAll()
        t.finish()
    }

    @Test func parentTwoFingerPan_withHighPriority_seesOneFingerInEachChild_andWins() {
        var t = Timeline(regions: Self.table(priority: .high))
        Self.twoHandsDragDown(&t)
        #expect(t.qualifiedLog.first == "table/both began")
        #expect(!t.qualifiedLog.contains { $0.hasPrefix("left/") || $0.hasPrefix("right/") })
        #expect(t.event("both", .began)?.fingers == 2)
        #expect(t.event("both", .ended)?.translation == PixelPoint(x: 0, y: 100))
    }

    @Test func parentTwoFingerPan_withNormalPriority_losesToEachChild() {
        var t = Timeline(regions: Self.table(priority: .normal))
        Self.twoHandsDragDown(&t)
        let began = t.qualifiedLog.filter { $0.hasSuffix("began") }
        #expect(began == ["left/pan began", "right/pan began"])
        #expect(!t.qualifiedLog.contains { $0.hasPrefix("table/") })
    }

    @Test func parentRunningGesture_takesANewFingerInAChild() {
        // A running outer pan takes a finger that lands in an inner region (Flutter's accepted
        // drag claims new pointers): the inner tap never sees it as its own.
        var pan = GestureSpec(.pan, fingers: 1, maxFingers: 2)
        pan.priority = .high
        var t = Timeline(regions: [
            RegionSpec(name: "board", gestures: [pan]),
            RegionSpec(name: "button", rect: rect(600, 600, 200, 200), gestures: [GestureSpec(.tap)]),
        ])
        t.down(1, at: (100, 100))
        t.drag(1, by: (0, 50), over: .milliseconds(100))
        t.down(2, at: (700, 700))
        t.wait(.milliseconds(50))
        t.up(2)
        t.up(1)
        t.finish()
        #expect(!t.qualifiedLog.contains("button/tap recognized"))
        #expect(t.event("pan", .ended)?.fingers == 2)
    }

    // MARK: Each gesture reports its own fingers

    @Test func longPress_aFingerLandingLaterInItsRegion_neitherMovesNorEndsIt() {
        var t = Timeline()
        t.down(1, at: (200, 200))
        t.wait(.milliseconds(600))
        t.down(2, at: (800, 800))
        t.drag(2, by: (50, 0), over: .milliseconds(50))
        t.up(2)
        t.wait(.milliseconds(100))
        t.up(1)
        t.finish()
        let presses = t.events.filter { $0.kind == .longPress }
        #expect(presses.map(\.phase) == [.began, .ended])
        #expect(presses.allSatisfy { $0.position == PixelPoint(x: 200, y: 200) && $0.fingers == 1 })
        #expect(t.at(presses.last) == 750)
    }

    // MARK: Pinch over the same contacts; pan or pinch by the motion

    @Test func restingClusterPlusATapElsewhere_isNoPinch() {
        var t = Timeline()
        let centre = PixelPoint(x: 115, y: 108)
        t.down([(1, (100, 100)), (2, (130, 100)), (3, (115, 125))])
        // The resting hand creeps outward, 0.9 mm in all: its spread grows 6 %.
        func creep(_ t: inout Timeline, by step: Double) {
            for i in 0..<3 {
                let d = t.contacts[i].position - centre
                t.contacts[i].position += d * (step / d.length)
            }
            t.send()
        }
        for _ in 0..<6 {
            t.wait(.milliseconds(30))
            creep(&t, by: 0.1)
        }
        // Someone taps far away while it rests.
        t.down(4, at: (800, 800))
        for _ in 0..<3 {
            t.wait(.milliseconds(20))
            creep(&t, by: 0.1)
        }
        t.up(4)
        t.wait(.milliseconds(100))
        t.upAll()
        t.finish()
        #expect(!t.events.contains { $0.kind == .pinch })
        #expect(!t.events.contains { $0.kind == .pan })
    }

    @Test func zoomWithOneFingerAnchored_isAPinch_withTheRightScale() {
        var t = Timeline()
        t.down([(1, (400, 500)), (2, (500, 500))])
        t.drag(2, by: (100, 0), over: .milliseconds(200), steps: 20)
        t.upAll()
        t.finish()
        #expect(t.log.first == "pinch began")
        #expect(!t.events.contains { $0.kind == .pan })
        let ended = t.event("pinch", .ended)
        #expect(ended.map { abs($0.scale - 2) < 1e-9 } == true)
        #expect(ended?.position == PixelPoint(x: 500, y: 500))
    }

    @Test func twoFingersMovingTogether_withTheirSpreadWobbling_isAPan() {
        var t = Timeline()
        t.down([(1, (400, 500)), (2, (500, 500))])
        for step in 0..<10 {
            t.wait(.milliseconds(10))
            t.contacts[0].position.y += 10
            t.contacts[1].position.y += 10
            t.contacts[1].position.x += step % 2 == 0 ? 0.5 : -0.3
            t.send()
        }
        t.upAll()
        t.finish()
        #expect(t.log.first == "pan began")
        #expect(!t.events.contains { $0.kind == .pinch })
    }

    @Test func pinchSlop_isOnTheSpanOverTheSameContacts() {
        // Just under: the mean distance from the centroid grows 2.9 mm (the span 5.8): no pinch.
        // Just over: 3.1 mm.
        for (spread, expected) in [(5.8, false), (6.2, true)] {
            var config = GestureSpec(.pinch, fingers: 2, maxFingers: 2)
            config.name = "pinch"
            var t = Timeline(regions: [RegionSpec(name: "all", gestures: [config])])
            t.down([(1, (400, 500)), (2, (500, 500))])
            t.wait(.milliseconds(10))
            t.contacts[0].position.x -= spread / 2
            t.contacts[1].position.x += spread / 2
            t.send()
            t.upAll()
            t.finish()
            #expect(t.events.contains { $0.kind == .pinch } == expected, "span change \(spread) mm")
        }
    }
}
