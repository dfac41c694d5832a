import TestSupport
import Testing

@testable import GestureEngine

/// The other direction of the table check: every row of every recognizer's table is a
/// transition the code takes. Random timelines over the four configurations (with every
/// transition logged, self-loops too) must between them take each row; a row none takes is
/// either dead (remove it) or needs a timeline here that reaches it.
@Suite struct TransitionTableCoverageTests {
    struct Row: Hashable, CustomStringConvertible {
        var kind: GestureKind
        var from: RecognizerStateName
        var input: RecognizerInputName
        var to: RecognizerStateName
        var description: String { "\(kind.rawValue): \(from) --\(input)--> \(to)" }
    }

    @Test func everyTableRow_isTakenByTheCode() {
        var taken: Set<Row> = []
        let trees = (UInt64(1)...40).map { ("tree \($0)", PropertyTests.randomTree(seed: $0)) }
        for (name, config) in PropertyTests.configurations + trees {
            for seed in UInt64(1)...(name.hasPrefix("tree") ? 10 : 150) {
                let (t, transitions) = PropertyTests.play(config, seed: seed)
                for tr in transitions {
                    let kind = t.engine.configuration.gestures[tr.gesture].spec.kind
                    taken.insert(Row(kind: kind, from: tr.from, input: tr.input, to: tr.to))
                }
            }
        }
        for (kind, rows) in TargetedTimelines.all() {
            #expect(!rows.isEmpty, "a targeted \(kind.rawValue) timeline took no transition")
            for tr in rows {
                let known = RecognizerBank.transitions(of: kind).contains { $0.from == tr.from && $0.input == tr.input && $0.to == tr.to }
                #expect(known, "\(kind.rawValue) \(tr.from) --\(tr.input)--> \(tr.to) is not in its table")
                taken.insert(Row(kind: kind, from: tr.from, input: tr.input, to: tr.to))
            }
        }
        var never: [Row] = []
        for kind in GestureKind.allCases {
            for r in RecognizerBank.transitions(of: kind) {
                let row = Row(kind: kind, from: r.from, input: r.input, to: r.to)
                if !taken.contains(row) { never.append(row) }
            }
        }
        #expect(never.isEmpty, "rows the code never took:\n\(never.map(\.description).joined(separator: "\n"))")
    }
}

/// Timelines that reach rows random hands rarely do: a continuous gesture kept ready behind
/// another's failure while its fingers change, and a frame that lifts one finger and moves another.
enum TargetedTimelines {
    static func all() -> [(GestureKind, [Transition])] {
        [
            heldBehindASlowTap(), pinchBehindAFourFingerTap(), edgeSwipeActiveThenPalm(), edgeSwipeBehindASlowTap(), panReadyAtALift(),
            pinchReadyAsAFingerLands(), pinchReadyAsAFingerLifts(),
        ] + strokes()
    }

    /// Plays `script` on a region of `gestures` with every transition logged.
    static func play(_ gestures: [GestureSpec], _ script: (inout Timeline) -> Void) -> [(GestureKind, Transition)] {
        var t = Timeline(regions: [RegionSpec(name: "all", gestures: gestures)])
        t.engine.transitionLog = []
        t.engine.logsSelfLoops = true
        script(&t)
        t.finish()
        return (t.engine.transitionLog ?? []).map { (t.engine.configuration.gestures[$0.gesture].spec.kind, $0) }
    }

    static func rows(_ kind: GestureKind, _ played: [(GestureKind, Transition)]) -> (GestureKind, [Transition]) {
        (kind, played.filter { $0.0 == kind }.map(\.1))
    }

    /// A tap that stays possible for 2 s (no slop, no time limit to speak of).
    static func slowTap(fingers: Int) -> GestureSpec {
        var tap = GestureSpec(.tap, name: "slow", fingers: fingers)
        tap.thresholds.tapMaxDuration = .seconds(2)
        tap.thresholds.tapSlop = 1000
        return tap
    }

    /// Two-finger long press, ready at 500 ms but held by a slow two-finger tap: a finger is
    /// replaced (ready → ready), one lifts (ready → ready), the other lifts (readyLifted), and the
    /// tap, complete, wins (readyLifted → failed).
    static func heldBehindASlowTap() -> (GestureKind, [Transition]) {
        var hold = GestureSpec(.longPress, name: "hold", fingers: 2)
        hold.requiresFailureOf = ["slow"]
        return rows(.longPress, play([slowTap(fingers: 2), hold]) { t in
            t.down([(1, (400, 400)), (2, (440, 400))])
            t.wait(.milliseconds(600))
            t.contacts.removeAll { $0.id == 2 }
            t.contacts.append(Contact(id: 3, position: PixelPoint(x: 440, y: 401)))
            t.send()
            t.up(1)
            t.up(3)
        })
    }

    /// A pinch held by a four-finger tap that cannot happen: three fingers spread (ready), one is
    /// replaced, one lifts (ready → ready), the rest lift (readyLifted); the tap fails and the
    /// pinch is accepted after its fingers lifted (readyLifted → ended).
    static func pinchBehindAFourFingerTap() -> (GestureKind, [Transition]) {
        var pinch = GestureSpec(.pinch, fingers: 2, maxFingers: 3)
        pinch.requiresFailureOf = ["slow"]
        return rows(.pinch, play([slowTap(fingers: 4), pinch]) { t in
            t.down([(1, (400, 400)), (2, (500, 400)), (3, (450, 500))])
            for _ in 0..<5 {
                t.wait(.milliseconds(10))
                t.contacts[0].position.x -= 10
                t.contacts[1].position.x += 10
                t.send()
            }
            t.contacts.removeAll { $0.id == 3 }
            t.contacts.append(Contact(id: 4, position: PixelPoint(x: 450, y: 520)))
            t.send()
            t.up(4)
            t.upAll()
        })
    }

    /// A two-finger edge swipe in from the left, accepted (active); a finger is replaced
    /// (active → active), then a palm cancels it (active → failed).
    static func edgeSwipeActiveThenPalm() -> (GestureKind, [Transition]) {
        rows(.edgeSwipe, play([GestureSpec(.edgeSwipe, fingers: 2)]) { t in
            t.down([(1, (2, 400)), (2, (3, 450))])
            t.dragAll(by: (20, 0), over: .milliseconds(100))
            t.contacts.removeAll { $0.id == 2 }
            t.contacts.append(Contact(id: 3, position: PixelPoint(x: 30, y: 460)))
            t.send()
            t.palm()
            t.upAll()
        })
    }

    /// A two-finger edge swipe held by a slow two-finger tap: ready, the fingers lift
    /// (readyLifted), the tap wins (readyLifted → failed).
    static func edgeSwipeBehindASlowTap() -> (GestureKind, [Transition]) {
        var edge = GestureSpec(.edgeSwipe, fingers: 2)
        edge.requiresFailureOf = ["slow"]
        return rows(.edgeSwipe, play([slowTap(fingers: 2), edge]) { t in
            t.down([(1, (2, 400)), (2, (3, 450))])
            t.dragAll(by: (20, 0), over: .milliseconds(100))
            t.upAll()
        })
    }

    /// A one-or-two-finger pan: two fingers rest, then in one frame one lifts and the other
    /// moves past the slop (tracking → ready on contactEnded).
    static func panReadyAtALift() -> (GestureKind, [Transition]) {
        rows(.pan, play([GestureSpec(.pan, fingers: 1, maxFingers: 2)]) { t in
            t.down([(1, (400, 400)), (2, (500, 400))])
            t.wait(.milliseconds(10))
            t.contacts.removeAll { $0.id == 2 }
            t.contacts[0].position.x += 10
            t.send()
            t.upAll()
        })
    }

    /// Two fingers rest; in one frame a third lands while the two spread past the slop
    /// (pinch tracking → ready on contactBegan: the span is measured over the two that stayed).
    static func pinchReadyAsAFingerLands() -> (GestureKind, [Transition]) {
        rows(.pinch, play([GestureSpec(.pinch, fingers: 2, maxFingers: 3)]) { t in
            t.down([(1, (400, 400)), (2, (500, 400))])
            t.wait(.milliseconds(10))
            t.contacts[0].position.x -= 10
            t.contacts[1].position.x += 10
            t.contacts.append(Contact(id: 3, position: PixelPoint(x: 450, y: 600)))
            t.send()
            t.upAll()
        })
    }

    /// Three fingers rest; in one frame one lifts while the other two spread past the slop
    /// (pinch tracking → ready on contactEnded).
    static func pinchReadyAsAFingerLifts() -> (GestureKind, [Transition]) {
        rows(.pinch, play([GestureSpec(.pinch, fingers: 2, maxFingers: 3)]) { t in
            t.down([(1, (400, 400)), (2, (500, 400)), (3, (450, 600))])
            t.wait(.milliseconds(10))
            t.contacts.removeAll { $0.id == 3 }
            t.contacts[0].position.x -= 10
            t.contacts[1].position.x += 10
            t.send()
            t.upAll()
        })
    }
}

/// The counters the property tests expect at 0 must move when their rule is broken.
@Suite struct AnomalyCounterTests {
    @Test func arena_aSecondDecision_isCountedNotIgnored() {
        var arena = Arena(gestureCount: 2)
        arena.arm(0, round: 1, region: 0, firstSerial: 1)
        arena.decide(0, .accepted)
        #expect(arena.violations == 0)
        arena.decide(0, .rejected)
        #expect(arena.violations == 1)
        #expect(arena.decision(0) == .accepted)
    }

    @Test func tap_acceptedWhileStillPressing_failsAsAnImpossibleInput() {
        var tap = TapRecognizer(fingers: 1, taps: 1, thresholds: .standard)
        var out: [GestureEvent] = []
        var noFrame = FrameSummary(time: Timestamp(seconds: 1))
        tap.handle(.accepted(Timestamp(seconds: 1)), &noFrame, into: &out)
        #expect(out.isEmpty)
        #expect(tap.status == .failed)
        if case .invalidInput? = tap.failure {} else { Issue.record("failure \(String(describing: tap.failure))") }
    }
}
