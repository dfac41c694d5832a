import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import Testing
import TouchFrames

/// Which gestures take their touches from the app (`cancels_touches`), and which of the panel's
/// slots the pipeline reports for pass-through to cancel, in the frame they are taken.
@Suite struct SystemGestureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// The slots reported, frame by frame, with the gesture lines of the same frame.
    static func taken(_ config: String, _ recording: String) throws -> [(slots: [UInt32], lines: String)] {
        let c = try ConfigLoader.parse(config, file: "c.toml")
        let rec = try Evemu.parse(try String(contentsOfFile: fixtures + "/" + recording, encoding: .utf8), file: recording)
        var pipeline = try DevicePipeline(description: try #require(rec.description), configuration: c)
        var out = PipelineOutput()
        out.wants.gestureLines = true
        var taken: [(slots: [UInt32], lines: String)] = []
        for e in rec.events {
            out.removeAll()
            pipeline.feed(e, into: &out)
            if !out.takenContacts.isEmpty { taken.append((out.takenContacts, String(decoding: out.lines, as: UTF8.self))) }
        }
        return taken
    }

    /// Pass-through, one region with an edge swipe that says whether it cancels touches.
    static func edgeSwipe(cancelsTouches: Bool) -> String {
        "[device]\nmode = \"passthrough\"\n[[region]]\nname = \"screen\"\n[[region.gesture]]\nkind = \"edge_swipe\"\ncancels_touches = \(cancelsTouches)\n"
    }

    static let back = "[[action]]\nname = \"back\"\ngesture = \"edge_swipe\"\nkeys = \"KEY_LEFTALT+KEY_LEFT\"\n"

    @Test func passThrough_aGestureBoundToAnAction_takesItsTouchWhenItBegins() throws {
        let taken = try Self.taken("[device]\nmode = \"passthrough\"\n" + Self.back, "edge-swipe-from-left.events")
        #expect(taken.count == 1)
        #expect(taken.first?.slots == [1])
        #expect(taken.first?.lines.contains(#""gesture":"edge_swipe","phase":"began""#) == true)
    }

    @Test func observeMode_orCancelsTouchesFalse_takesNothing() throws {
        #expect(try Self.taken(Self.back, "edge-swipe-from-left.events").isEmpty, "observe: no virtual touchscreen")
        #expect(try Self.taken(Self.edgeSwipe(cancelsTouches: false) + "\n" + Self.back, "edge-swipe-from-left.events").isEmpty)
    }

    @Test func cancelsTouchesTrue_takesTheTouches_withoutAnAction() throws {
        let config = Self.edgeSwipe(cancelsTouches: true)
        #expect(try Self.taken(config, "edge-swipe-from-left.events").map(\.slots) == [[1]])
        // A gesture that does not begin takes nothing: a tap is no edge swipe.
        #expect(try Self.taken(config, "tap.events").isEmpty)
    }

    /// Touch to wake: a swallowed sequence reaches no recognizer; the next one does.
    @Test func swallowedSequence_isNoGesture_theNextOneIs() throws {
        let rec = try Evemu.parse(try String(contentsOfFile: Self.fixtures + "/tap.events", encoding: .utf8), file: "tap.events")
        var pipeline = try DevicePipeline(description: try #require(rec.description), configuration: .standard)
        var out = PipelineOutput()
        out.wants.gestureLines = true
        pipeline.swallowSequence()
        for e in rec.events { pipeline.feed(e, into: &out) }
        pipeline.advance(to: Timestamp(nanoseconds: 5_000_000_000), into: &out)
        #expect(out.events.isEmpty, "the swallowed tap")
        #expect(out.frameCount > 0, "its frames still count")
        let shift: Int64 = 6_000_000_000
        for e in rec.events {
            pipeline.feed(InputEvent(time: Timestamp(nanoseconds: e.time.nanoseconds + shift), type: e.type, code: e.code, value: e.value), into: &out)
        }
        pipeline.advance(to: Timestamp(nanoseconds: 12_000_000_000), into: &out)
        #expect(out.events.map(\.kind) == [.tap])
    }

    /// delays_touches_began: a touch landing in the edge band is held while the edge swipe may
    /// still take it, and no longer once it failed (the tap lifted); a touch mid-screen never is.
    @Test func delayingGesture_holdsTheTouchesItMayStillTake() throws {
        let config = try ConfigLoader.parse(
            Self.edgeSwipe(cancelsTouches: true) + "delays_touches_began = 150\n", file: "c.toml")
        func held(_ name: String, x: Int32?) throws -> [[UInt32]] {
            let rec = try Evemu.parse(try String(contentsOfFile: Self.fixtures + "/" + name, encoding: .utf8), file: name)
            var pipeline = try DevicePipeline(description: try #require(rec.description), configuration: config)
            var out = PipelineOutput()
            var frames: [[UInt32]] = []
            for e in rec.events {
                var e = e
                if let x, e.type == Evdev.EV_ABS && e.code == Evdev.ABS_MT_POSITION_X { e.value = x }
                out.removeAll()
                pipeline.feed(e, into: &out)
                if e.type == Evdev.EV_SYN {
                    pipeline.collectHeld(into: &out)
                    frames.append(out.heldContacts)
                }
            }
            return frames
        }
        let edgeTap = try held("tap.events", x: 10)
        #expect(edgeTap.first == [1], "held from its landing")
        #expect(edgeTap.last == [], "released once the edge swipe failed")
        #expect(try held("tap.events", x: nil).allSatisfy(\.isEmpty), "mid-screen: never held")
        #expect(try held("edge-swipe-from-left.events", x: nil).first == [1])
    }
}

/// Hardening round 3: one client's full-screen region with a pan, a long press and a tap stopped
/// every `[[action]]` of the file (the client's region, declared later, was the inner one and won
/// every touch). A gesture the file binds an action to is a system gesture: it outranks every
/// client gesture it meets, and a touch in both regions goes to the file's.
@Suite struct SystemGestureRankTests {
    static let fixtures = SystemGestureTests.fixtures

    /// The gesture lines of `recording` under the file's config plus `client`'s regions, as the
    /// daemon compiles them (file regions first, then each client's).
    static func lines(file: String, client: String, _ recording: String) throws -> String {
        var c = try ConfigLoader.parse(file, file: "c.toml")
        let tables = try parseTOML(client)
        guard case .tables(let regions)? = tables["region"] else { throw ConfigError(file: "client", line: 1, reason: "no regions") }
        c.engine.regions += try ConfigLoader.clientRegions(regions, base: c, file: "client")
        let rec = try Evemu.parse(try String(contentsOfFile: fixtures + "/" + recording, encoding: .utf8), file: recording)
        var pipeline = try DevicePipeline(description: try #require(rec.description), configuration: c)
        var out = PipelineOutput()
        out.wants.gestureLines = true
        var text = ""
        for e in rec.events {
            out.removeAll()
            pipeline.feed(e, into: &out)
            text += String(decoding: out.lines, as: UTF8.self)
        }
        return text
    }

    static let fullScreenClient = """
        [[region]]
        name = "app"
        [[region.gesture]]
        kind = "pan"
        [[region.gesture]]
        kind = "long_press"
        [[region.gesture]]
        kind = "tap"
        """

    @Test func aClientsFullScreenRegion_doesNotStopTheFilesBackSwipe() throws {
        let out = try Self.lines(file: SystemGestureTests.back, client: Self.fullScreenClient, "edge-swipe-from-left.events")
        #expect(out.contains(#""gesture":"edge_swipe","phase":"began""#), "\(out)")
        #expect(!out.contains(#""region":"app""#), "the client's pan took the Back swipe: \(out)")
    }

    /// Overlapping, not nested: the client's rectangle covers part of the file's edge strip. The
    /// touch in the strip goes to the file's region (before: to the later-declared client's).
    @Test func aClientRegionOverlappingTheEdgeStrip_doesNotTakeItsTouch() throws {
        let file = "[[region]]\nname = \"edge\"\nrect = [0, 0, 40, 1080]\ngesture = [{ kind = \"edge_swipe\", edges = [\"left\"] }]\n" + SystemGestureTests.back
        let client = "[[region]]\nname = \"app\"\nrect = [0, 0, 1920, 1000]\ngesture = [{ kind = \"pan\", priority = \"high\" }]\n"
        let out = try Self.lines(file: file, client: client, "edge-swipe-from-left.events")
        #expect(out.contains(#""gesture":"edge_swipe","phase":"began""#), "\(out)")
    }

    /// A gesture no action is bound to stays the client's to win (a region of the client's app
    /// inside the file's screen region, as ever).
    @Test func withoutAnAction_theClientsInnerRegionStillWins() throws {
        let out = try Self.lines(file: "[thresholds]\nedge_band = 6\n", client: Self.fullScreenClient, "edge-swipe-from-left.events")
        #expect(!out.contains(#""gesture":"edge_swipe""#), "\(out)")
        #expect(out.contains(#""region":"app""#), "\(out)")
    }
}
