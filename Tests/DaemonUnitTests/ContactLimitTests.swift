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
}
