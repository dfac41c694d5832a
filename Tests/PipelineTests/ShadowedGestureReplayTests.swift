import GestureConfig
import Pipeline
import Testing
import TouchFrames

/// What check-config says of a shadowed gesture holds: replayed, the second of two gestures
/// alike never fires and the first does, for every kind; with `simultaneous_with` both do.
@Suite struct ShadowedGestureReplayTests {
    func names(_ fixture: String, _ config: String) throws -> [String] {
        let path = "\(Paths.fixtures)/\(fixture).events"
        let recording = try Evemu.parse(try read(path), file: path)
        let configuration = try ConfigLoader.parse(config, file: "k.toml")
        return try lines(try DevicePipeline.lines(recording, description: recording.description!, configuration: configuration)).compactMap(\.name)
    }

    @Test(arguments: [
        ("tap", "tap", ""), ("long-press-then-move", "long_press", ""), ("four-finger-drag-down", "pan", "min_fingers = 1\nmax_fingers = 5\n"),
        ("fling-left", "swipe", ""), ("pinch-out-and-turn", "pinch", ""), ("edge-swipe-from-left", "edge_swipe", ""),
    ])
    func theSecondOfTwoAlike_neverFires_theFirstDoes(fixture: String, kind: String, more: String) throws {
        func gesture(_ name: String, _ extra: String = "") -> String { "[[region.gesture]]\nname = \"\(name)\"\nkind = \"\(kind)\"\n\(more)\(extra)" }
        let config = "[[region]]\nname = \"r\"\n" + gesture("first") + gesture("second")
        #expect(try ConfigLoader.parse(config, file: "k.toml").engine.shadowedGestures.count == 1)
        let fired = try names(fixture, config)
        #expect(fired.contains("first") && !fired.contains("second"), "\(fired)")
        let sharing = "[[region]]\nname = \"r\"\n" + gesture("first", "simultaneous_with = [\"second\"]\n") + gesture("second")
        let both = try names(fixture, sharing)
        #expect(both.contains("first") && both.contains("second"), "\(both)")
    }
}
