import GestureEngine
import Testing

@testable import GestureConfig

/// Hardening round 3: every number a config gives has a physical range, checked where the file
/// is read with its line; values that once passed check-config and then trapped or froze the
/// loop (docs/RELIABILITY.md, "Bad input") are refused.
@Suite struct PhysicalRangeTests {
    static let page = "[[region]]\nname = \"page\"\nemulate = \"pointer\"\n[region.pointer]\n"

    func refusal(_ text: String) -> ConfigError? {
        do {
            _ = try ConfigLoader.parse(text, file: "k.toml")
            return nil
        } catch { return error }
    }

    @Test(arguments: ["1e-15", "5e-324", "0.5", "1001"])
    func pixelsPerNotch_outsideOneToAThousand_isRefusedWithItsLine(value: String) throws {
        let e = try #require(refusal(Self.page + "pixels_per_notch = \(value)\n"))
        #expect(e.line == 5 && e.reason.contains("'pixels_per_notch' must be from 1 to 1000 px"), "\(e)")
    }

    @Test(arguments: ["1.000001", "1.0001", "1.04", "4.5"])
    func zoomStep_underFivePercent_isRefused(value: String) throws {
        let e = try #require(refusal(Self.page + "zoom_step = \(value)\n"))
        #expect(e.line == 5 && e.reason.contains("'zoom_step' must be from 1.05 to 4"), "\(e)")
    }

    @Test(arguments: ["0.0000001", "1e-300", "0.49", "604801"])
    func idleAfter_betweenZeroAndHalfASecond_isRefused(value: String) throws {
        let e = try #require(refusal("[idle]\nafter = \(value)\n"))
        #expect(e.line == 2 && e.reason.contains("0 (off) or from 0.5 to 604800 s"), "\(e)")
    }

    @Test(arguments: ["0", "9", "1001"])
    func requestMsPerUser_outsideTenToAThousand_isRefusedWithItsLine(value: String) throws {
        let e = try #require(refusal("[daemon]\nrequest_ms_per_user = \(value)\n"))
        #expect(e.line == 2 && e.reason.contains("'request_ms_per_user' must be from 10 to 1000"), "\(e)")
        #expect(try ConfigLoader.parse("[daemon]\nrequest_ms_per_user = 10\n", file: "k.toml").daemon.requestMsPerUser == 10)
    }

    @Test func idleAfter_zeroOrASecond_isTaken() throws {
        #expect(try ConfigLoader.parse("[idle]\nafter = 0\n", file: "k.toml").idleAfter == 0)
        #expect(try ConfigLoader.parse("[idle]\nafter = 1\n", file: "k.toml").idleAfter == 1)
    }

    /// Each threshold: its range's ends are taken, just past them is refused (the file's scope and
    /// a gesture's alike).
    @Test func everyThreshold_takesItsRange_andRefusesJustPastIt() throws {
        for key in ThresholdKey.all {
            let low = key.range.lowerBound, high = key.range.upperBound
            for v in [low, high] {
                #expect(refusal("[thresholds]\n\(key.key) = \(v)\n") == nil, "\(key.key) = \(v)")
            }
            for v in [low == 0 ? -0.001 : low * 0.99, high * 1.01, Double.leastNonzeroMagnitude < low ? Double.leastNonzeroMagnitude : -Double.leastNonzeroMagnitude] {
                let e = refusal("[thresholds]\n\(key.key) = \(v)\n")
                #expect(e?.line == 2 && e?.reason.contains("must be from") == true, "\(key.key) = \(v): \(String(describing: e))")
                let g = "[[region]]\nname = \"r\"\n[[region.gesture]]\nkind = \"pan\"\n\(key.key) = \(v)\n"
                #expect(refusal(g)?.line == 5, "gesture \(key.key) = \(v)")
            }
        }
    }

    @Test(arguments: [
        ("[device]\nwidth_mm = 1e-300\nheight_mm = 100\n", 2, "'width_mm' must be from 10 to 4000 mm"),
        ("[device]\npalm_size = 1e-9\n", 2, "'palm_size' must be 0 (off) or from 5 to 1000 mm"),
        ("[[region]]\nname = \"r\"\nrect = [0, 0, 1e300, 10]\n", 3, "within ±1048576 px"),
        ("[[region]]\nname = \"r\"\n[region.drag.x]\nsnap = [1e300]\n", 4, "'snap' holds at most"),
        ("[[region]]\nname = \"r\"\n[region.drag.y]\nmin = 0\nmax = 300\nsnap = [-1000, 300]\n", 6, "the snap point -1000 lies outside the bounds (min 0, max 300)"),
        ("[[region]]\nname = \"r\"\n[region.drag.x]\nlimit = 5e-324\n", 4, "'limit' must be from 1 to"),
        ("[[region]]\nname = \"r\"\n[region.drag.x]\nmin = -1e300\n", 4, "'min' must be -inf, inf or within"),
        ("[[region]]\nname = \"r\"\n[region.drag]\ninitial = [0, 1e300]\n", 4, "'initial' numbers must lie within"),
    ])
    func geometryAndDragNumbers_outsideTheirRange_areRefused(text: String, line: Int, reason: String) throws {
        let e = try #require(refusal(text))
        #expect(e.line == line && e.reason.contains(reason), "\(e)")
    }
}
