import Daemon
import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import Testing
import TouchFrames

@testable import GestureConfig

/// A region's `max_contacts`: the virtual touchscreen shows at most that many of its contacts
/// (a browser under it cannot pinch-zoom), the gestures see them all.
@Suite struct ContactLimitTests {
    static let config = "[[region]]\nname = \"page\"\nmax_contacts = 1\nstandard_gestures = true\n"

    @Test func aPinchInALimitedRegion_showsTheAppOneFinger_theGesturesAPinch() throws {
        let rec = try MirrorReplayTests.recording("pinch-out-and-turn")
        let configuration = try ConfigLoader.parse(Self.config, file: "l.toml")
        var replay = try MirrorReplay(description: try #require(rec.description), configuration: configuration, path: "limit")
        replay.play(rec.eventsLiftedAtEnd)
        let ids = Set(replay.events.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.type == 3 && $0.value >= 0 }.map(\.value))
        #expect(ids.count == 1, "one finger on the virtual touchscreen")
        let lines = try DevicePipeline.lines(rec, description: try #require(rec.description), configuration: configuration)
        #expect(lines.contains("\"gesture\":\"pinch\""), "the gestures see both")
        // Without the limit, both fingers reach the app.
        var free = try MirrorReplay(description: try #require(rec.description), configuration: try ConfigLoader.parse("", file: "f.toml"), path: "free")
        free.play(rec.eventsLiftedAtEnd)
        #expect(Set(free.events.filter { $0.code == Evdev.ABS_MT_TRACKING_ID && $0.type == 3 && $0.value >= 0 }.map(\.value)).count == 2)
    }

    @Test func maxContacts_isTheFilesNotAClients_andInItsRange() throws {
        let base = try ConfigLoader.parse("", file: "b.toml")
        let table = try parseTOML(bytes: Array("name = \"mine\"\nmax_contacts = 1\n".utf8))
        #expect(throws: ConfigError.self) { try ConfigLoader.clientRegions([table], base: base, file: "client") }
        #expect(throws: ConfigError.self) { try ConfigLoader.parse("[[region]]\nname = \"p\"\nmax_contacts = 0\n", file: "l.toml") }
        #expect(try ConfigLoader.parse(Self.config, file: "l.toml").engine.regions[0].maxContacts == 1)
    }

    /// Two fingers landing one after the other (x 200 and 600 of the panel), through the
    /// pipeline, a reload after them when asked, then a frame more: what was taken from the app,
    /// and the pipeline's count of it.
    static func taken(_ config: String, reloadAfter: Bool = false) throws -> (ids: [UInt32], count: Int) {
        let panel = FilteredGestureTests.panel
        var configuration = try ConfigLoader.parse(config, file: "l.toml")
        configuration.daemon.mode = .passthrough
        var p = try DevicePipeline(description: panel, configuration: configuration, device: 1)
        var out = PipelineOutput(wants: .init())
        var taken: [UInt32] = []
        func frame(_ t: Int64, _ events: [(UInt16, UInt16, Int32)]) {
            for e in events + [(0, 0, 0)] { p.feed(InputEvent(time: Timestamp(nanoseconds: t), type: e.0, code: e.1, value: e.2), into: &out) }
            taken += out.takenContacts
            out.removeAll()
        }
        frame(0, [(3, Evdev.ABS_MT_SLOT, 0), (3, Evdev.ABS_MT_TRACKING_ID, 1), (3, Evdev.ABS_MT_POSITION_X, 200), (3, Evdev.ABS_MT_POSITION_Y, 1000)])
        frame(20_000_000, [(3, Evdev.ABS_MT_SLOT, 1), (3, Evdev.ABS_MT_TRACKING_ID, 2), (3, Evdev.ABS_MT_POSITION_X, 600), (3, Evdev.ABS_MT_POSITION_Y, 1000)])
        if reloadAfter {
            var next = try DevicePipeline(description: panel, configuration: configuration, device: 1)
            next.decoder.continueFrom(p.decoder)
            next.continued(from: p)
            p = next
        }
        frame(40_000_000, [(3, Evdev.ABS_MT_SLOT, 1), (3, Evdev.ABS_MT_POSITION_X, 610)])
        return (taken, p.contactsLimited)
    }

    @Test func theSecondFinger_isTakenOnce_andCounted_acrossAReload() throws {
        let plain = try Self.taken(Self.config)
        #expect(plain.ids.count == 1 && plain.count == 1)
        let reloaded = try Self.taken(Self.config, reloadAfter: true)
        #expect(reloaded.ids.count == 1 && reloaded.count == 1, "not taken again, and the count goes on")
        #expect(try Self.taken("").ids.isEmpty, "no limit: nothing taken")
    }
}
