import GestureEngine
import Testing

@testable import GestureConfig

/// `touchgesturectl import lisgd`: the printed config is one the loader takes, with one exec
/// action per -g, bound to the right region, fingers and direction.
@Suite struct LisgdImportTests {
    @Test func aLisgdCommandLine_becomesAConfigThatLoads() throws {
        let imported = try LisgdImport(arguments: [
            "-d", "/dev/input/event3", "-t", "200", "-m", "600", "-w", "1280", "-h", "800", "-o", "1",
            "-g", "1,LR,L,*,R,xdotool key alt+Left", "-g", "4,UD,*,*,R,reload-page", "-g", "2,DLUR,N,S,P,echo a,b",
            "-g", "3,RL,BR,*,notify-send corner", "-g", "1,RL,notify-send old form",
        ])
        let c = try ConfigLoader.parse(imported.config, file: "imported.toml")
        #expect(c.engine.screen == PixelRect(x: 0, y: 0, width: 1280, height: 800))
        #expect(c.geometry.rotation == 90)
        #expect(c.engine.regions.map(\.name) == ["screen", "lisgd_bottom_right", "lisgd_left", "lisgd_right", "lisgd_top", "lisgd_bottom"])
        let t = c.engine.regions[0].gestures[0].thresholds
        #expect(abs(t.swipeMinDistance.value - 52.9) < 0.01 && t.swipeMaxDuration == .milliseconds(600))
        #expect(c.actions.map(\.name) == ["lisgd_1", "lisgd_2", "lisgd_3", "lisgd_4", "lisgd_5"])
        #expect(c.actions.map(\.region) == ["lisgd_left", nil, "screen", "lisgd_bottom_right", nil])
        #expect(c.actions.map(\.fingers) == [1, 4, 2, 3, 1])
        #expect(c.actions.map(\.direction) == [.right, .down, .upRight, .left, .left])
        #expect(c.actions.map(\.effect) == [
            .exec(["/bin/sh", "-c", "xdotool key alt+Left"]), .exec(["/bin/sh", "-c", "reload-page"]),
            .exec(["/bin/sh", "-c", "echo a,b"]), .exec(["/bin/sh", "-c", "notify-send corner"]),
            .exec(["/bin/sh", "-c", "notify-send old form"]),
        ])
        #expect(imported.notes.contains { $0.hasPrefix("-d /dev/input/event3") })
        #expect(imported.notes.contains { $0.contains("distance classes") })
        #expect(imported.notes.contains { $0.contains("pressed mode") })
    }

    @Test func lisgdsDefaults_applyWhenNotGiven() throws {
        let imported = try LisgdImport(arguments: ["-g", "1,LR,*,*,R,true"])
        let c = try ConfigLoader.parse(imported.config, file: "imported.toml")
        let t = c.engine.regions[0].gestures[0].thresholds
        #expect(abs(t.swipeMinDistance.value - 33.1) < 0.01 && t.swipeMaxDuration == .milliseconds(800))
        #expect(imported.notes.contains { $0.contains("no -w/-h") })
    }

    @Test(arguments: [
        (["-g", "1,XY,*,*,R,true"], "unknown gesture 'XY'"),
        (["-g", "0,LR,*,*,R,true"], "1 to 10 fingers"),
        (["-g", "1,LR,*,Q,R,true"], "distance must be"),
        (["-q"], "unknown lisgd option '-q'"),
        (["-t"], "-t needs a value"),
        (["-d", "/dev/input/event1"], "no -g gesture"),
        // These trapped converting the number for the config's text (hardening round 3).
        (["-m", "1e300", "-g", "1,LR,L,*,R,x"], "-m takes 10 to 60000 ms"),
        (["-t", "9223372036854775807", "-g", "1,LR,*,*,R,x"], "-t takes 0 to 7000 px"),
        (["-w", "1e300", "-g", "1,LR,*,*,R,x"], "-w takes 1 to 65536 px"),
        (["-h", "1e19", "-g", "1,LR,*,*,R,x"], "-h takes 1 to 65536 px"),
        (["-o", "1e300", "-g", "1,LR,*,*,R,x"], "-o takes 0 to 3"),
    ])
    func badLisgdArguments_areRefused(args: [String], reason: String) {
        #expect(throws: LisgdImport.Failure.self) { try LisgdImport(arguments: args) }
        do {
            _ = try LisgdImport(arguments: args)
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }
}
