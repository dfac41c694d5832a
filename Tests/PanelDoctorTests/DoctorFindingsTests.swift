import GestureConfig
import PanelDoctor
import Testing
import TouchFrames

/// What a cheap panel's other lies must not do to the doctor's findings: a stuck contact is no
/// resting finger, a user's tap beside a phantom does not hide it, a swipe is never a phantom,
/// a slow panel's rest is measured, and no dead zone it suggests covers the panel.
@Suite struct DoctorFindingsTests {
    /// A contact stuck for 20 s in slot 5, flickering by one unit each report (a resting finger
    /// it is not), beside the script's noisy rest.
    static func stuckContact(_ sim: inout PanelSimulator) {
        sim.ev(3, Evdev.ABS_MT_SLOT, 5)
        sim.ev(3, Evdev.ABS_MT_TRACKING_ID, 900)
        sim.ev(3, Evdev.ABS_MT_POSITION_Y, 900)
        for k in 0..<1200 {
            sim.ev(3, Evdev.ABS_MT_SLOT, 5)
            sim.ev(3, Evdev.ABS_MT_POSITION_X, 1500 + Int32(k % 2))
            sim.ev(0, Evdev.SYN_REPORT, 0)
            sim.wait(1.0 / 60)
        }
        sim.ev(3, Evdev.ABS_MT_SLOT, 5)
        sim.ev(3, Evdev.ABS_MT_TRACKING_ID, -1)
        sim.ev(0, Evdev.SYN_REPORT, 0)
    }

    @Test func aStuckContact_leavesTheRestingNoiseAsItWas() throws {
        var plain = PanelSimulator(rate: 60, noise: 1)
        plain.script()
        var stuck = plain
        Self.stuckContact(&stuck)
        let without = try plain.report(), with = try stuck.report()
        let noise = try #require(without.diagnosis.noiseMM), noiseBeside = try #require(with.diagnosis.noiseMM)
        #expect(with.diagnosis.stuck.count == 1)
        #expect(abs(noiseBeside - noise) <= 0.05 * noise, "\(noiseBeside) against \(noise) without the stuck contact")
        #expect(!with.advice.notes.contains { $0.contains("quiet at rest") }, "\(with.text)")
        #expect(with.advice.filters.contains { $0.key == "stuck_after" } && with.advice.filters.contains { $0.key == "dejitter_min_cutoff" })
    }

    /// Only stuck contacts rested: their rest is measured, as before (a quiet panel).
    @Test func onlyAStuckContactRested_itsRestIsMeasured() throws {
        var sim = PanelSimulator(rate: 60, noise: 0)
        Self.stuckContact(&sim)
        let r = try sim.report()
        #expect(r.diagnosis.noiseMM != nil && r.diagnosis.stuck.count == 1)
    }

    /// A phantom every 12.864 s at one spot, five times; a user's tap 1 mm from it between two.
    @Test(arguments: [false, true])
    func aPhantom_isFound_withATapBesideIt(tapBeside: Bool) throws {
        var sim = PanelSimulator(rate: 60, noise: 0.3)
        sim.script()
        for k in 0..<5 {
            sim.wait(12.864 - 3.0 / 60)
            for _ in 0..<3 { sim.frame([3: (200, 20)]) }
            sim.frame([3: nil])
            if tapBeside && k == 2 {
                sim.wait(5)
                for _ in 0..<6 { sim.frame([4: (201, 20)]) }
                sim.frame([4: nil])
                sim.wait(-5 - 7.0 / 60)
            }
        }
        let r = try sim.report()
        let phantom = try #require(r.diagnosis.phantoms.first, "\(r.text)")
        #expect(r.diagnosis.phantoms.count == 1 && phantom.count == 5)
        #expect(abs(phantom.periodSeconds - 12.864) < 0.05)
        #expect(r.advice.filters.contains { $0.key == "dead_zones" })
    }

    /// Three swipes of 150 mm starting at one point exactly 4 s apart are no phantom: a phantom
    /// touch stays where it lands.
    @Test func swipesFromOnePoint_atAFixedPeriod_areNoPhantom() throws {
        var sim = PanelSimulator(rate: 60, noise: 0.3)
        sim.script()
        for _ in 0..<3 {
            sim.wait(4 - 19.0 / 60)
            for i in 0...18 { sim.frame([1: (40 + 150 * Double(i) / 18, 100)]) }
            sim.frame([1: nil])
        }
        let r = try sim.report()
        #expect(r.diagnosis.phantoms.isEmpty, "\(r.text)")
        #expect(!r.advice.filters.contains { $0.key == "dead_zones" })
    }

    /// A 20 Hz and a 10 Hz panel: 300 ms hold six reports and three, too few for a rest; their
    /// rests are cut by nine reports, and measured.
    @Test(arguments: [20.0, 10.0])
    func aSlowPanelsRest_isMeasured(rate: Double) throws {
        var sim = PanelSimulator(rate: rate, noise: 1)
        sim.script()
        for _ in 0..<Int(4 * rate) { sim.frame([0: (100, 100)]) }
        sim.frame([0: nil])
        let r = try sim.report()
        let noise = try #require(r.diagnosis.noiseMM, "\(r.text)")
        #expect(abs(noise - 1) <= 0.2, "\(noise)")
    }

    /// A phantom on a 10 × 10 mm panel: a 10 mm dead zone would cover it all, which the
    /// configuration refuses; the doctor suggests none, says why, and its settings load.
    @Test func aPhantomOnATinyPanel_getsNoDeadZoneCoveringIt() throws {
        var sim = PanelSimulator(rate: 60, noise: 0)
        for _ in 0..<4 {
            sim.wait(3)
            for _ in 0..<3 { sim.frame([3: (5, 5)]) }
            sim.frame([3: nil])
        }
        let r = try sim.report(width: 10, height: 10)
        #expect(r.diagnosis.phantoms.count == 1, "\(r.text)")
        #expect(!r.advice.filters.contains { $0.key == "dead_zones" })
        #expect(r.advice.notes.contains { $0.contains("would cover this whole panel") }, "\(r.text)")
        _ = try ConfigLoader.parse(r.advice.settings(r.tracks), file: "doctor.toml")
    }
}
