import Foundation
import Pipeline
import TestSupport
import Testing
import TouchFrames

/// Protocol A panels (no slots) read as the same touches on protocol B ones: every golden
/// recording, rewritten as its panel would send it without slots, replays to the same lines.
@Suite struct ProtocolAReplayTests {
    /// `recording` as a protocol A panel sends it: at each SYN_REPORT every contact down (those
    /// down before in reverse slot order, so order gives nothing away; then those that land, in
    /// slot order, the order their ids are given in), each ended by SYN_MT_REPORT, no slot and
    /// no tracking id; every other event as it came.
    static func protocolA(_ recording: Recording, _ description: DeviceDescription) -> (Recording, DeviceDescription) {
        var d = description
        d.axes[Evdev.ABS_MT_SLOT] = nil
        d.axes[Evdev.ABS_MT_TRACKING_ID] = nil
        d.codes[Evdev.EV_ABS] = Set(d.axes.keys)
        var slot: Int32 = 0
        var down: [Int32: (x: Int32, y: Int32, id: Int32)] = [:]
        var before: [Int32: Int32] = [:]
        var out: [InputEvent] = []
        for e in recording.events {
            let ev = { (type: UInt16, code: UInt16, value: Int32) in out.append(InputEvent(time: e.time, type: type, code: code, value: value)) }
            switch (e.type, e.code) {
            case (Evdev.EV_ABS, Evdev.ABS_MT_SLOT): slot = e.value
            case (Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID):
                down[slot] = e.value < 0 ? nil : (down[slot]?.x ?? 0, down[slot]?.y ?? 0, e.value)
            case (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X): down[slot]?.x = e.value
            case (Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y): down[slot]?.y = e.value
            case (Evdev.EV_SYN, Evdev.SYN_REPORT):
                let old = down.filter { before[$0.key] == $0.value.id }.sorted { $0.key > $1.key }
                let new = down.filter { before[$0.key] != $0.value.id }.sorted { $0.key < $1.key }
                before = down.mapValues(\.id)
                for (_, c) in old + new {
                    ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, c.x)
                    ev(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, c.y)
                    ev(Evdev.EV_SYN, Evdev.SYN_MT_REPORT, 0)
                }
                if down.isEmpty { ev(Evdev.EV_SYN, Evdev.SYN_MT_REPORT, 0) }
                out.append(e)
            default: out.append(e)
            }
        }
        return (Recording(description: d, events: out), d)
    }

    @Test(arguments: Scenarios.all.map(\.name).filter { $0 != "syn-dropped-mid-pan" })
    func aGoldenRecording_sentWithoutSlots_replaysTheSame(name: String) throws {
        let scenario = Scenarios.all.first { $0.name == name }!
        var synth = Synth()
        scenario.build(&synth)
        let config = try configuration(scenario.config)
        let (a, d) = Self.protocolA(synth.recording, Synth.panel)
        #expect(d.isProtocolA)
        let b = try DevicePipeline.lines(synth.recording, description: Synth.panel, configuration: config)
        #expect(try DevicePipeline.lines(a, description: d, configuration: config) == b)
        #expect(!b.isEmpty)
    }

    @Test(.enabled(if: Paths.sharedPresent, "the real-panel recordings (../shared/recordings) are absent"))
    func aRealFourFingerDrag_sentWithoutSlots_replaysTheSame() throws {
        let path = "\(Paths.shared)/ep0430m09.4-finger-drag-down.events"
        let recording = try Evemu.parse(try read(path), file: path)
        let description = try #require(recording.description)
        let (a, d) = Self.protocolA(recording, description)
        let b = try DevicePipeline.lines(recording, description: description, configuration: .standard)
        #expect(try DevicePipeline.lines(a, description: d, configuration: .standard) == b)
        #expect(b.contains("\"fingers\":4"))
    }

    /// The example recording, as a user replays it.
    @Test func theExampleRecording_givesATapAndATwoFingerSwipe() throws {
        let path = Paths.examples + "/recordings/protocol-a.events"
        let recording = try Evemu.parse(try read(path), file: path)
        let d = try #require(recording.description)
        #expect(d.isProtocolA)
        let out = try lines(try DevicePipeline.lines(recording, description: d, configuration: .standard))
        #expect(out.filter { $0.phase == "recognized" }.map { "\($0.gesture) \($0.fingers) \($0.direction ?? "")" } == ["tap 1 ", "swipe 2 left"])
    }
}
