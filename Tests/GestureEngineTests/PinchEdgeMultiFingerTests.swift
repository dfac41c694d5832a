import Foundation
import Testing

@testable import GestureEngine

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

    /// Spreads two fingers landed at ids `a`, `b` (one spread of `pinch_spread_...` above).
    private func spread(_ t: inout Timeline) {
        for _ in 0..<10 {
            t.wait(.milliseconds(20))
            t.move(t.contacts[0].id, to: (t.contacts[0].position.x - 2, 500))
            t.move(t.contacts[1].id, to: (t.contacts[1].position.x + 2, 500))
        }
        t.upAll()
    }

    /// The fingers' shape is worked out only while a pinch (or a deciding pan) may read it: after
    /// a stroke in which the pinch failed, the next pinch still sees every change, whether its
    /// fingers land after a pause or in the very frame the last ones lift.
    @Test(arguments: [false, true])
    func pinch_afterATwoFingerPan_seesTheWholeSpread(landAsTheOthersLift: Bool) {
        var t = Timeline()
        t.down([(1, (400, 500)), (2, (600, 500))])
        t.dragAll(by: (0, 200), over: .milliseconds(200))
        if landAsTheOthersLift {
            t.wait(.milliseconds(20))
            t.contacts = [Contact(id: 3, position: PixelPoint(x: 400, y: 500)), Contact(id: 4, position: PixelPoint(x: 600, y: 500))]
            t.send()
        } else {
            t.upAll()
            t.wait(.milliseconds(400))
            t.down([(3, (400, 500)), (4, (600, 500))])
        }
        spread(&t)
        t.finish()
        #expect(t.log.first == "pan began")
        let ended = t.event("pinch", .ended)
        #expect(abs((ended?.scale ?? 0) - 1.2) < 1e-9)
        #expect(abs(ended?.rotation ?? 1) < 1e-9)
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
