import TestSupport
import Testing

@testable import GestureEngine

/// Random hands on the glass: whatever the timeline, the engine keeps its promises.
@Suite struct PropertyTests {
    static let configurations: [(String, EngineConfiguration)] = [
        ("default", .standard(screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000))),
        ("sheet", EngineConfiguration(screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000), regions: ArbitrationTests.sheet)),
        ("list", EngineConfiguration(screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000), regions: ArbitrationTests.list + [RegionSpec(name: "extra", rect: PixelRect(x: 0, y: 600, width: 400, height: 400), gestures: EngineConfiguration.standardGestures())])),
        ("photo", EngineConfiguration(screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000), regions: ArbitrationTests.photo + ArbitrationTests.nestedTaps(parentPriority: .simultaneous))),
        ("fingers", EngineConfiguration(screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000), regions: [RegionSpec(name: "all", gestures: fingers)])),
        ("table", table),
    ]

    /// Gestures of several fingers, and gestures kept waiting (ready) behind another's failure,
    /// so that random hands reach the rows of each table that one-finger defaults do not.
    static var fingers: [GestureSpec] {
        var hold = GestureSpec(.longPress, name: "hold")
        hold.requiresFailureOf = ["pan"]
        var pinch = GestureSpec(.pinch, fingers: 2, maxFingers: 2)
        pinch.requiresFailureOf = ["flick2"]
        return [
            GestureSpec(.tap, name: "tap2", fingers: 2), hold, GestureSpec(.longPress, name: "hold2", fingers: 2),
            GestureSpec(.pan), GestureSpec(.pan, name: "pan2", fingers: 2, maxFingers: 3),
            GestureSpec(.swipe, name: "flick"), GestureSpec(.swipe, name: "flick2", fingers: 2, maxFingers: 3), pinch,
            GestureSpec(.edgeSwipe, name: "edge2", fingers: 2),
        ]
    }

    /// Plays a random timeline from `seed`; returns the events and the transitions seen.
    static func play(_ config: EngineConfiguration, seed: UInt64, steps: Int = 300) -> (Timeline, [Transition]) {
        var rng = SplitMix64(seed: seed)
        var t = Timeline(config)
        t.engine.transitionLog = []
        t.engine.logsSelfLoops = true
        var transitions: [Transition] = []
        var nextID: UInt32 = 1
        func point() -> (Double, Double) {
            // A quarter of touches land near an edge.
            if Int.random(in: 0..<4, using: &rng) == 0 {
                return (Double.random(in: 0...8, using: &rng), Double.random(in: 0...1000, using: &rng))
            }
            return (Double.random(in: 0...1000, using: &rng), Double.random(in: 0...1000, using: &rng))
        }
        for _ in 0..<steps {
            let roll = Int.random(in: 0..<100, using: &rng)
            if t.contacts.isEmpty && roll < 30 {
                // Several fingers land in one frame.
                t.wait(.milliseconds(Int64.random(in: 0...700, using: &rng)))
                var fingers: [(UInt32, (Double, Double))] = []
                for _ in 0..<Int.random(in: 2...3, using: &rng) {
                    fingers.append((nextID, point()))
                    nextID += 1
                }
                t.down(fingers)
            } else if t.contacts.isEmpty {
                t.wait(.milliseconds(Int64.random(in: 0...700, using: &rng)))
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    t.down(nextID, at: point())
                    nextID += 1
                    if Bool.random(using: &rng) { t.wait(.milliseconds(Int64.random(in: 0...60, using: &rng))) }
                }
            } else if roll < 55 {
                let i = Int.random(in: 0..<t.contacts.count, using: &rng)
                let step = Double.random(in: 0...25, using: &rng)
                let angle = Double(Int.random(in: 0..<8, using: &rng))
                let d = [(1.0, 0.0), (0.7, 0.7), (0.0, 1.0), (-0.7, 0.7), (-1.0, 0.0), (-0.7, -0.7), (0.0, -1.0), (0.7, -0.7)][Int(angle)]
                t.wait(.milliseconds(Int64.random(in: 1...40, using: &rng)))
                let p = t.contacts[i].position
                t.move(t.contacts[i].id, to: (p.x + d.0 * step, p.y + d.1 * step))
            } else if roll < 65 && t.contacts.count < 5 {
                t.down(nextID, at: point())
                nextID += 1
            } else if roll < 80 {
                t.up(t.contacts[Int.random(in: 0..<t.contacts.count, using: &rng)].id)
            } else if roll < 90 {
                t.wait(.milliseconds(Int64.random(in: 0...800, using: &rng)))
            } else if roll < 91 {
                // One finger lifts and another lands between two reports.
                t.contacts.remove(at: Int.random(in: 0..<t.contacts.count, using: &rng))
                let (x, y) = point()
                t.contacts.append(Contact(id: nextID, position: PixelPoint(x: x, y: y)))
                nextID += 1
                t.send()
            } else if roll < 92 {
                t.palm()
            } else if roll < 93 {
                t.engine.handle(
                    TouchFrame(time: t.time, contacts: t.contacts, scale: .identity, discontinuity: true), into: &t.events)
            } else {
                t.upAll()
            }
            transitions += t.engine.transitionLog ?? []
            t.engine.transitionLog = []
        }
        t.upAll()
        t.finish()
        transitions += t.engine.transitionLog ?? []
        return (t, transitions)
    }

    @Test(arguments: configurations.map(\.0))
    func randomTimelines_keepEveryPromise(name: String) {
        let config = Self.configurations.first { $0.0 == name }!.1
        var kindsSeen: Set<String> = []
        var cancelled = 0
        defer {
            // The timelines are not vacuous: they make several kinds of gesture, and some cancellations.
            #expect(!kindsSeen.isEmpty, "\(name): only \(kindsSeen) seen")
            #expect(cancelled > 0, "\(name): no cancellation seen")
            if name == "default" { #expect(kindsSeen.count >= 5, "\(kindsSeen)") }
        }
        for seed in UInt64(1)...60 {
            let (t, transitions) = Self.play(config, seed: seed)
            for e in t.events {
                kindsSeen.insert(e.kind.rawValue)
                if e.phase == .cancelled { cancelled += 1 }
            }
            Self.checkPromises(config, seed: seed, t, transitions)
        }
    }

    /// Several sequences at once: random hands over sibling regions under a parent, and over
    /// random region trees (random rectangles, so random nesting and overlaps, with random
    /// gestures), keep every promise too; and sequences do run side by side.
    @Test func randomRegionTrees_keepEveryPromise() {
        var overlapping = 0
        for seed in UInt64(1)...80 {
            let config = seed <= 20 ? Self.table : Self.randomTree(seed: seed)
            let (t, transitions) = Self.play(config, seed: seed)
            Self.checkPromises(config, seed: seed, t, transitions)
            overlapping += Self.sequencesSideBySide(t.events)
        }
        #expect(overlapping > 0, "no two sequences ever ran at once")
    }

    /// A table with two-finger gestures over two halves with the standard gestures.
    static var table: EngineConfiguration {
        var both = GestureSpec(.pan, name: "both", fingers: 2)
        both.priority = .high
        var halves = RealHandsTests.halves
        halves.insert(RegionSpec(name: "table", gestures: [both, GestureSpec(.tap, name: "tap2", fingers: 2)]), at: 0)
        return EngineConfiguration(screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000), regions: halves)
    }

    /// Two to six random rectangles, each with two to five gestures drawn from the standard set
    /// and `fingers`, with random priorities.
    static func randomTree(seed: UInt64) -> EngineConfiguration {
        var rng = SplitMix64(seed: seed &* 7919)
        let pool = EngineConfiguration.standardGestures() + fingers
        var regions: [RegionSpec] = []
        for i in 0..<Int.random(in: 2...6, using: &rng) {
            let x = Double(Int.random(in: 0...6, using: &rng)) * 100, y = Double(Int.random(in: 0...6, using: &rng)) * 100
            let w = Double(Int.random(in: 2...10, using: &rng)) * 100, h = Double(Int.random(in: 2...10, using: &rng)) * 100
            let rect = PixelRect(x: x, y: y, width: min(w, 1000 - x), height: min(h, 1000 - y))
            var gestures: [GestureSpec] = []
            for _ in 0..<Int.random(in: 2...5, using: &rng) {
                var g = pool[Int.random(in: 0..<pool.count, using: &rng)]
                guard !gestures.contains(where: { $0.name == g.name }) else { continue }
                // Rules name gestures of the region; drop those that name one it lacks.
                g.requiresFailureOf = []
                g.simultaneousWith = []
                g.priority = [.normal, .high, .simultaneous][Int.random(in: 0..<3, using: &rng)]
                gestures.append(g)
            }
            regions.append(RegionSpec(name: "r\(i)", rect: i == 0 && Bool.random(using: &rng) ? nil : rect, gestures: gestures))
        }
        return EngineConfiguration(screen: PixelRect(x: 0, y: 0, width: 1000, height: 1000), regions: regions)
    }

    /// How many times an event of one sequence came while another sequence had a gesture under way.
    static func sequencesSideBySide(_ events: [GestureEvent]) -> Int {
        var running: [UInt64: Int] = [:]  // instance id -> sequence
        var count = 0
        for e in events {
            if running.values.contains(where: { $0 != e.sequence }) { count += 1 }
            switch e.phase {
            case .began: running[e.id] = e.sequence
            case .ended, .cancelled: running[e.id] = nil
            case .changed, .recognized: break
            }
        }
        return count
    }

    static func checkPromises(_ config: EngineConfiguration, seed: UInt64, _ t: Timeline, _ transitions: [Transition]) {
        // Deterministic: the same input gives the same output.
        let (again, _) = Self.play(config, seed: seed)
        #expect(again.events == t.events, "seed \(seed): output differs between runs")

        // Balanced: every instance is one recognized, or began…changed…one ended/cancelled.
        var byID: [UInt64: [GestureEvent]] = [:]
        var order: [UInt64] = []
        for e in t.events {
            if byID[e.id] == nil { order.append(e.id) }
            byID[e.id, default: []].append(e)
        }
        #expect(order == order.sorted(), "seed \(seed): ids are not unique per instance")
        for (id, events) in byID {
            let phases = events.map(\.phase)
            if events[0].kind.isDiscrete {
                #expect(phases == [.recognized], "seed \(seed) id \(id): \(phases)")
            } else {
                let terminal = phases.filter { $0 == .ended || $0 == .cancelled }.count
                #expect(phases.first == .began && terminal == 1 && (phases.last == .ended || phases.last == .cancelled),
                    "seed \(seed) id \(id): \(phases)")
                #expect(phases.dropFirst().dropLast().allSatisfy { $0 == .changed }, "seed \(seed) id \(id): \(phases)")
            }
        }
        // Time runs forward.
        #expect(zip(t.events, t.events.dropFirst()).allSatisfy { $0.time <= $1.time }, "seed \(seed)")
        // Idle after the last lift: nothing pending, every recognizer back to rest.
        #expect(t.engine.isIdle, "seed \(seed): engine not idle after the last lift")
        #expect(t.engine.nextDeadline == nil, "seed \(seed): a deadline is still pending")

        // No impossible (state, input) pair, no decision taken twice.
        #expect(t.engine.invalidInputs == 0 && t.engine.arenaViolations == 0, "seed \(seed)")

        // Every transition the code made is in its recognizer's table.
        for tr in transitions {
            let kind = t.engine.configuration.gestures[tr.gesture].spec.kind
            let table = RecognizerBank.transitions(of: kind)
            let known = table.contains { $0.from == tr.from && $0.input == tr.input && $0.to == tr.to }
            #expect(known, "seed \(seed): \(kind.rawValue) \(tr.from) --\(tr.input)--> \(tr.to) is not in its table")
        }
    }

    @Test func arenaInvariant_eachMemberDecidedOncePerRound() {
        // Accepted or rejected exactly once per round: count decisions in the transition log.
        for seed in UInt64(100)...140 {
            let (t, transitions) = Self.play(Self.configurations[0].1, seed: seed)
            var decided: [Int: Int] = [:]  // gesture -> decisions since last arming
            var accepted: Set<Int> = []
            for tr in transitions {
                if tr.from == .idle {
                    decided[tr.gesture] = 0
                    accepted.remove(tr.gesture)
                }
                let accepts = tr.input == .accepted
                // A failure after acceptance is a cancellation, not a second decision.
                let rejects = tr.to == .failed && tr.from != .failed && !accepted.contains(tr.gesture)
                if accepts { accepted.insert(tr.gesture) }
                if accepts || rejects {
                    decided[tr.gesture, default: 0] += 1
                    #expect(decided[tr.gesture]! == 1, "seed \(seed): gesture \(tr.gesture) decided twice in a round")
                }
            }
            _ = t
        }
    }
}
