import GestureConfig
import GestureEngine
import GestureProtocol
import TouchFrames

/// The line `touchgesturectl replay --actions` prints for each action a gesture would fire
/// (docs/PROTOCOL.md, "action"): `{"type":"action","action":NAME,"kind":"keys","keys":"A+B",
/// "time":T,"gesture":{...the gesture line...}}`, with `"argv":[...]` for an exec action.
public enum ActionLine {
    public static func encode(
        _ a: Action, time: Timestamp, gestureLine: ArraySlice<UInt8>, into w: inout JSONLineWriter
    ) {
        w.beginObject()
        w.field("type", "action")
        w.field("action", a.name)
        w.field("kind", a.kind)
        switch a.effect {
        case .keys(_, let names):
            w.field("keys", names.joined(separator: "+"))
        case .exec(let argv):
            w.key("argv")
            w.value(.array(argv.map { .string($0) }))
        case .keyboard(let command):
            w.field("keyboard", command.rawValue)
        }
        w.field("time", time.seconds, decimals: 6)
        w.key("gesture")
        var line = gestureLine
        if line.last == UInt8(ascii: "\n") { line = line.dropLast() }
        w.bytes += line
        w.endObject()
        w.endLine()
    }
}

extension DevicePipeline {
    /// `touchgesturectl replay --actions`: the action lines a whole recording's gestures would
    /// fire, after cooldowns, as the daemon would run them (nothing runs).
    public static func actionLines(
        _ recording: Recording, description: DeviceDescription, configuration: Configuration
    ) throws(SetupError) -> String {
        var out = PipelineOutput()
        try replay(recording, description: description, configuration: configuration, into: &out)
        var cooldowns = ActionCooldowns()
        var w = JSONLineWriter()
        ActionLine.encode(out, cooldowns: &cooldowns, into: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}

extension ActionLine {
    /// The action lines of what a pipeline made (each action item follows its gesture item,
    /// whose line goes inside), skipping firings within an action's cooldown.
    public static func encode(_ out: PipelineOutput, cooldowns: inout ActionCooldowns, into w: inout JSONLineWriter) {
        var gestureLine: Range<Int> = 0..<0
        for item in out.items {
            switch item {
            case .gesture(_, let line, _): gestureLine = line
            case .action(let f):
                let firing = out.firings[f]
                let time = out.events[firing.event].time
                guard cooldowns.admit(firing.action, at: time) else { continue }
                encode(firing.action, time: time, gestureLine: out[gestureLine], into: &w)
            case .touch, .pointer: break
            }
        }
    }
}
