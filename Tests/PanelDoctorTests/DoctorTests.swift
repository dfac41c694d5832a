import Foundation
import GestureConfig
import GestureEngine
import GestureProtocol
import PanelDoctor
import TestSupport
import Testing
import TouchFrames

/// A panel's recording as the kernel delivers it: a frame every 1/rate s while something changed,
/// an axis's value only when it differs from the last (the kernel drops repeats), positions
/// moved by the panel's noise (Gaussian, `noise` mm standard deviation on each axis).
struct PanelSimulator {
    /// 3840 × 2160 units at 15 units/mm (256 × 144 mm), ten slots, no fuzz.
    static var panel: DeviceDescription {
        .multitouchPanel(name: "simulated panel", maxX: 3839, maxY: 2159, slots: 10, resolution: 15)
    }
    let rate: Double, noise: Double
    /// Each frame stamped up to this much early or late (s, uniform): a late interrupt.
    var jitter = 0.0
    var shift = 0.0
    /// The kernel's fuzz on the position axes (units): a move under half of it is dropped, one
    /// under twice it is averaged with the last value (the input core's `input_defuzz_abs_event`).
    var fuzz: Int32 = 0
    var random: SplitMix64
    var events: [InputEvent] = []
    var time = 0.0
    var last: [Int32: (x: Int32, y: Int32)] = [:]
    var nextID: Int32 = 100

    init(rate: Double, noise: Double, seed: UInt64 = 57) {
        (self.rate, self.noise, random) = (rate, noise, SplitMix64(seed: seed))
    }

    mutating func gaussian() -> Double {
        let u = max(1e-12, Double(random.next() >> 11) / Double(1 << 53)), v = Double(random.next() >> 11) / Double(1 << 53)
        return (-2 * Foundation.log(u)).squareRoot() * Foundation.cos(2 * Double.pi * v)
    }

    mutating func ev(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: Timestamp(nanoseconds: Int64((time + shift) * 1e9)), type: type, code: code, value: value))
    }

    /// One frame: each slot's finger at (x, y) mm plus noise (nil lifts it); nothing when nothing changed.
    mutating func frame(_ fingers: [Int32: (x: Double, y: Double)?]) {
        var changed = false
        shift = jitter * (2 * Double(random.next() >> 11) / Double(1 << 53) - 1)
        for (slot, p) in fingers.sorted(by: { $0.key < $1.key }) {
            guard let p else {
                if last[slot] != nil {
                    ev(3, Evdev.ABS_MT_SLOT, slot)
                    ev(3, Evdev.ABS_MT_TRACKING_ID, -1)
                    last[slot] = nil
                    changed = true
                }
                continue
            }
            var x = Int32(((p.x + noise * gaussian()) * 15).rounded()), y = Int32(((p.y + noise * gaussian()) * 15).rounded())
            let old = last[slot]
            if let old { (x, y) = (defuzz(x, old.x), defuzz(y, old.y)) }
            guard old == nil || old!.x != x || old!.y != y else { continue }
            ev(3, Evdev.ABS_MT_SLOT, slot)
            if old == nil {
                ev(3, Evdev.ABS_MT_TRACKING_ID, nextID)
                nextID += 1
            }
            if old?.x != x { ev(3, Evdev.ABS_MT_POSITION_X, x) }
            if old?.y != y { ev(3, Evdev.ABS_MT_POSITION_Y, y) }
            last[slot] = (x, y)
            changed = true
        }
        if changed { ev(0, Evdev.SYN_REPORT, 0) }
        time += 1 / rate
    }

    mutating func wait(_ seconds: Double) { time += seconds }

    /// A tap that bounces: four reports at (x, y), a lift for a report, four more 0.5 mm on.
    mutating func bouncingTap(slot: Int32, _ x: Double, _ y: Double) {
        for _ in 0..<4 { frame([slot: (x, y)]) }
        frame([slot: nil])
        for _ in 0..<4 { frame([slot: (x + 0.5, y)]) }
        frame([slot: nil])
    }

    func defuzz(_ v: Int32, _ old: Int32) -> Int32 {
        let d = abs(v - old)
        return d < fuzz / 2 ? old : d < fuzz ? (old * 3 + v) / 4 : d < fuzz * 2 ? (old + v) / 2 : v
    }

    /// The doctor's script: a finger resting 3 s, five taps, three swipes (of `swipe` s).
    mutating func script(swipe: Double = 0.3) {
        for _ in 0..<Int(3 * rate) { frame([0: (128, 72)]) }
        frame([0: nil])
        for k in 0..<5 {
            wait(0.4)
            for _ in 0..<Int(0.08 * rate) { frame([0: (50 + 30 * Double(k), 100)]) }
            frame([0: nil])
        }
        for k in 0..<3 {
            wait(0.5)
            let n = Int(swipe * rate)
            for i in 0...n { frame([0: (20 + 200 * Double(i) / Double(n), 30 + 40 * Double(k))]) }
            frame([0: nil])
        }
    }

    func report(width: Double? = nil, height: Double? = nil, _ d: DeviceDescription = PanelSimulator.panel) throws -> DoctorReport {
        DoctorReport(try #require(PanelTracks(description: d, events: events, widthMM: width, heightMM: height)))
    }
}

@Suite struct DoctorTests {
    @Test(arguments: [(60.0, 0.5), (120.0, 1.5), (100.0, 0.2), (40.0, 3.0), (90.0, 1.0)])
    func reportRateAndNoise_areWithinTenPercentOfTheTruth(rate: Double, noise: Double) throws {
        var sim = PanelSimulator(rate: rate, noise: noise)
        sim.script()
        let r = try sim.report().diagnosis
        let measured = try #require(r.reportRateHz), n = try #require(r.noiseMM)
        #expect(abs(measured - rate) <= 0.1 * rate, "rate \(measured) for \(rate)")
        #expect(abs(n - noise) <= 0.1 * noise, "noise \(n) for \(noise)")
        #expect(r.chatters.isEmpty && r.ghosts.isEmpty && r.stuck.isEmpty && r.phantoms.isEmpty)
        #expect(r.touches == 9)
    }

    /// Timestamps that jitter (up to ±1.5 ms at 250 Hz, ±2 ms at 120 Hz) still give the rate.
    @Test(arguments: [(250.0, 0.0015), (120.0, 0.002), (60.0, 0.003)])
    func jitteryTimestamps_giveTheRate(rate: Double, jitter: Double) throws {
        var sim = PanelSimulator(rate: rate, noise: 0.5)
        sim.jitter = jitter
        sim.script()
        let measured = try #require(try sim.report().diagnosis.reportRateHz)
        #expect(abs(measured - rate) <= 0.1 * rate, "rate \(measured) for \(rate)")
    }

    /// A 30 Hz panel whose fuzz (2 mm) drops most of a resting finger's reports, its swipes too
    /// short for a run of five moves: its gaps (33, 67, 100 ms...) give the rate, not the runs.
    @Test func aFuzzyPanel_takesItsRateFromWholeMultiples() throws {
        var sim = PanelSimulator(rate: 30, noise: 1)
        sim.fuzz = 32
        sim.script(swipe: 0.15)
        let measured = try #require(try sim.report().diagnosis.reportRateHz)
        #expect(abs(measured - 30) <= 3, "rate \(measured)")
    }

    /// A driver that splits each report in two frames 0.15 ms apart reports at 60 Hz, not 120.
    @Test func reportsSplitUnderAMillisecond_countOnce() throws {
        var sim = PanelSimulator(rate: 60, noise: 0.5)
        sim.script()
        // (One finger, slot 0 throughout: the Y values need no slot event of their own.)
        var split: [InputEvent] = [], ys: [InputEvent] = []
        for e in sim.events {
            if e.type == 3 && e.code == Evdev.ABS_MT_POSITION_Y {
                ys.append(InputEvent(time: Timestamp(nanoseconds: e.time.nanoseconds + 150_000), type: e.type, code: e.code, value: e.value))
                continue
            }
            split.append(e)
            if e.type == 0 && e.code == Evdev.SYN_REPORT && !ys.isEmpty {
                split += ys
                split.append(InputEvent(time: ys[0].time, type: 0, code: Evdev.SYN_REPORT, value: 0))
                ys = []
            }
        }
        sim.events = split
        let measured = try #require(try sim.report().diagnosis.reportRateHz)
        #expect(abs(measured - 60) <= 6, "rate \(measured)")
    }

    /// A report whose first frame moves nothing (a pressure alone) and whose second, 0.3 ms
    /// later, moves the finger is one report: the rate is the panel's.
    @Test func aReportWhoseFirstFrameMovesNothing_countsOnce() throws {
        var sim = PanelSimulator(rate: 100, noise: 0.5)
        sim.script()
        var split: [InputEvent] = []
        for e in sim.events {
            if e.type == 3 && e.code == Evdev.ABS_MT_SLOT {
                // Each report opens with a pressure frame of its own.
                split.append(InputEvent(time: e.time, type: 3, code: Evdev.ABS_MT_PRESSURE, value: Int32(split.count % 50)))
                split.append(InputEvent(time: e.time, type: 0, code: Evdev.SYN_REPORT, value: 0))
            }
            let later = Timestamp(nanoseconds: e.time.nanoseconds + 300_000)
            split.append(InputEvent(time: later, type: e.type, code: e.code, value: e.value))
        }
        sim.events = split
        let measured = try #require(try sim.report().diagnosis.reportRateHz)
        #expect(abs(measured - 100) <= 10, "rate \(measured)")
    }

    /// A driver that reads two reports at each interrupt and stamps both with its time (frames
    /// in pairs, each pair's two alike) reports at 120 Hz, not the 60 of its stamps; each
    /// report moves the finger again, which a report split in two frames does not.
    @Test(arguments: [0, 300_000])
    func reportsStampedInPairs_countTwice(apartNs: Int64) throws {
        var sim = PanelSimulator(rate: 120, noise: 0.5)
        sim.script()
        var frameStart = 0, frames = 0, pairTime: Int64 = 0
        var paired = sim.events
        for (i, e) in sim.events.enumerated() where e.type == 0 && e.code == Evdev.SYN_REPORT {
            // The even frames keep their time; each odd one takes its pair's (plus `apartNs`).
            let t = frames % 2 == 0 ? e.time.nanoseconds : pairTime + apartNs
            if frames % 2 == 0 { pairTime = t }
            for j in frameStart...i { paired[j] = InputEvent(time: Timestamp(nanoseconds: t), type: paired[j].type, code: paired[j].code, value: paired[j].value) }
            (frameStart, frames) = (i + 1, frames + 1)
        }
        sim.events = paired
        let measured = try #require(try sim.report().diagnosis.reportRateHz)
        #expect(abs(measured - 120) <= 12, "rate \(measured)")
    }

    /// A quiet panel: at rest the finger sends nothing (its noise under the kernel's fuzz); the
    /// rate comes from the swipes, and the noise is under the fuzz.
    @Test func aQuietPanel_measuresItsRateOnTheMoves() throws {
        var sim = PanelSimulator(rate: 60, noise: 0)
        sim.script()
        let r = try sim.report()
        #expect(abs(try #require(r.diagnosis.reportRateHz) - 60) <= 3)
        #expect(r.advice.filters.isEmpty, "\(r.advice.filters.map(\.key))")
    }

    /// A person tapping one spot in a steady rhythm (the doctor's tap step), a second or a
    /// second and a half apart within 3 %, is no phantom: no dead zone under their finger.
    @Test(arguments: [1.0, 1.5])
    func aPersonTappingInRhythm_isNoPhantom(period: Double) throws {
        var sim = PanelSimulator(rate: 100, noise: 0.5)
        sim.script()
        let jitter = [0.0, 0.03, -0.03, 0.02, -0.01, 0.03, -0.02, 0.0]
        for k in 0..<8 {
            sim.wait(period * (1 + jitter[k]) - 0.08)
            for _ in 0..<8 { sim.frame([2: (100 + Double(k % 3) * 0.5, 60)]) }
            sim.frame([2: nil])
        }
        let r = try sim.report()
        #expect(r.diagnosis.phantoms.isEmpty, "\(r.text)")
        #expect(!r.advice.filters.map(\.key).contains("dead_zones"))
    }

    /// On a noisy panel (1.5 mm at rest) the bounces' distance widens with the noise (a
    /// bounce's landing is as noisy as any sample), and the settings load; on a quieter one the
    /// default stays.
    @Test(arguments: [(1.5, "8"), (0.5, nil)])
    func aNoisyPanelsBounces_getAWiderChatterDistance(noise: Double, distance: String?) throws {
        var sim = PanelSimulator(rate: 60, noise: noise)
        sim.script()
        for _ in 0..<2 {
            sim.wait(0.5)
            sim.bouncingTap(slot: 0, 200, 100)
        }
        let r = try sim.report()
        #expect(r.diagnosis.chatters.count == 2, "\(r.text)")
        #expect(r.advice.filters.first { $0.key == "chatter_distance" }?.value == distance)
        _ = try ConfigLoader.parse(r.advice.settings(r.tracks), file: "doctor.toml")
    }

    @Test func bouncesGhostsStuckAndPhantoms_areFound_andTheirSettingsLoad() throws {
        var sim = PanelSimulator(rate: 100, noise: 0.8)
        sim.script()
        // A tap that bounces for one frame, twice.
        for _ in 0..<2 {
            sim.wait(0.5)
            for _ in 0..<5 { sim.frame([0: (200, 100)]) }
            sim.frame([0: nil])
            for _ in 0..<5 { sim.frame([0: (200.5, 100)]) }
            sim.frame([0: nil])
        }
        // Three one-frame ghosts, far apart in time and place.
        for k in 0..<3 {
            sim.wait(0.7)
            sim.frame([1: (30 + 60 * Double(k), 130)])
            sim.frame([1: nil])
        }
        // A phantom every 12.864 s at one spot, four times (60 ms each: no ghost).
        for _ in 0..<4 {
            sim.wait(12.864 - 0.07)
            for _ in 0..<6 { sim.frame([2: (240, 10)]) }
            sim.frame([2: nil])
        }
        // Then a contact that sends nothing for 8 s (stuck).
        var stuck = PanelSimulator(rate: 100, noise: 0)
        stuck.frame([3: (10, 140)])
        stuck.wait(8)
        stuck.frame([3: nil])
        // And one that flickers by a tenth of a mm every half second for 8 s (stuck too: a
        // cheap panel's stuck contact is seldom silent).
        stuck.wait(1)
        for k in 0...16 { stuck.frame([4: (60 + Double(k % 2) * 0.1, 140)]); stuck.wait(0.5) }
        stuck.frame([4: nil])
        let offset = sim.time + 1
        sim.events += stuck.events.map { InputEvent(time: Timestamp(nanoseconds: $0.time.nanoseconds + Int64(offset * 1e9)), type: $0.type, code: $0.code, value: $0.value) }
        let r = try sim.report()
        let d = r.diagnosis
        #expect(d.chatters.count == 2 && d.ghosts.count == 3 && d.stuck.count == 2 && d.phantoms.count == 1, "\(r.text)")
        #expect(abs((d.phantoms.first?.periodSeconds ?? 0) - 12.864) < 0.05)
        #expect(r.advice.filters.map(\.key) == ["dejitter_min_cutoff", "dejitter_rest_speed", "dejitter_speed_coefficient", "chatter_window", "ghost_under", "stuck_after", "dead_zones"])
        let text = r.advice.settings(r.tracks)
        let c = try ConfigLoader.parse(text, file: "doctor.toml")
        let panel = try #require(c.panels.first)
        #expect(panel.match == "0000:0000" && panel.geometry.filters.chatterNs != nil && panel.geometry.filters.deadZones.count == 1)
        // The rest speed the noise reads as (the 95th percentile of the filter's estimate at rest).
        let rest = try #require(panel.geometry.filters.dejitter?.restSpeed)
        let expected = PanelAdvice.restSpeed(noise: try #require(d.noiseMM), rate: try #require(d.reportRateHz))
        #expect(rest == expected && rest >= 5 && rest <= 200, "\(rest)")
        #expect(PanelAdvice.restSpeed(noise: 1.5, rate: 60) == 50 && PanelAdvice.restSpeed(noise: 0.87, rate: 100) == 40)
    }

    @Test func aPanelWithoutResolution_saysItsSizeIsAGuess_andTakesTheOneGiven() throws {
        var d = PanelSimulator.panel
        for code in [Evdev.ABS_X, Evdev.ABS_Y, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y] { d.axes[code]!.resolution = 0 }
        var sim = PanelSimulator(rate: 60, noise: 1)
        sim.script()
        let guessed = try sim.report(d)
        #expect(guessed.advice.needsSize && guessed.advice.settings(guessed.tracks).contains("width_mm"))
        let given = try sim.report(width: 256, height: 144, d)
        #expect(abs(try #require(given.diagnosis.noiseMM) - 1) <= 0.1)
        #expect(!given.advice.needsSize)
    }

    @Test func theJSON_hasTheKeysScriptsRead() throws {
        var sim = PanelSimulator(rate: 60, noise: 1)
        sim.script()
        let v = try sim.report().json
        guard case .number(let rate) = v["report_rate_hz"], case .number(let noise) = v["noise_mm"] else {
            Issue.record("no report_rate_hz or noise_mm in \(v)")
            return
        }
        #expect(rate > 50 && rate < 70 && noise > 0.8 && noise < 1.2)
        #expect(v["settings"] != nil && v["notes"] != nil)
    }

    @Test func aRecordingWithNoTouch_saysWhatItCouldNotMeasure() throws {
        let sim = PanelSimulator(rate: 60, noise: 1)
        let r = try sim.report()
        #expect(r.diagnosis.reportRateHz == nil && r.diagnosis.noiseMM == nil)
        #expect(r.advice.notes.contains { $0.contains("no report rate") })
        // No settings printed as if the panel had been measured and found sound.
        #expect(r.text.contains("No touch was read") && !r.text.contains("[[panel]]"))
        guard case .null = r.json["report_rate_hz"] else {
            Issue.record("report_rate_hz should be null")
            return
        }
    }

    /// Found by a hostile review: a steady drag is no resting noise, and the settings printed for
    /// odd panels (a tiny one, a name with control characters, more phantoms than dead zones)
    /// still load.
    @Test func aSlowDragIsNoNoise_andOddPanelsGetSettingsThatLoad() throws {
        var sim = PanelSimulator(rate: 50, noise: 0)
        for k in 0..<3 {
            sim.wait(0.5)
            for i in 0..<100 { sim.frame([0: (20 + 1.2 * Double(i), 40 + 20 * Double(k))]) }  // 60 mm/s
            sim.frame([0: nil])
        }
        let drag = try sim.report()
        #expect(drag.diagnosis.noiseMM == nil || drag.diagnosis.noiseMM! < 0.1)
        var tiny = PanelSimulator.panel
        tiny.name = "evil\u{1}\u{1b}[2J\rname"
        for code in [Evdev.ABS_X, Evdev.ABS_Y, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y] { tiny.axes[code]!.resolution = 1000 }
        let odd = try sim.report(tiny)
        #expect(odd.advice.needsSize)
        #expect(try ConfigLoader.parse(odd.advice.settings(odd.tracks), file: "doctor.toml").panels.count == 1)
        // Twenty spots with a phantom each (three landings 2 s apart), 12 mm apart.
        var many = PanelSimulator(rate: 100, noise: 0)
        for spot in 0..<20 {
            for _ in 0..<3 {
                many.wait(2 - 0.06)
                for _ in 0..<5 { many.frame([1: (10 + Double(spot) * 12, 100)]) }
                many.frame([1: nil])
            }
        }
        let r = try many.report()
        #expect(r.diagnosis.phantoms.count == 20)
        let c = try ConfigLoader.parse(r.advice.settings(r.tracks), file: "doctor.toml")
        #expect(c.panels.first?.geometry.filters.deadZones.count == 16)
    }

    /// Found by a hostile review: a contact that lands and lifts at one time is no bounce of itself.
    @Test func aContactOfNoLength_isNoBounce() throws {
        var sim = PanelSimulator(rate: 100, noise: 0)
        sim.frame([0: (100, 100)])
        sim.time -= 0.01
        sim.frame([0: nil])
        #expect(try sim.report().diagnosis.chatters.isEmpty)
    }
}
