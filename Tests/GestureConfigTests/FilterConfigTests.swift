import GestureEngine
import Testing
import TouchFrames

@testable import GestureConfig

/// `[device.filters]` and `[panel.filters]`: read into the panel's geometry, a panel's keys over
/// the device's, every number in its physical range with its line.
@Suite struct FilterConfigTests {
    func refusal(_ text: String) -> ConfigError? {
        do {
            _ = try ConfigLoader.parse(text, file: "f.toml")
            return nil
        } catch { return error }
    }

    @Test func filters_areReadPerPanel_overTheDevices() throws {
        let c = try ConfigLoader.parse(
            """
            [device.filters]
            dejitter_min_cutoff = 1.5
            stuck_after = 30
            stuck_distance = 1.5
            [[panel]]
            match = "ILITEK*"
            [panel.filters]
            dejitter_speed_coefficient = 0.2
            dead_zones = [[0, 0, 10, 193.6], [300, 0, 44.2, 20]]
            """, file: "f.toml")
        let device = c.geometry.filters
        #expect(device.dejitter == .init(minCutoff: 1.5))
        #expect(device.stuckAfterNs == 30_000_000_000 && device.stuckDistanceMM == 1.5 && device.deadZones.isEmpty)
        #expect(try ConfigLoader.parse("", file: "f.toml").geometry.filters.stuckDistanceMM == 0.5, "0.5 mm by default")
        let panel = c.geometry(path: "/dev/input/event3", name: "ILITEK Multi-Touch", vendor: 0x222a, product: 1).filters
        #expect(panel.dejitter?.minCutoff == 1.5 && panel.dejitter?.speedCoefficient == 0.2 && panel.dejitter?.derivativeCutoff == 1)
        #expect(panel.deadZones == [.init(x: 0, y: 0, width: 10, height: 193.6), .init(x: 300, y: 0, width: 44.2, height: 20)])
        #expect(try ConfigLoader.parse("", file: "f.toml").geometry.filters.isEmpty, "none by default")
        #expect(try ConfigLoader.parse("[device.filters]\ndejitter_min_cutoff = 0\nstuck_after = 0\n", file: "f.toml").geometry.filters.isEmpty)
    }

    @Test(arguments: [
        ("dejitter_min_cutoff = 0.01", "'dejitter_min_cutoff' must be 0 (off) or from 0.05 to 30 Hz"),
        ("dejitter_min_cutoff = 31", "'dejitter_min_cutoff' must be 0 (off) or from 0.05 to 30 Hz"),
        ("dejitter_speed_coefficient = 0.1", "set 'dejitter_min_cutoff' too"),
        ("chatter_distance = 3", "set 'chatter_window' too"),
        ("ghost_on_mirror = false", "set 'ghost_under' too"),
        ("stuck_distance = 1", "set 'stuck_after' too"),
        ("stuck_after = 0.5", "'stuck_after' must be 0 (off) or from 1 to 3600 s"),
        ("stuck_distance = 11", "'stuck_distance' must be from 0 to 10 mm"),
        ("stuck_distance = -0.1", "'stuck_distance' must be from 0 to 10 mm"),
        ("dead_zones = [[0, 0, 10]]", "each dead zone is [x, y, width, height] in mm"),
        ("dead_zones = [[0, 0, 0, 10]]", "width and height must be more than 0 mm"),
        ("dead_zones = [[-1, 0, 10, 10]]", "numbers are mm from 0 to 4000"),
        ("dead_zones = 3", "must be an array of [x, y, width, height] arrays"),
        ("smoothing = 1", "unknown key 'smoothing' in [device.filters]"),
    ])
    func aFilterOutOfItsRange_isRefusedWithItsLine(key: String, reason: String) throws {
        let e = try #require(refusal("[device]\nrotation = 0\n[device.filters]\n\(key)\n"))
        #expect(e.line == 4 && e.reason.contains(reason), "\(e)")
    }

    /// On a panel whose size the configuration gives, a dead zone off it, or one covering all
    /// of it, is refused with its line (without a size, the daemon says so when it opens one).
    @Test(arguments: [
        ("dead_zones = [[310, 0, 10, 10]]", "lies off the panel (300 × 200 mm)"),
        ("dead_zones = [[0, 0, 300, 200]]", "covers the whole panel"),
        ("dead_zones = [[0, 0, 150, 200], [150, 0, 150, 200]]", "together cover the whole panel"),
        ("dead_zones = [[0, 0, 200, 120], [100, 0, 200, 120], [0, 100, 300, 100]]", "together cover the whole panel"),
    ])
    func aDeadZoneOffOrOverTheWholeConfiguredPanel_isRefused(zones: String, reason: String) throws {
        let e = try #require(refusal("[[panel]]\nmatch = \"X\"\nwidth_mm = 300\nheight_mm = 200\n[panel.filters]\n\(zones)\n"))
        #expect(e.line == 6 && e.reason.contains(reason), "\(e)")
        #expect(refusal("[[panel]]\nmatch = \"X\"\n[panel.filters]\n\(zones)\n") == nil, "no size: not known here")
    }

    /// Zones that leave a strip of the panel alive, however thin, are taken.
    @Test func deadZonesLeavingAStrip_areTaken() throws {
        let zones = "dead_zones = [[0, 0, 150, 200], [150.5, 0, 149.5, 200], [0, 0, 300, 50]]"
        #expect(refusal("[[panel]]\nmatch = \"X\"\nwidth_mm = 300\nheight_mm = 200\n[panel.filters]\n\(zones)\n") == nil)
        #expect(ContactFilterSettings.deadZoneProblem([.init(x: 0, y: 0, width: 300, height: 199)], width: 300, height: 200) == nil)
    }

    /// A `[[panel]]`'s size is measured on that panel (it wins over its resolution); `[device]`'s,
    /// inherited by every panel, stands in for a resolution a panel lacks.
    @Test func aPanelsOwnSize_isThePanels_theDevicesIsNot() throws {
        let c = try ConfigLoader.parse(
            "[device]\nwidth_mm = 300\nheight_mm = 200\n[[panel]]\nmatch = \"A*\"\n[[panel]]\nmatch = \"B*\"\nwidth_mm = 250\nheight_mm = 150\n",
            file: "f.toml")
        let a = c.geometry(path: "/dev/input/event1", name: "A", vendor: 1, product: 1)
        let b = c.geometry(path: "/dev/input/event2", name: "B", vendor: 1, product: 1)
        #expect(!c.geometry.sizeIsThePanels && !a.sizeIsThePanels && a.widthMM == 300)
        #expect(b.sizeIsThePanels && b.widthMM == 250)
    }

    /// `[device.filters]` may tune a filter its `[[panel]]`s turn on; a panel's table, whose
    /// filters are then final, may not tune one that is off.
    @Test func aDeviceTuningKey_forAFilterAPanelTurnsOn_isTaken() throws {
        let c = try ConfigLoader.parse(
            "[device.filters]\nchatter_distance = 3\n[[panel]]\nmatch = \"A*\"\n[panel.filters]\nchatter_window = 0.02\n", file: "f.toml")
        let a = c.geometry(path: "/dev/input/event1", name: "A", vendor: 1, product: 1).filters
        #expect(a.chatterNs == 20_000_000 && a.chatterDistanceMM == 3)
        let e = try #require(refusal("[[panel]]\nmatch = \"A*\"\n[panel.filters]\nstuck_distance = 1\n"))
        #expect(e.line == 4 && e.reason.contains("set 'stuck_after' too"), "\(e)")
    }

    @Test func aPanelsMinimumCutoff_keepsTheDevicesOtherDejitterKeys() throws {
        let c = try ConfigLoader.parse(
            "[device.filters]\ndejitter_min_cutoff = 1\ndejitter_speed_coefficient = 0.2\n[[panel]]\nmatch = \"X*\"\n[panel.filters]\ndejitter_min_cutoff = 2\n",
            file: "f.toml")
        let d = c.geometry(path: "/dev/input/event1", name: "X panel", vendor: 1, product: 1).filters.dejitter
        #expect(d?.minCutoff == 2 && d?.speedCoefficient == 0.2)
    }

    @Test func theRestSpeed_isTaken_inItsRange_withTheDejitterFilter() throws {
        let c = try ConfigLoader.parse("[device.filters]\ndejitter_min_cutoff = 0.5\ndejitter_rest_speed = 50\n", file: "f.toml")
        #expect(c.geometry.filters.dejitter?.restSpeed == 50)
        let high = try #require(refusal("[device.filters]\ndejitter_min_cutoff = 0.5\ndejitter_rest_speed = 250\n"))
        #expect(high.line == 3 && high.reason.contains("0") && high.reason.contains("200"), "\(high)")
        let alone = try #require(refusal("[device.filters]\ndejitter_rest_speed = 50\n"))
        #expect(alone.line == 2 && alone.reason.contains("set 'dejitter_min_cutoff' too"), "\(alone)")
    }

    @Test func seventeenDeadZones_areRefused() throws {
        let zones = Array(repeating: "[0, 0, 1, 1]", count: 17).joined(separator: ", ")
        let e = try #require(refusal("[device.filters]\ndead_zones = [\(zones)]\n"))
        #expect(e.reason.contains("at most 16 dead zones"), "\(e)")
    }
}
