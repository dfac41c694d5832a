import Foundation
import GestureEngine
import TestSupport
import Testing

@testable import GestureConfig

/// check-config names a gesture that can never be recognized: one listed earlier in its region
/// takes every touch it would. Only certain cases: a later gesture that takes any touch of its
/// own, or shares or waits, is not named.
@Suite struct ShadowedGestureTests {
    func warnings(_ gestures: String, standard: Bool = false) throws -> [String] {
        let text = "[[region]]\nname = \"r\"\n" + (standard ? "standard_gestures = true\n" : "") + gestures
        return try ConfigLoader.parse(text, file: "k.toml").engine.shadowedGestures
    }

    static func gesture(_ name: String, _ kind: String, _ more: String = "") -> String {
        "[[region.gesture]]\nname = \"\(name)\"\nkind = \"\(kind)\"\n\(more)"
    }

    @Test(arguments: [
        ("tap", ""), ("long_press", ""), ("pan", "fingers = 2\n"), ("swipe", "directions = [\"left\"]\n"), ("pinch", ""),
        ("edge_swipe", "edges = [\"left\"]\n"),
    ])
    func aSecondGestureLikeTheFirst_isNamed(kind: String, more: String) throws {
        let w = try warnings(Self.gesture("first", kind, more) + Self.gesture("second", kind, more))
        #expect(
            w == [
                "region 'r': gesture 'second' can never be recognized: 'first', listed before it, takes every touch it would (the same kind and thresholds); make them simultaneous_with each other, narrow 'first', or remove one"
            ], "\(w)")
    }

    /// An action on the later one (a system gesture then) does not let it through: the earlier
    /// one still takes the touch, but where a client's region takes it first. An action on the
    /// earlier one changes nothing.
    @Test func aShadowedGestureAnActionIsBoundTo_isNamed() throws {
        let two = Self.gesture("s1", "tap") + Self.gesture("s2", "tap")
        let action = { (g: String) in "[[action]]\nname = \"a\"\ngesture = \"\(g)\"\nkeys = \"KEY_A\"\n" }
        let later = try warnings(two + action("s2"))
        #expect(
            later == [
                "region 'r': gesture 's2' can never be recognized where no client's region takes the touch from 's1': 's1', listed before it, takes every touch it would (the same kind and thresholds); make them simultaneous_with each other, narrow 's1', or remove one"
            ], "\(later)")
        let earlier = try warnings(two + action("s1"))
        #expect(earlier.count == 1 && earlier[0].hasPrefix("region 'r': gesture 's2' can never be recognized: "), "\(earlier)")
    }

    @Test func aNarrowerLaterGesture_isNamed() throws {
        let any = Self.gesture("any", "swipe", "min_fingers = 1\nmax_fingers = 3\n")
        #expect(try warnings(any + Self.gesture("left2", "swipe", "fingers = 2\ndirections = [\"left\"]\n")).count == 1)
        #expect(try warnings(Self.gesture("free", "pan") + Self.gesture("across", "pan", "axis = \"horizontal\"\n")).count == 1)
    }

    @Test(arguments: [
        // The later one takes touches of its own: more fingers, another direction, a looser slop.
        (gesture("a", "swipe", "directions = [\"left\"]\n"), gesture("b", "swipe")),
        (gesture("a", "swipe", "fingers = 1\n"), gesture("b", "swipe", "min_fingers = 1\nmax_fingers = 2\n")),
        (gesture("a", "tap"), gesture("b", "tap", "tap_slop = 10\n")),
        (gesture("a", "pan", "axis = \"vertical\"\n"), gesture("b", "pan")),
        (gesture("a", "tap"), gesture("b", "tap", "fingers = 2\n")),
        // They share the touches, or the later one is waited for, or ranks otherwise.
        (gesture("a", "tap", "simultaneous_with = [\"b\"]\n"), gesture("b", "tap")),
        (gesture("a", "tap", "requires_failure_of = [\"b\"]\n"), gesture("b", "tap")),
        (gesture("a", "tap", "priority = \"high\"\n"), gesture("b", "tap")),
        // The earlier one waits for a double tap: the later one fires first.
        (gesture("a", "tap", "requires_failure_of = [\"dbl\"]\n") + gesture("dbl", "tap", "count = 2\n"), gesture("b", "tap")),
        // A third gesture beats the earlier one but shares its touches with the later one.
        (gesture("hold", "long_press", "simultaneous_with = [\"b\"]\n") + gesture("a", "pan"), gesture("b", "pan")),
        (gesture("hold", "long_press") + gesture("a", "pan"), gesture("b", "pan", "simultaneous_with = [\"hold\"]\n")),
        // A pan or pinch needing more fingers takes over one that began with fewer.
        (gesture("a", "pan", "min_fingers = 1\nmax_fingers = 5\n"), gesture("b", "pan", "fingers = 2\n")),
        (gesture("a", "pinch"), gesture("b", "pinch", "min_fingers = 3\n")),
        // Of all edges, a corner reads as the nearest edge; one edge alone reads it as its own.
        (gesture("a", "edge_swipe"), gesture("b", "edge_swipe", "edges = [\"left\"]\n")),
    ])
    func aLaterGestureThatCanWin_isNotNamed(first: String, second: String) throws {
        let w = try warnings(first + second)
        #expect(w.isEmpty, "\(w)")
    }

    /// A gesture of a nested region that waits for the later one (and outranks the earlier):
    /// the later one wins there.
    @Test func aLaterGestureANestedOneWaitsFor_isNotNamed() throws {
        let text = "[[region]]\nname = \"r\"\n" + Self.gesture("a", "pan") + Self.gesture("b", "pan")
            + "[[region]]\nname = \"inner\"\nrect = [0, 0, 1920, 1080]\n" + Self.gesture("inner_pan", "pan", "requires_failure_of = [\"r/b\"]\n")
        #expect(try ConfigLoader.parse(text, file: "k.toml").engine.shadowedGestures.isEmpty)
    }

    /// check-config and the daemon's log name the shadowed gesture's file and the line of its
    /// table, as an error names its place (a drop-in's gesture, the drop-in's).
    @Test func theWarning_namesTheGesturesFileAndLine() throws {
        let dir = Scratch.directory("shadows")
        try FileManager.default.createDirectory(atPath: dir + "/kiosk.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let main = "[[region]]\nname = \"r\"\n" + Self.gesture("first", "tap") + Self.gesture("second", "tap")
        try main.write(toFile: dir + "/kiosk.toml", atomically: true, encoding: .utf8)
        let dropIn = "[[region]]\nname = \"s\"\nrect = [0, 0, 10, 10]\n" + Self.gesture("a", "pinch") + Self.gesture("b", "pinch")
        try dropIn.write(toFile: dir + "/kiosk.d/10-more.toml", atomically: true, encoding: .utf8)
        let notices = try ConfigLoader.load(path: dir + "/kiosk.toml").notices
        #expect(notices.count == 2, "\(notices)")
        #expect(notices.first?.hasPrefix(dir + "/kiosk.toml:6: region 'r': gesture 'second' can never be recognized") == true, "\(notices)")
        #expect(notices.last?.hasPrefix(dir + "/kiosk.d/10-more.toml:7: region 's': gesture 'b'") == true, "\(notices)")
    }

    /// The standard set names none of its own, and a custom tap beside it fires first (the
    /// standard tap waits for the double tap): nothing to name.
    @Test func theStandardSet_andATapBesideIt_areNotNamed() throws {
        #expect(try warnings("", standard: true).isEmpty)
        #expect(try warnings(Self.gesture("mine", "tap"), standard: true).isEmpty)
        #expect(Configuration.standard.engine.shadowedGestures.isEmpty)
    }
}
