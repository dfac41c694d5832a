import GestureEngine

/// A device as the protocol describes it (hello, device lines, list_devices).
public struct DeviceSummary: Sendable {
    public var id: UInt32
    public var name: String
    /// `/dev/input/eventN`, or `replay:FILE` for a recording played as a virtual device.
    public var node: String
    public var vendor: UInt16
    public var product: UInt16
    /// "multitouch" or "single-touch".
    public var kind: String
    public var slots: Int
    /// The active area's width and height in mm (from the axis resolution, the configuration or
    /// the default size, as the daemon's thresholds use them); nil when unknown.
    public var sizeMM: (width: Double, height: Double)?

    public init(
        id: UInt32, name: String, node: String, vendor: UInt16, product: UInt16, kind: String, slots: Int,
        sizeMM: (width: Double, height: Double)? = nil
    ) {
        self.sizeMM = sizeMM
        self.id = id
        self.name = name
        self.node = node
        self.vendor = vendor
        self.product = product
        self.kind = kind
        self.slots = slots
    }

    public func write(_ w: inout JSONLineWriter) {
        w.beginObject()
        w.field("id", Int(id))
        w.field("name", name)
        w.field("node", node)
        w.field("vendor", hex4(vendor))
        w.field("product", hex4(product))
        w.field("kind", kind)
        w.field("slots", slots)
        if let sizeMM {
            w.key("size_mm")
            w.raw("[")
            w.fixed(sizeMM.width, decimals: 1)
            w.raw(",")
            w.fixed(sizeMM.height, decimals: 1)
            w.raw("]")
        }
        w.endObject()
    }

    private func hex4(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 4 - s.count) + s
    }
}

/// The daemon's lines other than gestures (docs/PROTOCOL.md): hello, device, touch, reply, error.
public enum Messages {
    public static func hello(_ w: inout JSONLineWriter, version: String, devices: [DeviceSummary], screen: PixelRect, maxLineBytes: Int) {
        w.beginObject()
        w.field("type", "hello")
        w.field("protocol", protocolVersion)
        w.field("version", version)
        w.field("max_line_bytes", maxLineBytes)
        w.key("devices")
        w.raw("[")
        for (i, d) in devices.enumerated() {
            if i > 0 { w.raw(",") }
            d.write(&w)
        }
        w.raw("]")
        writeScreen(&w, screen)
        w.endObject()
        w.endLine()
    }

    /// `{"type":"screen","time":T,"screen":{"width":W,"height":H}}`: a reload changed the screen
    /// (`[screen]`) the `hello` gave; positions are in the new one from now on.
    public static func screen(_ w: inout JSONLineWriter, _ screen: PixelRect, time: Double) {
        w.beginObject()
        w.field("type", "screen")
        w.field("time", time, decimals: 6)
        writeScreen(&w, screen)
        w.endObject()
        w.endLine()
    }

    private static func writeScreen(_ w: inout JSONLineWriter, _ screen: PixelRect) {
        w.key("screen")
        w.beginObject()
        w.field("width", screen.width, decimals: 0)
        w.field("height", screen.height, decimals: 0)
        w.endObject()
    }

    /// `{"type":"idle","time":T}`: nobody touched the screen for `[idle] after` seconds; or
    /// `{"type":"wake","time":T,"device":N}`: the first touch since, on device N (swallowed).
    public static func moment(_ w: inout JSONLineWriter, wake: Bool, time: Double, device: UInt32?) {
        w.beginObject()
        w.field("type", wake ? "wake" : "idle")
        w.field("time", time, decimals: 6)
        if let device { w.field("device", Int(device)) }
        w.endObject()
        w.endLine()
    }

    /// A `keyboard` action fired: `{"type":"keyboard","keyboard":"show","action":NAME,"time":T,
    /// "device":D}` (docs/PROTOCOL.md, "keyboard").
    public static func keyboard(_ w: inout JSONLineWriter, command: String, action: String, time: Double, device: UInt32?) {
        w.beginObject()
        w.field("type", "keyboard")
        w.field("keyboard", command)
        w.field("action", action)
        w.field("time", time, decimals: 6)
        if let device { w.field("device", Int(device)) }
        w.endObject()
        w.endLine()
    }

    public static func device(_ w: inout JSONLineWriter, added: Bool, _ d: DeviceSummary, time: Double) {
        w.beginObject()
        w.field("type", "device")
        w.field("action", added ? "added" : "removed")
        w.field("time", time, decimals: 6)
        w.key("device")
        d.write(&w)
        w.endObject()
        w.endLine()
    }

    /// One frame's contacts: `{"type":"touch","device":1,"time":…,"contacts":[{"id":…,"x":…,"y":…,"u":…,"v":…}]}`.
    /// `unit` gives a contact's position on the panel's own axes (0…1, before calibration and
    /// rotation), when known.
    /// `hidden`: contacts left out (those that landed in an excluded region).
    public static func touch(
        _ w: inout JSONLineWriter, device: UInt32, frame: TouchFrame, hidden: [UInt32] = [],
        unit: (UInt32) -> (u: Double, v: Double)? = { _ in nil }
    ) {
        w.beginObject()
        w.field("type", "touch")
        w.field("device", Int(device))
        w.field("time", frame.time.seconds, decimals: 6)
        w.key("contacts")
        w.raw("[")
        var written = 0
        for c in frame.contacts where hidden.isEmpty || !hidden.contains(c.id) {
            if written > 0 { w.raw(",") }
            written += 1
            w.beginObject()
            w.field("id", Int(c.id))
            w.field("x", c.position.x, decimals: 1)
            w.field("y", c.position.y, decimals: 1)
            if let p = unit(c.id) {
                w.field("u", p.u, decimals: 5)
                w.field("v", p.v, decimals: 5)
            }
            if c.isPalm { w.field("palm", true) }
            w.endObject()
        }
        w.raw("]")
        w.endObject()
        w.endLine()
    }

    /// Opens `{"type":"reply","id":…,"ok":true,"op":OP`; the caller adds fields and calls `end`.
    public static func beginReply(_ w: inout JSONLineWriter, id: RequestID?, op: String) {
        head(&w, type: "reply", id: id, ok: true)
        w.field("op", op)
    }

    /// `{"type":T,"id":…,"ok":B`: how replies and errors begin.
    private static func head(_ w: inout JSONLineWriter, type: String, id: RequestID?, ok: Bool) {
        w.beginObject()
        w.field("type", type)
        if let id {
            w.key("id")
            id.write(&w)
        }
        w.field("ok", ok)
    }

    public static func end(_ w: inout JSONLineWriter) {
        w.endObject()
        w.endLine()
    }

    public static func error(_ w: inout JSONLineWriter, id: RequestID?, code: ErrorCode, message: String) {
        head(&w, type: "error", id: id, ok: false)
        w.field("code", code.rawValue)
        w.field("message", message)
        w.endObject()
        w.endLine()
    }
}

/// A request's `id`, echoed in its answer exactly as the client wrote it.
public enum RequestID: Equatable, Sendable {
    case string(String)
    /// A JSON number's text, as written (`9007199254740993` stays that, not `9007199254740992`).
    case number(text: String)

    func write(_ w: inout JSONLineWriter) {
        switch self {
        case .string(let s): w.value(.string(s))
        case .number(let text): w.bytes.append(contentsOf: text.utf8)
        }
    }
}
