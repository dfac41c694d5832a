import GestureEngine

/// The protocol's version; every line format change that is not an addition bumps it.
public let protocolVersion = 1

/// Encodes engine events as protocol lines (docs/PROTOCOL.md, "gesture"):
/// `{"type":"gesture","gesture":G,"phase":P,"id":N,"fingers":F,"time":T,"x":X,"y":Y,...}`.
public struct GestureLineEncoder {
    /// Names per compiled gesture and region, resolved once so encoding allocates nothing.
    private var names: [String]
    private var kinds: [GestureKind]
    private var regions: [String?]

    public init(configuration: CompiledConfiguration) {
        names = configuration.gestures.map { $0.spec.name }
        kinds = configuration.gestures.map { $0.spec.kind }
        regions = configuration.gestures.map {
            let r = configuration.regions[$0.region].name
            return r == EngineConfiguration.screenRegionName ? nil : r
        }
    }

    public mutating func update(configuration: CompiledConfiguration) {
        self = GestureLineEncoder(configuration: configuration)
    }

    /// The name of an event's gesture, as its line gives it (the kind when unnamed).
    public func name(of e: GestureEvent) -> String { e.gesture < names.count ? names[e.gesture] : e.kind.rawValue }

    /// The region an event belongs to, as lines name it (nil: the default `screen` region).
    public func region(of e: GestureEvent) -> String? {
        e.gesture < regions.count ? regions[e.gesture] : nil
    }

    /// Appends one line (with its newline) for `e`.
    public func encode(_ e: GestureEvent, into w: inout JSONLineWriter) {
        w.beginObject()
        w.field("type", "gesture")
        w.key("gesture")
        w.string(e.kind.rawValue)
        if e.gesture < names.count && names[e.gesture] != e.kind.rawValue { w.field("name", names[e.gesture]) }
        w.key("phase")
        w.string(e.phase.rawValue)
        w.field("id", e.id)
        w.field("fingers", e.fingers)
        w.field("time", e.time.seconds, decimals: 6)
        w.field("x", e.position.x, decimals: 1)
        w.field("y", e.position.y, decimals: 1)
        if e.gesture < regions.count, let r = regions[e.gesture] { w.field("region", r) }
        switch e.kind {
        case .tap:
            w.field("count", e.count)
        case .longPress:
            break
        case .pan:
            w.field("dx", e.translation.x, decimals: 1)
            w.field("dy", e.translation.y, decimals: 1)
            w.field("vx", e.velocity.x, decimals: 1)
            w.field("vy", e.velocity.y, decimals: 1)
            if e.axis != .free {
                w.key("axis")
                w.string(e.axis.rawValue)
            }
            if let o = e.offset { w.field("offset", o) }
            if let t = e.target { w.field("target", t) }
        case .swipe:
            if let d = e.direction {
                w.key("direction")
                w.string(d.rawValue)
            }
            w.field("velocity", e.speed, decimals: 1)
        case .pinch:
            w.field("scale", e.scale, decimals: 4)
            w.field("rotation", e.rotation, decimals: 2)
        case .edgeSwipe:
            if let edge = e.edge {
                w.key("edge")
                w.string(edge.rawValue)
            }
            w.field("dx", e.translation.x, decimals: 1)
            w.field("dy", e.translation.y, decimals: 1)
        }
        w.endObject()
        w.endLine()
    }
}
