import Foundation
import Testing

@testable import GestureEngine

/// A gesture that needs more fingers than another began with takes it over (`ArenaPolicy
/// .takesOver`): in the built-in set, a pinch whose first finger moved a pan's slop before the
/// second landed. 1 px = 1 mm, screen 1000 × 1000, 120 Hz frames.
@Suite struct TakeoverTests {
    /// The first finger drifts 6 mm (a one-finger pan begins), the second lands `lag` ms after the
    /// first, then the two spread: the pan is cancelled and the pinch begins, as when the two
    /// land together.
    @Test(arguments: [50, 80, 120])
    func aPinchWhoseFirstFingerMovedFirst_takesOverThePan(lag: Int64) throws {
        var t = Timeline()
        t.down(1, at: (400, 500))
        t.drag(1, by: (-6, 0), over: .milliseconds(lag), steps: Int(lag / 8))
        t.down(2, at: (500, 500))
        Self.spread(&t)
        t.upAll()
        let lines = t.log.filter { !$0.hasSuffix("changed") }
        #expect(lines == ["pan began", "pan cancelled", "pinch began", "pinch ended"], "\(t.log)")
        // The pan's end comes before the pinch's beginning, in the same frame.
        let cancelled = try #require(t.event("pan", .cancelled)), began = try #require(t.event("pinch", .began))
        #expect(cancelled.time == began.time)
    }

    /// The same landing, the two fingers then moving together: a two-finger pan, never cancelled.
    @Test func aPanJoinedByASecondFinger_movingTogether_staysAPan() {
        var t = Timeline()
        t.down(1, at: (400, 500))
        t.drag(1, by: (-6, 0), over: .milliseconds(80), steps: 10)
        t.down(2, at: (500, 500))
        t.dragAll(by: (-60, 0), over: .milliseconds(300), steps: 36)
        t.upAll()
        let lines = t.log.filter { !$0.hasSuffix("changed") }
        #expect(lines.first == "pan began" && lines.contains("pan ended") && !lines.contains { $0.hasPrefix("pinch") || $0.hasSuffix("cancelled") }, "\(t.log)")
    }

    /// A spread that starts past the window (twice `finger_settle` after the pan began) takes
    /// nothing over: the pan goes on, the pinch loses.
    @Test func aSpreadPastTheWindow_leavesThePan() {
        var t = Timeline()
        t.down(1, at: (400, 500))
        t.drag(1, by: (-6, 0), over: .milliseconds(80), steps: 10)
        t.down(2, at: (500, 500))
        t.wait(.milliseconds(400))
        Self.spread(&t)
        t.upAll()
        let lines = t.log.filter { !$0.hasSuffix("changed") }
        #expect(lines == ["pan began", "pan ended"], "\(t.log)")
    }

    /// Two fingers landing together and spreading: the pinch alone, as before.
    @Test func twoFingersLandingTogether_pinchWithoutAPan() {
        var t = Timeline()
        t.down([(1, (400, 500)), (2, (500, 500))])
        Self.spread(&t)
        t.upAll()
        #expect(t.log.filter { !$0.hasSuffix("changed") } == ["pinch began", "pinch ended"], "\(t.log)")
    }

    /// Gestures a rule orders (here the pinch made simultaneous with the pan) take nothing over.
    @Test func aRuleBetweenThem_meansNoTakeover() {
        var pan = GestureSpec(.pan, fingers: 1, maxFingers: 5)
        pan.simultaneousWith = ["pinch"]
        let pinch = GestureSpec(.pinch, fingers: 2, maxFingers: 5)
        let config = CompiledConfiguration(EngineConfiguration(screen: rect(0, 0, 1000, 1000), regions: [RegionSpec(name: "screen", gestures: [pan, pinch])]))
        #expect(!config.policy.takesOver(1, 0) && !config.policy.takesOver(0, 1))
        let standard = CompiledConfiguration(EngineConfiguration.standard())
        let names = standard.gestures.map(\.spec.name)
        let (p, q) = (try! #require(names.firstIndex(of: "pinch")), try! #require(names.firstIndex(of: "pan")))
        #expect(standard.policy.takesOver(p, q) && !standard.policy.takesOver(q, p))
    }

    /// A two-finger tap after a one-finger pan began (a tap slop past the pan's): a tap is ready
    /// only at the lift, where the pan has ended, so it takes nothing over and loses to the pan as
    /// before (the two were both recognized while it could).
    @Test func aTapTakesNothingOver() {
        var th = Thresholds.standard
        th.tapSlop = 5
        var pan = GestureSpec(.pan, fingers: 1, maxFingers: 5, thresholds: th)
        pan.simultaneousWith = []
        let tap2 = GestureSpec(.tap, name: "two_finger_tap", fingers: 2, thresholds: th)
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [pan, tap2])])
        t.down(1, at: (400, 500))
        t.drag(1, by: (4, 0), over: .milliseconds(40), steps: 5)
        t.down(2, at: (450, 500))
        t.wait(.milliseconds(40))
        t.upAll()
        t.finish()
        #expect(t.log.filter { !$0.hasSuffix("changed") } == ["pan began", "pan ended"], "\(t.log)")
    }

    /// A pan that waits for a swipe's deadline wins at it with two fingers down, the second
    /// landed in an earlier frame and no frame between: that landing is no longer the frame's,
    /// so the pinch is not spared and the spread after it leaves the pan running.
    @Test func aWinAtADeadline_countsNoEarlierLanding() {
        var th = Thresholds.standard
        th.swipeMaxDuration = .milliseconds(100)
        var pan = GestureSpec(.pan, fingers: 1, maxFingers: 5, thresholds: th)
        pan.requiresFailureOf = ["swipe"]
        let swipe = GestureSpec(.swipe, fingers: 1, maxFingers: 5, thresholds: th)
        let pinch = GestureSpec(.pinch, fingers: 2, maxFingers: 5, thresholds: th)
        var t = Timeline(regions: [RegionSpec(name: "screen", gestures: [pan, swipe, pinch])])
        t.down(1, at: (400, 500))
        t.drag(1, by: (-6, 0), over: .milliseconds(60), steps: 6)
        t.wait(.milliseconds(15))
        t.down(2, at: (500, 500))
        t.wait(.milliseconds(40))
        Self.spread(&t)
        t.upAll()
        t.finish()
        let lines = t.log.filter { !$0.hasSuffix("changed") }
        #expect(lines.first == "pan began" && !lines.contains("pan cancelled") && !lines.contains("pinch began"), "\(t.log)")
    }

    /// The two fingers down spread apart, 2 mm each a frame at 120 Hz for 20 frames.
    static func spread(_ t: inout Timeline) {
        for _ in 0..<20 {
            t.wait(.milliseconds(8))
            t.contacts[0].position.x -= 2
            t.contacts[1].position.x += 2
            t.send()
        }
    }
}

/// A new engine taking over a panel with a finger down (a reload that could wait no longer for
/// it, `Engine.passOver`): that finger is in no region until it lifts, and the others' gestures
/// go on beside it (the whole panel was silenced until it lifted).
@Suite struct PassOverTests {
    @Test func aFingerDownBeforeTheTakeover_isPassedOver_andATapBesideItIsATap() {
        var t = Timeline()
        t.engine.passOver([1])
        t.down(1, at: (400, 500))
        t.wait(.milliseconds(900))  // long enough for a long press: none, it is passed over
        t.down(2, at: (700, 500))
        t.wait(.milliseconds(60))
        t.up(2)
        t.wait(.milliseconds(400))
        t.up(1)
        t.wait(.milliseconds(400))
        #expect(t.log.filter { $0.hasPrefix("tap") } == ["tap recognized"] && !t.log.contains { $0.hasPrefix("long_press") }, "\(t.log)")
        // A finger landing after it lifted, its id new, is a gesture's as any.
        t.down(3, at: (400, 500))
        t.wait(.milliseconds(900))
        #expect(t.log.contains("long_press began"), "\(t.log)")
    }

    /// A new configuration taken before the engine first sees the passed-over finger (it is
    /// idle: touch to wake's drop of water, first seen past the waking touch's window, or a
    /// client's regions then) leaves it passed over: no long press on it.
    @Test func aPassedOverFinger_staysPassedOver_underANewConfiguration() {
        var t = Timeline()
        t.engine.passOver([1])
        t.engine.reconfigure(t.engine.configuration)
        t.down(1, at: (400, 500))
        t.wait(.milliseconds(900))
        #expect(!t.log.contains { $0.hasPrefix("long_press") }, "\(t.log)")
    }
}
