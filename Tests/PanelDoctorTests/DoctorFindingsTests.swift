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

    /// A contact stuck for 8 s, moved 20 mm, stuck 7 s more: two stuck contacts, as the filter
    /// ends it twice (each with its own place and time).
    @Test func aContactStuckTwice_isFoundTwice() throws {
        var sim = PanelSimulator(rate: 60, noise: 0)
        for (seconds, x) in [(8.0, 1500), (7.0, 1700)] {
            for k in 0..<Int(seconds * 60) {
                sim.ev(3, Evdev.ABS_MT_SLOT, 5)
                if k == 0 && x == 1500 {
                    sim.ev(3, Evdev.ABS_MT_TRACKING_ID, 900)
                    sim.ev(3, Evdev.ABS_MT_POSITION_Y, 900)
                }
                sim.ev(3, Evdev.ABS_MT_POSITION_X, Int32(x + k % 2))
                sim.ev(0, Evdev.SYN_REPORT, 0)
                sim.wait(1.0 / 60)
            }
        }
        sim.ev(3, Evdev.ABS_MT_SLOT, 5)
        sim.ev(3, Evdev.ABS_MT_TRACKING_ID, -1)
        sim.ev(0, Evdev.SYN_REPORT, 0)
        let r = try sim.report()
        let stuck = r.diagnosis.stuck
        #expect(stuck.count == 2, "\(r.text)")
        #expect(stuck.map { $0.silentSeconds.rounded() } == [8, 7], "\(stuck)")
        #expect(stuck.count == 2 && stuck[1].xMM > stuck[0].xMM + 5, "\(stuck)")
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

    /// On a 30 Hz panel a one-frame ghost lasts 33 ms: `ghost_under` is suggested past it (40
    /// ms). With bounces too (`chatter_window`), it would go above two reports (80 ms) so that
    /// a blinking ghost is no bounce, but stays at a quick tap (50 ms: a 67 ms tap of two
    /// reports is kept), and a note says what that leaves.
    @Test(arguments: [false, true])
    func aSlowPanelsGhosts_getAGhostUnderUnderAQuickTap(bounces: Bool) throws {
        var sim = PanelSimulator(rate: 30, noise: 0.8)
        sim.script()
        for k in 0..<3 {
            sim.wait(0.7)
            sim.frame([1: (30 + 60 * Double(k), 130)])
            sim.frame([1: nil])
        }
        if bounces {
            sim.wait(0.7)
            sim.bouncingTap(slot: 1, 150, 60)
        }
        let r = try sim.report()
        let under = try #require(r.advice.filters.first { $0.key == "ghost_under" }.flatMap { Double($0.value) })
        #expect(under == (bounces ? 0.05 : 0.04), "\(r.text)")
        #expect(r.advice.filters.contains { $0.key == "chatter_window" } == bounces)
        #expect(r.advice.notes.contains { $0.contains("loses every tap shorter than 80 ms") } == bounces, "\(r.text)")
    }

    /// A user tapping one spot whenever (30 taps, 2.5-6 s apart): a few landings line up by
    /// chance, most do not; no phantom, no dead zone under their button.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aUserTappingOneSpotWhenever_isNoPhantom(seed: UInt64) throws {
        var sim = PanelSimulator(rate: 60, noise: 0.3, seed: seed)
        sim.script()
        for _ in 0..<30 {
            sim.wait(2.5 + 3.5 * Double(sim.random.next() >> 11) / Double(1 << 53))
            for _ in 0..<5 { sim.frame([2: (150, 90)]) }
            sim.frame([2: nil])
        }
        let r = try sim.report()
        #expect(r.diagnosis.phantoms.isEmpty, "\(r.text)")
    }

    /// Hostile timing: a contact moving a unit every 2 s (a rate of 0.5 Hz measured, whose
    /// tolerance would span a period) beside three taps, and reports 48 years apart: the doctor
    /// ends, and says what it can.
    @Test func hostileTiming_endsTheDoctor() throws {
        var slow = PanelSimulator(rate: 60, noise: 0)
        slow.ev(3, Evdev.ABS_MT_SLOT, 0)
        slow.ev(3, Evdev.ABS_MT_TRACKING_ID, 5)
        slow.ev(3, Evdev.ABS_MT_POSITION_Y, 900)
        for k in 0..<30 {
            slow.ev(3, Evdev.ABS_MT_SLOT, 0)
            slow.ev(3, Evdev.ABS_MT_POSITION_X, 1000 + Int32(k))
            slow.ev(0, Evdev.SYN_REPORT, 0)
            slow.wait(2)
            if [15, 16, 20].contains(k) {
                for _ in 0..<4 { slow.frame([1: (100, 100)]) }
                slow.frame([1: nil])
            }
        }
        _ = try slow.report()
        var far = PanelSimulator(rate: 60, noise: 1)
        for _ in 0..<5 {
            far.frame([0: (100, 100)])
            far.wait(1.5e9)
        }
        far.frame([0: nil])
        _ = try far.report()
    }

    /// The doctor reads the panel's own values: one past its axes is said (the virtual
    /// touchscreen writes it at the edge).
    @Test func aPositionPastTheAxes_isSaid() throws {
        var sim = PanelSimulator(rate: 60, noise: 0.3)
        sim.script()
        sim.ev(3, Evdev.ABS_MT_SLOT, 0)
        sim.ev(3, Evdev.ABS_MT_TRACKING_ID, 700)
        sim.ev(3, Evdev.ABS_MT_POSITION_X, 4200)
        sim.ev(3, Evdev.ABS_MT_POSITION_Y, 100)
        sim.ev(0, Evdev.SYN_REPORT, 0)
        sim.wait(0.1)
        sim.ev(3, Evdev.ABS_MT_TRACKING_ID, -1)
        sim.ev(0, Evdev.SYN_REPORT, 0)
        let r = try sim.report()
        #expect(r.diagnosis.outOfRange && r.advice.notes.contains { $0.contains("outside its axes' range") }, "\(r.text)")
    }
}
