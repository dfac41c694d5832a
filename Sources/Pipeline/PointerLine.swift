import GestureEngine
import GestureProtocol
import PointerEmulation

/// The line for one pointer op (docs/PROTOCOL.md, "pointer"), which `touchgesturectl replay`
/// prints among the gesture lines: `{"type":"pointer","op":"move","position":{"x":X,"y":Y},
/// "time":T,"region":R}`; `press`/`release` with `"button"`; `wheel` with `"vertical"` and
/// `"horizontal"` (120ths of a notch, the kernel's signs) and `"notches":[V,H]`; `key` with
/// `"key":"ctrl","pressed":B`.
public enum PointerLine {
    public static func encode(_ op: PointerOp, region: String, into w: inout JSONLineWriter) {
        w.beginObject()
        w.field("type", "pointer")
        switch op.kind {
        case .move(let p):
            w.field("op", "move")
            w.field("position", p)
        case .press(let b):
            w.field("op", "press")
            w.field("button", b.rawValue)
        case .release(let b):
            w.field("op", "release")
            w.field("button", b.rawValue)
        case .wheel(let wheel):
            w.field("op", "wheel")
            w.field("vertical", Int(wheel.vertical))
            w.field("horizontal", Int(wheel.horizontal))
            w.key("notches")
            w.beginArray()
            w.integer(Int64(wheel.verticalNotches))
            w.raw(",")
            w.integer(Int64(wheel.horizontalNotches))
            w.endArray()
        case .ctrl(let pressed):
            w.field("op", "key")
            w.field("key", "ctrl")
            w.field("pressed", pressed)
        }
        w.field("time", op.time.seconds, decimals: 6)
        w.field("region", region)
        w.endObject()
        w.endLine()
    }
}
