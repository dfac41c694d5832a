import GestureConfig
import GestureEngine
import GestureProtocol

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
