import Foundation
import GestureConfig
import GestureEngine
import Pipeline
import Testing
import TestSupport
import TouchFrames

@testable import Daemon
@testable import GestureConfig

/// An excluded region (`exclude = true`, an on-screen keyboard's area while it is shown): a
/// contact landing in it is no gesture's (its region's, an enclosing one's, a system gesture's),
/// the virtual touchscreen never takes it, and no `max_contacts` counts it.
@Suite struct ExcludedRegionTests {
    /// The keyboard's example with its area (the bottom 300 px) excluded from the start.
    static let example = (try? String(contentsOfFile: Repository.root + "/examples/keyboard.toml", encoding: .utf8)) ?? ""
    static let config = example + "\n[[region]]\nname = \"keyboard\"\nrect = [0, 780, 1920, 300]\nexclude = true\n"

    static func recording() throws -> Recording {
        let path = Repository.root + "/examples/recordings/keyboard.events"
        return try Evemu.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
    }

    /// The recording through a pass-through pipeline: its gesture lines, the contacts taken
    /// from the app, and its touch lines.
    static func run(_ config: String) throws -> (lines: String, taken: [UInt32], touches: String) {
        let rec = try recording()
        var configuration = try ConfigLoader.parse(config, file: "k.toml")
        configuration.daemon.mode = .passthrough
        let description = try #require(rec.description)
        var p = try DevicePipeline(description: description, configuration: configuration, device: 1)
        var out = PipelineOutput(wants: .init(touchLines: true))
        var taken: [UInt32] = []
        var touches = ""
        for e in rec.events {
            p.feed(e, into: &out)
            taken += out.takenContacts
            touches += String(decoding: out.lines, as: UTF8.self)
            out.removeAll()
        }
        let lines = try DevicePipeline.lines(rec, description: description, configuration: configuration)
        return (lines, taken, touches)
    }

    /// The refusal's shares read true at the bound: 50.09 % is "50.1", not a rounded "50".
    @Test func aShareInTheRefusal_isToATenthOfAPercent() {
        #expect(Daemon.percent(0.5009) == "50.1" && Daemon.percent(0.5) == "50" && Daemon.percent(0.0001) == "0")
    }

    @Test func touchesInTheExcludedArea_areNoGesturesAndNeverTaken() throws {
        let excluded = try Self.run(Self.config)
        // The swipe up from the bottom edge lands in the area: no edge swipe from the bottom, its
        // touch not taken; the swipe down from the top edge is one, and takes its own.
        #expect(!excluded.lines.contains(#""edge":"bottom""#) && excluded.lines.contains(#""edge":"top""#), "\(excluded.lines)")
        #expect(excluded.taken.count == 1, "the app keeps every touch of the area")
        // The two taps on the area and the one after are no one's; the tap above it is a tap.
        let taps = excluded.lines.split(separator: "\n").filter { $0.contains(#""gesture":"tap""#) }
        #expect(taps.count == 1 && taps[0].contains(#""y":300.0"#), "\(taps)")
        // Without the region: both edge swipes, each taking its touch, and every tap.
        let open = try Self.run(Self.example)
        #expect(open.lines.contains(#""edge":"bottom""#) && open.taken.count == 2)
        #expect(open.lines.split(separator: "\n").filter { $0.contains(#""gesture":"tap""#) }.count == 4)
    }

    @Test func touchLines_leaveOutTheContactsOfTheArea() throws {
        // What is typed on an on-screen keyboard is no client's to read.
        let excluded = try Self.run(Self.config).touches, open = try Self.run(Self.example).touches
        for y in [#""y":975.0"#, #""y":950.0"#] {
            #expect(!excluded.contains(y) && open.contains(y), "\(y)")
        }
        #expect(excluded.contains(#""y":300.0"#), "the tap above it is there")
    }

    @Test func hitTest_findsNoRegionInTheArea_butFindsThemAround() throws {
        let c = CompiledConfiguration(try ConfigLoader.parse(Self.config, file: "k.toml").engine)
        #expect(c.hitTest(PixelPoint(x: 500, y: 900)) == nil && c.isExcluded(PixelPoint(x: 500, y: 900)))
        #expect(c.hitTest(PixelPoint(x: 500, y: 300)).map { c.regions[$0].name } == "screen")
    }

    @Test func aContactInTheArea_countsInNoLimit() throws {
        // The second finger (x 600 units: 300 px) lands in the area: shown, not taken.
        let limited = "[[region]]\nname = \"page\"\nmax_contacts = 1\nstandard_gestures = true\n"
        let area = "[[region]]\nname = \"keyboard\"\nrect = [200, 0, 400, 1080]\nexclude = true\n"
        #expect(try ContactLimitTests.taken(limited).ids.count == 1)
        #expect(try ContactLimitTests.taken(limited + area).ids.isEmpty)
    }

    @Test func anExcludedRegion_hasNothingElse_andClientsMayDeclareOne() throws {
        for other in ["standard_gestures = true", "max_contacts = 1", "emulate = \"pointer\"", "[[region.gesture]]\nkind = \"tap\""] {
            let text = "[[region]]\nname = \"k\"\nrect = [0, 0, 10, 10]\nexclude = true\n\(other)\n"
            #expect(throws: ConfigError.self) { try ConfigLoader.parse(text, file: "x.toml") }
        }
        #expect(throws: ConfigError.self) { try ConfigLoader.parse("[[region]]\nname = \"k\"\nexclude = 1\n", file: "x.toml") }
        let base = try ConfigLoader.parse("", file: "b.toml")
        let table = try parseTOML(bytes: Array("name = \"kbd\"\nrect = [0, 780, 1920, 300]\nexclude = true\n".utf8))
        #expect(try ConfigLoader.clientRegions([table], base: base, file: "client").first?.exclude == true)
    }

    @Test func keyboardActions_readAndRefused() throws {
        let c = try ConfigLoader.parse(Self.example, file: "k.toml")
        #expect(c.actions.map(\.effect) == [.keyboard(.show), .keyboard(.hide)])
        #expect(c.actions.map(\.edge) == [.bottom, .top])
        let head = "[[action]]\nname = \"k\"\ngesture = \"tap\"\n"
        for bad in ["keyboard = \"open\"", "keyboard = \"show\"\nkeys = \"KEY_A\"", "keyboard = \"show\"\ntimeout = 100"] {
            #expect(throws: ConfigError.self) { try ConfigLoader.parse(head + bad + "\n", file: "x.toml") }
        }
    }
}
