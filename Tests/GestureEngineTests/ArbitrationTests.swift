import Foundation
import Testing

@testable import GestureEngine

/// The seed scenarios of arbitration: what UIKit and SwiftUI let apps declare, here from config.
@Suite struct ArbitrationTests {
    // MARK: Sheet: the handle drags the sheet, the content scrolls

    static var sheet: [RegionSpec] {
        let drag = GestureSpec(.pan, name: "drag", axis: .vertical)
        let scroll = GestureSpec(.pan, name: "scroll", axis: .vertical)
        return [
            RegionSpec(
                name: "sheet", rect: rect(0, 500, 1000, 500), gestures: [drag],
                drag: DragConstraints(y: AxisConstraint(min: 0, max: 400, mode: .rubberBand, snapPoints: [0, 200, 400]))),
            RegionSpec(name: "content", rect: rect(0, 560, 1000, 440), gestures: [scroll]),
        ]
    }

    @Test func sheet_dragOnTheHandle_movesTheSheetAndSnaps() {
        var t = Timeline(regions: Self.sheet)
        t.down(1, at: (500, 520))
        t.drag(1, by: (0, 150), over: .milliseconds(500), steps: 20)
        t.wait(.milliseconds(120))
        t.up(1)
        // Began at the first step (7.5 px, past the slop), changed at each of the other 19, ended at the lift.
        #expect(t.qualifiedLog == ["sheet/drag began"] + Array(repeating: "sheet/drag changed", count: 19) + ["sheet/drag ended"])
        let ended = t.event("drag", .ended)
        #expect(ended?.offset == PixelPoint(x: 0, y: 150))
        #expect(ended?.target == PixelPoint(x: 0, y: 200))
    }

    @Test func sheet_dragOnTheContent_scrollsTheContentNotTheSheet() {
        var t = Timeline(regions: Self.sheet)
        t.down(1, at: (500, 800))
        t.drag(1, by: (0, -100), over: .milliseconds(300))
        t.up(1)
        #expect(t.qualifiedLog.first == "content/scroll began")
        #expect(!t.qualifiedLog.contains { $0.hasPrefix("sheet/") })
        #expect(t.event("scroll", .ended)?.translation == PixelPoint(x: 0, y: -100))
    }

    // MARK: Axis lock: a horizontally swipeable row inside a vertical list

    static var list: [RegionSpec] {
        [
            RegionSpec(name: "list", gestures: [GestureSpec(.pan, name: "scroll", axis: .vertical)]),
            RegionSpec(
                name: "row", rect: rect(0, 100, 1000, 80), gestures: [GestureSpec(.pan, name: "slide", axis: .horizontal)]),
        ]
    }

    @Test func axisLock_horizontalDragOnARow_slidesTheRow() {
        var t = Timeline(regions: Self.list)
        t.down(1, at: (500, 140))
        t.drag(1, by: (80, 12), over: .milliseconds(300))
        t.up(1)
        #expect(t.qualifiedLog.first == "row/slide began")
        #expect(!t.qualifiedLog.contains { $0.hasPrefix("list/") })
        // No diagonal drift: the locked axis stays zero.
        #expect(t.events.allSatisfy { $0.translation.y == 0 && $0.axis == .horizontal })
    }

    @Test func axisLock_verticalDragOnARow_scrollsTheList() {
        var t = Timeline(regions: Self.list)
        t.down(1, at: (500, 140))
        t.drag(1, by: (12, 80), over: .milliseconds(300))
        t.up(1)
        #expect(t.qualifiedLog.first == "list/scroll began")
        #expect(!t.qualifiedLog.contains { $0.hasPrefix("row/") })
        #expect(t.events.allSatisfy { $0.translation.x == 0 })
    }

    @Test func axisLock_verticalFirstThenHorizontal_staysWithTheList() {
        var t = Timeline(regions: Self.list)
        t.down(1, at: (500, 140))
        t.drag(1, by: (0, 20), over: .milliseconds(100))
        t.drag(1, by: (100, 0), over: .milliseconds(200))
        t.up(1)
        #expect(t.qualifiedLog.first == "list/scroll began")
        #expect(!t.qualifiedLog.contains { $0.hasPrefix("row/") })
        #expect(t.event("scroll", .ended)?.translation == PixelPoint(x: 0, y: 20))
    }

    @Test(arguments: [(2.9, 0.0, "undecided"), (3.1, 0.0, "row"), (0.0, 3.1, "list")])
    func axisLock_threshold(dx: Double, dy: Double, winner: String) {
        var t = Timeline(regions: Self.list)
        t.down(1, at: (500, 140))
        t.move(1, to: (500 + dx, 140 + dy))
        let expected = winner == "row" ? ["row/slide began"] : winner == "list" ? ["list/scroll began"] : []
        #expect(t.qualifiedLog == expected)
    }

    // MARK: Axis lock is a decision, taken once (lock and slop in both orders)

    /// The list and row with their own lock and slop (mm; the timeline's pixel is a millimetre).
    static func list(lock: Double, slop: Double) -> [RegionSpec] {
        var th = Thresholds.standard
        th.axisLockThreshold = Millimeters(lock)
        th.panSlop = Millimeters(slop)
        return [
            RegionSpec(name: "list", gestures: [GestureSpec(.pan, name: "scroll", axis: .vertical, thresholds: th)]),
            RegionSpec(
                name: "row", rect: rect(0, 100, 1000, 80),
                gestures: [GestureSpec(.pan, name: "slide", axis: .horizontal, thresholds: th)]),
        ]
    }

    /// Lock (2 mm) below slop (3 mm): the lock decides at 2 mm, the row's pan begins when its
    /// own, horizontal travel passes 3 mm, whatever the finger did vertically in between.
    @Test(arguments: [
        // under the lock, then a vertical drift decides it: the list wins and scrolls
        (1.9, 2.9, ["list/scroll began"], "row/"),
        // locked horizontal, then under the slop: nothing yet, and the list has lost
        (2.1, 2.9, [], "list/"),
        // locked horizontal, then over the slop: the row's pan begins despite the drift
        (2.1, 3.1, ["row/slide began"], "list/"),
    ])
    func axisLock_lockBelowSlop(lockedAt dx: Double, thenTo x: Double, expected: [String], loser: String) {
        var t = Timeline(regions: Self.list(lock: 2, slop: 3))
        t.down(1, at: (500, 140))
        t.move(1, to: (500 + dx, 140))
        t.move(1, to: (500 + dx, 150))  // a vertical drift larger than the travel so far
        t.move(1, to: (500 + x, 150))
        #expect(t.qualifiedLog == expected)
        t.up(1)
        #expect(!t.qualifiedLog.contains { $0.hasPrefix(loser) })
    }

    /// Lock (4 mm) above slop (3 mm): nothing begins before the lock, even past the slop; at the
    /// lock the winner begins at once, since its travel already passed the slop.
    @Test(arguments: [(3.9, [String]()), (4.1, ["row/slide began"])])
    func axisLock_lockAboveSlop(x: Double, expected: [String]) {
        var t = Timeline(regions: Self.list(lock: 4, slop: 3))
        t.down(1, at: (500, 140))
        t.move(1, to: (503.1, 140))
        #expect(t.qualifiedLog.isEmpty)
        t.move(1, to: (500 + x, 140))
        #expect(t.qualifiedLog == expected)
    }

    /// The seed's case: a 10 px lock under the 3 mm slop, decided horizontal, then a vertical
    /// drift many times the travel before the lock. The row keeps the drag, reports no vertical
    /// movement, and the list's scroll never begins.
    @Test func axisLock_driftAfterTheLockLargerThanBefore_rowKeepsTheDrag() {
        var t = Timeline(regions: Self.list(lock: 2, slop: 3))
        t.down(1, at: (500, 140))
        t.move(1, to: (502.5, 140))  // locked horizontal (2.5 mm), under the slop
        t.drag(1, by: (1, 60), over: .milliseconds(200))  // 60 mm down, 1 mm right: past the slop
        t.drag(1, by: (20, 40), over: .milliseconds(200))
        t.up(1)
        #expect(t.qualifiedLog.first == "row/slide began")
        #expect(t.qualifiedLog.last == "row/slide ended")
        #expect(!t.qualifiedLog.contains { $0.hasPrefix("list/") })
        #expect(t.events.allSatisfy { $0.translation.y == 0 && $0.velocity.y == 0 })
        #expect(t.event("slide", .ended)?.translation.x ?? 0 > 23)
    }

    /// The same drift on the landed code's default (lock = slop = 3 mm) once the row has begun.
    @Test func axisLock_driftAfterBegin_rowKeepsTheDrag() {
        var t = Timeline(regions: Self.list)
        t.down(1, at: (500, 140))
        t.drag(1, by: (10, 0), over: .milliseconds(100))
        t.drag(1, by: (0, 200), over: .milliseconds(300))
        t.up(1)
        #expect(t.qualifiedLog.first == "row/slide began" && t.qualifiedLog.last == "row/slide ended")
        #expect(t.event("slide", .ended)?.translation == PixelPoint(x: 10, y: 0))
    }

    // MARK: .gesture / .highPriorityGesture / .simultaneousGesture on nested regions

    static func nestedTaps(parentPriority: Priority) -> [RegionSpec] {
        var parentTap = GestureSpec(.tap)
        parentTap.priority = parentPriority
        return [
            RegionSpec(name: "card", gestures: [parentTap]),
            RegionSpec(name: "button", rect: rect(100, 100, 200, 100), gestures: [GestureSpec(.tap)]),
        ]
    }

    @Test(arguments: [
        (Priority.normal, ["button/tap recognized"]),
        (Priority.high, ["card/tap recognized"]),
        (Priority.simultaneous, ["button/tap recognized", "card/tap recognized"]),
    ])
    func nested_tapOnTheInnerRegion(priority: Priority, expected: [String]) {
        var t = Timeline(regions: Self.nestedTaps(parentPriority: priority))
        t.down(1, at: (150, 150))
        t.up(1)
        t.finish()
        #expect(t.qualifiedLog == expected)
    }

    @Test func nested_tapOutsideTheInnerRegion_goesToTheOuter() {
        var t = Timeline(regions: Self.nestedTaps(parentPriority: .normal))
        t.down(1, at: (600, 600))
        t.up(1)
        #expect(t.qualifiedLog == ["card/tap recognized"])
    }

    @Test func nested_innerPanFails_outerPanTakesOver() {
        // The inner region only takes two-finger pans: a one-finger drag goes to the outer one.
        let inner = GestureSpec(.pan, name: "pan2", fingers: 2, maxFingers: 2)
        var t = Timeline(regions: [
            RegionSpec(name: "map", gestures: [GestureSpec(.pan)]),
            RegionSpec(name: "layer", rect: rect(0, 0, 500, 500), gestures: [inner]),
        ])
        t.down(1, at: (100, 100))
        t.drag(1, by: (40, 0), over: .milliseconds(300))
        t.up(1)
        #expect(t.qualifiedLog.first == "map/pan began")
        // The outer pan waited for the inner one to fail (its settle window), then began.
        #expect(t.at(t.events.first).map { $0 >= 150 } == true)
    }

    // MARK: Simultaneous long press + pan

    static var photo: [RegionSpec] {
        var press = GestureSpec(.longPress, name: "select")
        press.simultaneousWith = ["move"]
        let pan = GestureSpec(.pan, name: "move")
        return [RegionSpec(name: "photo", gestures: [press, pan])]
    }

    @Test func longPressAndPan_simultaneous_pressSelectsAtItsDeadlineThenPanMoves() {
        var t = Timeline(regions: Self.photo)
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(500))
        #expect(t.log == ["select began"])
        #expect(t.at(t.events.first) == 500)
        t.drag(1, by: (60, 0), over: .milliseconds(300))
        t.up(1)
        // At the first step the press changes and the pan begins (in that order, in one frame);
        // then both change at every step, and both end at the lift: the exact list.
        let together = Array(repeating: ["select changed", "move changed"], count: 9).flatMap { $0 }
        #expect(t.log == ["select began", "select changed", "move began"] + together + ["select ended", "move ended"])
        #expect(t.event("move", .ended)?.translation == PixelPoint(x: 60, y: 0))
    }

    @Test func longPressAndPan_notSimultaneous_theLongPressOwnsTheSequence() {
        let regions = [RegionSpec(name: "photo", gestures: [GestureSpec(.longPress, name: "select"), GestureSpec(.pan, name: "move")])]
        var t = Timeline(regions: regions)
        t.down(1, at: (500, 500))
        t.wait(.milliseconds(500))
        t.drag(1, by: (60, 0), over: .milliseconds(300))
        t.up(1)
        #expect(t.log.first == "select began")
        #expect(!t.log.contains { $0.hasPrefix("move") })
    }

    // MARK: Pan requires swipe failure

    static var panAfterSwipe: [RegionSpec] {
        var pan = GestureSpec(.pan)
        pan.requiresFailureOf = ["swipe"]
        return [RegionSpec(name: "screen", gestures: [GestureSpec(.swipe), pan])]
    }

    @Test func panRequiresSwipeFailure_fastFlick_isOnlyASwipe() {
        var t = Timeline(regions: Self.panAfterSwipe)
        t.down(1, at: (500, 500))
        t.drag(1, by: (0, -80), over: .milliseconds(100))
        t.up(1)
        t.finish()
        #expect(t.log == ["swipe recognized"])
        #expect(t.events.first?.direction == .up)
    }

    @Test func panRequiresSwipeFailure_slowDrag_panBeginsWhenTheSwipeFails() {
        var t = Timeline(regions: Self.panAfterSwipe)
        t.down(1, at: (500, 500))
        t.drag(1, by: (0, 100), over: .milliseconds(1000), steps: 50)
        t.up(1)
        #expect(t.log.first == "pan began")
        #expect(t.at(t.events.first) == 500)  // the swipe's deadline
        #expect(t.log.last == "pan ended")
        #expect(!t.log.contains("swipe recognized"))
    }

    @Test func panRequiresSwipeFailure_slowShortDragLifted_panBeginsAndEndsAtTheLift() {
        var t = Timeline(regions: Self.panAfterSwipe)
        t.down(1, at: (500, 500))
        t.drag(1, by: (0, 8), over: .milliseconds(200))
        t.up(1)
        #expect(t.log == ["pan began", "pan ended"])
        #expect(abs((t.events.last?.translation.y ?? 0) - 8) < 1e-9)
    }

    // MARK: Require-failure chains and policy

    @Test func policy_explainsWhyOneGestureOutranksAnother() {
        let c = CompiledConfiguration(.standard())
        let tap = c.gestures.firstIndex { $0.spec.name == "tap" }!
        let double = c.gestures.firstIndex { $0.spec.name == "double_tap" }!
        let pan = c.gestures.firstIndex { $0.spec.name == "pan" }!
        let pinch = c.gestures.firstIndex { $0.spec.name == "pinch" }!
        let swipe = c.gestures.firstIndex { $0.spec.name == "swipe" }!
        #expect(c.policy.rank(double, over: tap) == .requiresFailure)
        #expect(c.policy.rank(pinch, over: tap) == .moreFingers)
        #expect(c.policy.rank(pinch, over: pan) == nil && c.policy.rank(pan, over: pinch) == nil)
        #expect(c.policy.simultaneous(pan, swipe))
        #expect(c.findCycle() == nil)
    }

    @Test func policy_findsARequireFailureCycle() {
        var a = GestureSpec(.tap, name: "a")
        a.requiresFailureOf = ["b"]
        var b = GestureSpec(.pan, name: "b")
        b.requiresFailureOf = ["a"]
        let c = CompiledConfiguration(
            EngineConfiguration(screen: rect(0, 0, 10, 10), regions: [RegionSpec(name: "r", gestures: [a, b])]))
        #expect(c.findCycle() != nil)
    }
}

/// Drag bounds, rubber band and snap points: exact numbers.
@Suite struct DragConstraintTests {
    func drag(_ constraint: AxisConstraint, by dy: Double, initial: Double = 0, times: Int = 1) -> GestureEvent? {
        let region = RegionSpec(
            name: "panel", gestures: [GestureSpec(.pan, axis: .vertical)],
            drag: DragConstraints(y: constraint, initial: PixelPoint(x: 0, y: initial)))
        var t = Timeline(regions: [region])
        for i in 0..<times {
            t.events.removeAll()
            t.down(UInt32(i + 1), at: (500, 300))
            t.drag(UInt32(i + 1), by: (0, dy), over: .milliseconds(300))
            t.wait(.milliseconds(150))  // come to rest: no velocity at the lift
            t.up(UInt32(i + 1))
        }
        return t.event("pan", .ended)
    }

    @Test func clamp_stopsAtTheBound() {
        let e = drag(AxisConstraint(min: 0, max: 100, mode: .clamp), by: 150)
        #expect(e?.offset?.y == 100)
        #expect(e?.target?.y == 100)
    }

    @Test func rubberBand_linear_movesAFactorOfTheExcess() {
        let e = drag(AxisConstraint(min: 0, max: 100, mode: .rubberBand, rubberBandFactor: 0.3), by: 150)
        #expect(abs((e?.offset?.y ?? 0) - 115) < 1e-9)  // 100 + 50 × 0.3
        #expect(e?.target?.y == 100)  // springs back into bounds
    }

    @Test func rubberBand_exponential_approachesTheLimit() {
        let e = drag(AxisConstraint(min: 0, max: 100, mode: .rubberBandExp, rubberBandLimit: 100), by: 150)
        // 100 + 100 × (1 − e^(−50/100)) = 139.346934...
        #expect(abs((e?.offset?.y ?? 0) - 139.346_934_028_736_66) < 1e-9)
        #expect(e?.target?.y == 100)
    }

    @Test func exponential_matchesLibm() {
        for x in stride(from: -20.0, through: 20.0, by: 0.37) {
            let expected = Foundation.exp(x)
            #expect(abs(x.exponential - expected) <= 1e-12 * max(1, expected))
        }
    }

    @Test func pullDownOnly_resistsUpwardsAndSpringsBack() {
        let c = AxisConstraint(min: 0, mode: .rubberBand)
        let up = drag(c, by: -50)
        #expect(abs((up?.offset?.y ?? 0) - -15) < 1e-9)
        #expect(up?.target?.y == 0)
        let down = drag(c, by: 80)
        #expect(down?.offset?.y == 80)
        #expect(down?.target?.y == 80)
    }

    @Test(arguments: [(90.0, 0.0), (110.0, 200.0), (290.0, 200.0), (310.0, 400.0), (900.0, 400.0)])
    func snap_toTheNearestOf0_200_400(distance: Double, target: Double) {
        let e = drag(AxisConstraint(min: 0, max: 400, mode: .rubberBand, snapPoints: [0, 200, 400]), by: distance)
        #expect(e?.target?.y == target)
    }

    @Test func snap_theNextDragStartsFromWhereTheLastCameToRest() {
        // 150 → rests at 200; then +150 from 200 → 350 → rests at 400.
        let e = drag(AxisConstraint(min: 0, max: 400, snapPoints: [0, 200, 400]), by: 150, times: 2)
        #expect(e?.offset?.y == 350)
        #expect(e?.target?.y == 400)
    }

    @Test func snap_projectionByReleaseVelocity() {
        var c = AxisConstraint(min: 0, max: 400, snapPoints: [0, 200, 400])
        c.mode = .clamp
        #expect(c.rest(offset: 90, velocity: 600, projection: .milliseconds(200)) == 200)  // 90 + 120 = 210
        #expect(c.rest(offset: 90, velocity: 600, projection: .zero) == 0)
    }
}

