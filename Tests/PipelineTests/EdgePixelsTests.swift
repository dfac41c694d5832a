import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import TestSupport
import Testing
import TouchFrames

/// Every pixel is alive: the axis minimum and maximum of every panel, after rotation,
/// calibration and output mapping, land on screen pixels that regions contain.
@Suite struct EdgePixelsTests {
    /// The extreme and middle values of each axis, in every combination.
    static func edgeValues(_ a: AbsAxis) -> [Int32] {
        [a.minimum, a.minimum + (a.maximum - a.minimum) / 2, a.maximum]
    }

    /// Every corner and edge value of `axes` lands inside the screen and inside the full-screen
    /// region (hit-tested as the engine does).
    static func checkEdges(_ axes: (x: AbsAxis, y: AbsAxis), _ g: GeometryConfiguration, _ what: String) {
        let geometry = ScreenGeometry(x: axes.x, y: axes.y, configuration: g)
        let compiled = CompiledConfiguration(.standard(screen: g.screen))
        for x in edgeValues(axes.x) {
            for y in edgeValues(axes.y) {
                let p = geometry.map(x: x, y: y)
                #expect(g.screen.contains(p), "\(what): (\(x), \(y)) maps to \(p), outside \(g.screen)")
                #expect(compiled.hitTest(p) != nil, "\(what): (\(x), \(y)) maps to \(p), in no region")
                // As the protocol writes it (tenths), too.
                let written = PixelPoint(x: (p.x * 10).rounded() / 10, y: (p.y * 10).rounded() / 10)
                #expect(g.screen.contains(written), "\(what): (\(x), \(y)) is written as \(written)")
            }
        }
    }

    /// Random geometries: screen sizes, rotations, calibration matrices (flips, offsets past the
    /// edge, scaling), outputs inside and partly outside the screen.
    static func randomGeometries(count: Int, seed: UInt64) -> [GeometryConfiguration] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            var g = GeometryConfiguration()
            g.screenWidth = Double(Int.random(in: 1...7680, using: &rng))
            g.screenHeight = Double(Int.random(in: 1...4320, using: &rng))
            g.rotation = [0, 90, 180, 270][Int.random(in: 0..<4, using: &rng)]
            if Bool.random(using: &rng) {
                let sx = Double.random(in: -1.2...1.2, using: &rng), sy = Double.random(in: -1.2...1.2, using: &rng)
                g.calibration = [
                    sx, Double.random(in: -0.1...0.1, using: &rng), Double.random(in: -0.3...1.3, using: &rng),
                    Double.random(in: -0.1...0.1, using: &rng), sy, Double.random(in: -0.3...1.3, using: &rng),
                ]
            }
            if Bool.random(using: &rng) {
                let x = Double.random(in: -500...g.screenWidth - 1, using: &rng)
                let y = Double.random(in: -500...g.screenHeight - 1, using: &rng)
                let w = Double.random(in: 1...g.screenWidth, using: &rng), h = Double.random(in: 1...g.screenHeight, using: &rng)
                let rect = PixelRect(x: x, y: y, width: w, height: h)
                if rect.clipped(to: g.screen) != nil { g.output = rect }
            }
            return g
        }
    }

    @Test(.enabled(if: Paths.sharedPresent, "the real-panel recordings (../shared/recordings) are absent"))
    func everySharedPanel_underRandomGeometries_mapsItsEdgesInsideTheScreen() throws {
        let descs = try FileManager.default.contentsOfDirectory(atPath: Paths.shared).filter { $0.hasSuffix(".desc") }
        #expect(!descs.isEmpty)
        for name in descs {
            let path = Paths.shared + "/" + name
            let description = try #require(try Evemu.parse(try read(path), file: path).description)
            let axes = try #require(description.positionAxes)
            for (i, g) in ([GeometryConfiguration()] + Self.randomGeometries(count: 300, seed: 7)).enumerated() {
                Self.checkEdges(axes, g, "\(name) geometry \(i)")
            }
        }
    }

    @Test func randomAxes_underRandomGeometries_mapTheirEdgesInsideTheScreen() {
        var rng = SplitMix64(seed: 11)
        for (i, g) in Self.randomGeometries(count: 300, seed: 3).enumerated() {
            let lowX = Int32.random(in: -5000...5000, using: &rng), lowY = Int32.random(in: -5000...5000, using: &rng)
            let x = AbsAxis(minimum: lowX, maximum: lowX + Int32.random(in: 1...70000, using: &rng))
            let y = AbsAxis(minimum: lowY, maximum: lowY + Int32.random(in: 1...70000, using: &rng))
            Self.checkEdges((x, y), g, "random axes \(i)")
        }
    }

    /// The synthetic panel's edges and corners, in Synth's pixels (its axis maximum is 1919.5).
    static let edges: [(String, (Double, Double))] = [
        ("left", (0, 540)), ("right", (1919.5, 540)), ("top", (960, 0)), ("bottom", (960, 1079.5)),
        ("top left", (0, 0)), ("top right", (1919.5, 0)), ("bottom left", (0, 1079.5)), ("bottom right", (1919.5, 1079.5)),
    ]

    @Test(arguments: edges.map(\.0))
    func aTapOnTheAxisMaximum_orMinimum_isATap(edge: String) throws {
        let p = Self.edges.first { $0.0 == edge }!.1
        var s = Synth()
        s.tap(p)
        s.wait(400)
        s.tap((960, 540))
        let out = try lines(try DevicePipeline.lines(s.recording, description: Synth.panel, configuration: .standard))
        #expect(out.map(\.gesture) == ["tap", "tap"], "\(edge): \(out)")
    }

    @Test func anEdgeSwipeFromTheRight_startingOnTheLastColumn() throws {
        var s = Synth()
        s.down(0, (1919.5, 540))
        s.sync()
        s.drag([0], by: (-200, 0), over: 300)
        s.up(0)
        s.sync()
        let out = try lines(try DevicePipeline.lines(s.recording, description: Synth.panel, configuration: .standard))
        #expect(out.first?.gesture == "edge_swipe" && out.first?.edge == "right", "\(out)")
    }

    /// Two panels side by side on a 3840 px desktop (GUIDE.md, "Two screens, two panels"): each
    /// panel's edges are its own output's, so a swipe in from the side where the two screens
    /// meet is an edge swipe too, and a swipe in from the desktop's own edges still is one.
    @Test(arguments: [(0.0, "right", 1919.5, -200.0), (0.0, "left", 0, 200), (1920.0, "left", 0, 200), (1920.0, "right", 1919.5, -200)])
    func anEdgeSwipe_startsAtItsPanelsOwnEdges(outputX: Double, edge: String, panelX: Double, travel: Double) throws {
        let c = try ConfigLoader.parse(
            "[screen]\nwidth = 3840\nheight = 1080\n[device]\noutput = [\(Int(outputX)), 0, 1920, 1080]\n", file: "two.toml")
        var s = Synth()
        s.down(0, (panelX, 540))
        s.sync()
        s.drag([0], by: (travel, 0), over: 300)
        s.up(0)
        s.sync()
        let out = try lines(try DevicePipeline.lines(s.recording, description: Synth.panel, configuration: c))
        #expect(out.first?.gesture == "edge_swipe" && out.first?.edge == edge, "output at \(outputX), from the \(edge): \(out)")
    }
}
