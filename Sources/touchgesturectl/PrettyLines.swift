import GestureEngine
import GestureProtocol

/// Lines for people: `monitor --pretty` and `replay --pretty`.

/// "  2.630s  long_press began        #3  1 finger   at (700, 500)"
func prettyLine(_ e: GestureEvent, name: String, shape: String? = nil) -> String {
    func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
    func num(_ v: Double) -> String { wholeText(v) }
    let short = name.hasPrefix("screen/") ? String(name.dropFirst(7)) : name
    var s = pad(String(format3(e.time.seconds)) + "s", 10) + pad(short + " " + e.phase.rawValue, 32)
    s += pad("#\(e.id)", 5) + pad("\(e.fingers) finger" + (e.fingers == 1 ? "" : "s"), 10)
    s += "at (\(num(e.position.x)), \(num(e.position.y)))"
    switch e.kind {
    case .tap: s += "  count \(e.count)"
    case .pan: s += "  moved (\(num(e.translation.x)), \(num(e.translation.y))) px"
        if let t = e.target { s += "  rests at (\(num(t.x)), \(num(t.y)))" }
    case .swipe: s += "  \(e.direction?.rawValue ?? "?") at \(num(e.speed)) px/s"
    case .pinch: s += "  scale \(format3(e.scale))  rotation \(num(e.rotation))°"
    case .edgeSwipe: s += "  from the \(e.edge?.rawValue ?? "?") edge"
    case .stroke: s += "  \(shape ?? "?") score \(format3(e.score))\(e.clockwise ? " clockwise" : "")"
    case .longPress: break
    }
    return s + "\n"
}

func format3(_ v: Double) -> String {
    guard v.isFinite, abs(v) < 1e12 else { return "\(v)" }
    let m = Int((v * 1000).rounded())
    let frac = String(abs(m) % 1000)
    return (m < 0 ? "-" : "") + String(abs(m) / 1000) + "." + String(repeating: "0", count: 3 - frac.count) + frac
}

/// A protocol line for people (gesture lines in the form `replay --pretty` uses), or nil for a
/// `changed` gesture line (left out); `raw`, as it is, for a line of another type (a hello, a
/// device line and the types below have a form of their own). Numbers out of their range read
/// as 0 (a day of seconds, a screen's pixels), strings escaped.
func prettyLine(_ v: JSONValue, raw: String? = nil) -> String? {
    func num(_ k: String) -> Double { v.number(k, in: -1e9...1e9) ?? 0 }
    func int(_ k: String) -> Int { v.whole(k, in: 0...Int(UInt32.max)) ?? 0 }
    func str(_ k: String) -> String? { v.text(k) }
    switch str("type") {
    case "hello":
        var devices = 0
        if case .array(let d)? = v["devices"] { devices = d.count }
        return "connected to touchgestured \(str("version") ?? "?"), protocol \(int("protocol")), \(devices) device(s)\n"
    case "device":
        return "device \(str("action") ?? "?"): \(v["device"]?.text("name") ?? "?")\n"
    case "gesture":
        guard str("phase") != "changed", let kind = str("gesture"), let g = GestureKind(rawValue: kind),
            let phase = str("phase").flatMap(GesturePhase.init)
        else { return nil }
        let seconds = v.number("time", in: 0...1e9) ?? 0
        var e = GestureEvent(kind: g, phase: phase, time: Timestamp(nanoseconds: Int64(seconds * 1e9)), position: PixelPoint(x: num("x"), y: num("y")))
        e.id = UInt64(int("id"))
        e.fingers = int("fingers")
        e.count = int("count")
        e.translation = PixelPoint(x: num("dx"), y: num("dy"))
        e.direction = str("direction").flatMap(SwipeDirection.init)
        e.speed = num("velocity")
        e.scale = num("scale")
        e.rotation = num("rotation")
        e.edge = str("edge").flatMap(ScreenEdge.init)
        e.score = num("score")
        e.clockwise = v["clockwise"].map { $0 == .bool(true) } ?? false
        if let t = v["target"], let x = t.number("x", in: -1e9...1e9), let y = t.number("y", in: -1e9...1e9) {
            e.target = PixelPoint(x: x, y: y)
        }
        let name = [str("region"), str("name") ?? kind].compactMap { $0 }.joined(separator: "/")
        return prettyLine(e, name: name, shape: str("shape"))
    case "pointer":
        return prettyPointer(v, time: pad(format3(v.number("time", in: 0...1e9) ?? 0) + "s", 10))
    case "idle", "wake", "screen", "keyboard", "touch", "regions_dropped":
        return prettyNotice(v, type: str("type") ?? "", time: pad(format3(v.number("time", in: 0...1e9) ?? 0) + "s", 10))
    default:
        return raw.map { $0 + "\n" }
    }
}

/// A `pointer` line for people: "  0.070s  pointer press left  [page]".
private func prettyPointer(_ v: JSONValue, time: String) -> String {
    func num(_ o: JSONValue?, _ k: String) -> String { wholeText(o?.number(k, in: -1e9...1e9) ?? 0) }
    var s = time + "pointer " + (v.text("op") ?? "?")
    switch v.text("op") {
    case "move": s += " to (\(num(v["position"], "x")), \(num(v["position"], "y")))"
    case "press", "release": s += " " + (v.text("button") ?? "?")
    case "wheel": s += " vertical \(num(v, "vertical")) horizontal \(num(v, "horizontal")) (1/120 notches)"
    case "key": s += " " + (v.text("key") ?? "?") + (v["pressed"] == .bool(true) ? " down" : " up")
    default: break
    }
    return s + (v.text("region").map { "  [\($0)]" } ?? "") + "\n"
}

/// The daemon's other stream lines for people: idle, wake, a screen's size, the keyboard, a
/// touch line's contacts, regions dropped.
private func prettyNotice(_ v: JSONValue, type: String, time: String) -> String {
    func num(_ o: JSONValue?, _ k: String) -> String { wholeText(o?.number(k, in: -1e9...1e9) ?? 0) }
    let device = v.whole("device", in: 0...Int(UInt32.max)).map { "  (device \($0))" } ?? ""
    switch type {
    case "screen": return time + "screen \(num(v["screen"], "width"))×\(num(v["screen"], "height"))\n"
    case "keyboard": return time + "keyboard " + (v.text("keyboard") ?? "?") + device + "\n"
    case "touch":
        guard case .array(let list)? = v["contacts"] else { return time + "touch" + device + "\n" }
        let contacts = list.prefix(10).map { c in
            "#\(c.whole("id", in: 0...Int(UInt32.max)) ?? 0) (\(num(c, "x")), \(num(c, "y")))" + (c["palm"] == .bool(true) ? " palm" : "")
        }
        return time + "touch \(list.count) contact\(list.count == 1 ? "" : "s")" + (contacts.isEmpty ? "" : ": " + contacts.joined(separator: ", ")) + device + "\n"
    default: return time + type + device + "\n"
    }
}

private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }

