import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import Testing
import TouchFrames

/// `touchgesturectl replay --actions`: exactly the actions a recording's gestures fire, at the
/// phase each asks for, with cooldowns and regions applied, as the daemon would run them.
@Suite struct ActionDryRunTests {
    struct Fired: Decodable, Equatable {
        struct Gesture: Decodable, Equatable {
            var gesture: String
            var phase: String
            var region: String?
        }
        var type: String
        var action: String
        var kind: String
        var keys: String?
        var argv: [String]?
        var time: Double
        var gesture: Gesture
    }

    static let config = """
        [[region]]
        name = "top"
        rect = [0, 0, 1920, 200]
        [[region.gesture]]
        kind = "tap"

        [[region]]
        name = "main"
        standard_gestures = true

        [[action]]
        name = "refresh"
        gesture = "tap"
        region = "main"
        keys = "KEY_F5"
        cooldown = 500

        [[action]]
        name = "top-tap"
        gesture = "top/tap"
        exec = ["/bin/true", "top"]

        [[action]]
        name = "back"
        gesture = "swipe"
        direction = "left"
        keys = "KEY_LEFTALT+KEY_LEFT"

        [[action]]
        name = "scrolled"
        gesture = "pan"
        phase = "ended"
        exec = ["/bin/true", "pan"]
        """

    static func fired(_ build: (inout Synth) -> Void) throws -> [Fired] {
        var s = Synth()
        build(&s)
        let c = try ConfigLoader.parse(config, file: "actions.toml")
        let out = try DevicePipeline.actionLines(s.recording, description: Synth.panel, configuration: c)
        return try out.split(separator: "\n").map { try JSONDecoder().decode(Fired.self, from: Data($0.utf8)) }
    }

    @Test func taps_fireTheirRegionsAction_andACooldownSkipsTheSecondOfTwoQuickOnes() throws {
        let fired = try Self.fired { s in
            s.tap((960, 540))  // recognized when the double-tap window closes: 70 + 300 ms
            s.wait(330)
            s.tap((1300, 800))  // recognized at 0.77 s: within refresh's 500 ms cooldown
            s.wait(730)
            s.tap((960, 540))  // recognized at 1.57 s
            s.wait(400)
            s.tap((100, 100))  // in region "top" (no double tap there): recognized at its lift, 1.74 s
        }
        #expect(fired.map(\.action) == ["refresh", "refresh", "top-tap"])
        #expect(fired.map(\.time) == [0.37, 1.57, 1.74])
        #expect(fired[0].keys == "KEY_F5" && fired[0].kind == "keys" && fired[0].gesture.phase == "recognized")
        #expect(fired[2].argv == ["/bin/true", "top"] && fired[2].gesture.region == "top")
        #expect(fired[0].gesture.region == "main")
    }

    @Test func aFlingLeft_firesBack_atRecognized_andThePanAction_atEnded() throws {
        let fired = try Self.fired { s in
            s.down(0, (1200, 600))
            s.sync()
            s.drag([0], by: (-420, 10), over: 120)
            s.up(0)
            s.sync()
            s.wait(500)
            s.down(0, (1200, 600))  // a fling right: no action of its own
            s.sync()
            s.drag([0], by: (420, 10), over: 120)
            s.up(0)
            s.sync()
        }
        #expect(fired.map(\.action) == ["scrolled", "back", "scrolled"])
        #expect(fired.map(\.gesture.phase) == ["ended", "recognized", "ended"])
        #expect(fired.map(\.gesture.gesture) == ["pan", "swipe", "pan"])
    }
}
