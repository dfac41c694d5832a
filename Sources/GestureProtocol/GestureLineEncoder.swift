import GestureEngine

/// The protocol's version; every line format change that is not an addition bumps it.
public let protocolVersion = 1

/// Encodes engine events as protocol lines (docs/PROTOCOL.md, "gesture"):
/// `{"type":"gesture","gesture":G,"phase":P,"id":N,"sequence":S,"fingers":F,"time":T,"x":X,"y":Y,...}`.
public struct GestureLineEncoder {
    /// Names per compiled gesture and region, resolved once so encoding allocates nothing.
    private var names: [String]
    private var kinds: [GestureKind]
    private var regions: [String?]
    /// Each line's start, per gesture and phase, written once: `{"type":"gesture","gesture":G,
    /// ["name":N,]"phase":P,"id":` (the names escaped). A line copies it instead of writing it.
    /// All of them in one buffer (`heads[k]` is a range of it: nothing to retain per line).
    private var prepared: [UInt8] = []
    private var heads: [Range<Int>] = []
    /// `,"region":R` per gesture (empty for the default `screen` region), in `prepared`.
    private var regionFields: [Range<Int>] = []
    /// A stroke's shape names, and `,"shape":S` per shape in `prepared`.
    private var shapeNames: [String]
    private var shapeFields: [Range<Int>] = []

    public init(configuration: CompiledConfiguration) {
        names = configuration.gestures.map { $0.spec.name }
        shapeNames = configuration.shapeNames
        kinds = configuration.gestures.map { $0.spec.kind }
        regions = configuration.gestures.map {
            let r = configuration.regions[$0.region].name
            return r == EngineConfiguration.screenRegionName ? nil : r
        }
        for g in names.indices {
            for phase in GesturePhase.lineOrder {
                var w = JSONLineWriter(capacity: 128)
                w.beginObject()
                w.field("type", "gesture")
                w.key("gesture")
                w.string(kinds[g].rawValue)
                if names[g] != kinds[g].rawValue { w.field("name", names[g]) }
                w.key("phase")
                w.string(phase.rawValue)
                w.key("id")
                heads.append(prepared.count..<prepared.count + w.bytes.count)
                prepared += w.bytes
            }
            var w = JSONLineWriter(capacity: 64)
            if let r = regions[g] {
                w.needsComma = true
                w.field("region", r)
            }
            regionFields.append(prepared.count..<prepared.count + w.bytes.count)
            prepared += w.bytes
        }
        for shape in shapeNames {
            var w = JSONLineWriter(capacity: 64)
            w.needsComma = true
            w.field("shape", shape)
            shapeFields.append(prepared.count..<prepared.count + w.bytes.count)
            prepared += w.bytes
        }
    }

    public mutating func update(configuration: CompiledConfiguration) {
        self = GestureLineEncoder(configuration: configuration)
    }

    /// The name of an event's gesture, as its line gives it (the kind when unnamed).
    public func name(of e: GestureEvent) -> String { e.gesture < names.count ? names[e.gesture] : e.kind.rawValue }

    /// The region an event belongs to, as lines name it (nil: the default `screen` region).
    public func region(of e: GestureEvent) -> String? { region(ofGesture: e.gesture) }

    /// Whether compiled gesture `g` is of a region other than the default `screen` (asked per
    /// line before `region(ofGesture:)`, whose optional string is retained and released).
    public func hasRegion(_ g: Int) -> Bool { g >= 0 && g < regionFields.count && !regionFields[g].isEmpty }

    /// The region of compiled gesture `g`, as lines name it.
    public func region(ofGesture g: Int) -> String? { g >= 0 && g < regions.count ? regions[g] : nil }

    /// Appends one line (with its newline) for `e`: the prepared head and region field copied,
    /// the numbers written through a pointer, one append into `w` (about a tenth of the
    /// instructions of writing it field by field). The bytes are `encodeByFields`'s.
    public func encode(_ e: GestureEvent, into w: inout JSONLineWriter) {
        // Safe: the pointer to `e` is used inside the call only.
        withUnsafePointer(to: e) { encode(at: $0, into: &w) }
    }

    /// `encode`, for an event read where it lies (an event is ~190 bytes; the pipeline encodes
    /// from its event buffer without copying one out).
    // Safe: callers pass a pointer to an event alive for the call (an array element lent, or a local).
    public func encode(at p: UnsafePointer<GestureEvent>, into w: inout JSONLineWriter) {
        let g = p.pointee.gesture
        guard g >= 0 && g < names.count else { return encodeByFields(p.pointee, into: &w) }
        let head = heads[g &* GesturePhase.lineOrder.count &+ p.pointee.phase.lineIndex]
        let region = regionFields[g]
        let shape = p.pointee.kind == .stroke && p.pointee.shape >= 0 && p.pointee.shape < shapeFields.count
            ? shapeFields[p.pointee.shape] : 0..<0
        // Long names and regions (a head past 512 bytes) take the general path; the rest of a
        // line is at most 512 bytes (every number at its widest, 24 bytes for the largest finite
        // ones: `theWidestTail_fitsTheFastPathsScratch`), so 1024 bytes always hold it.
        guard head.count + region.count + shape.count <= 512 else { return encodeByFields(p.pointee, into: &w) }
        // Safe: `prepared` is lent for the closure; `head` and `region` are ranges made from it in `init`.
        prepared.withUnsafeBufferPointer { prepared in
            w.appendBounded(maxBytes: 1024) { c in
                c.raw(UnsafeBufferPointer(rebasing: prepared[head]))
                // Safe: a slice of `prepared`, lent above.
                encodeTail(
                    p, region: UnsafeBufferPointer(rebasing: prepared[region]), shape: UnsafeBufferPointer(rebasing: prepared[shape]),
                    into: &c)
            }
        }
        w.needsComma = false
    }

    /// Everything after a line's head: the numbers, the region field, the kind's fields (`shape`:
    /// a stroke's shape field).
    // Safe: called from `encode(at:)` with its pointer and slices of `prepared` lent there.
    private func encodeTail(
        _ p: UnsafePointer<GestureEvent>, region: UnsafeBufferPointer<UInt8>, shape: UnsafeBufferPointer<UInt8>, into c: inout ByteCursor
    ) {
        c.integer(Int64(truncatingIfNeeded: p.pointee.id))
        c.raw(",\"sequence\":")
        c.integer(Int64(p.pointee.sequence))
        c.raw(",\"fingers\":")
        c.integer(Int64(p.pointee.fingers))
        c.raw(",\"time\":")
        c.seconds(nanoseconds: p.pointee.time.nanoseconds)
        c.raw(",\"x\":")
        c.tenths(p.pointee.position.x)
        c.raw(",\"y\":")
        c.tenths(p.pointee.position.y)
        if !region.isEmpty { c.raw(region) }
        switch p.pointee.kind {
        case .tap:
            c.raw(",\"count\":")
            c.integer(Int64(p.pointee.count))
        case .longPress:
            break
        case .pan:
            c.raw(",\"dx\":")
            c.tenths(p.pointee.translation.x)
            c.raw(",\"dy\":")
            c.tenths(p.pointee.translation.y)
            c.raw(",\"vx\":")
            c.tenths(p.pointee.velocity.x)
            c.raw(",\"vy\":")
            c.tenths(p.pointee.velocity.y)
            switch p.pointee.axis {
            case .free: break
            case .horizontal: c.raw(",\"axis\":\"horizontal\"")
            case .vertical: c.raw(",\"axis\":\"vertical\"")
            }
            if let o = p.pointee.offset {
                c.raw(",\"offset\":")
                c.point(o)
            }
            if let t = p.pointee.target {
                c.raw(",\"target\":")
                c.point(t)
            }
            if let m = p.pointee.consumed {
                c.raw(",\"consumed\":")
                c.point(m)
            }
        case .swipe:
            if let d = p.pointee.direction {
                c.raw(",\"direction\":")
                c.quoted(d.rawValue)
            }
            c.raw(",\"velocity\":")
            c.tenths(p.pointee.speed)
        case .pinch:
            c.raw(",\"scale\":")
            c.fixed(p.pointee.scale, decimals: 4)
            c.raw(",\"rotation\":")
            c.fixed(p.pointee.rotation, decimals: 2)
        case .edgeSwipe:
            if let edge = p.pointee.edge {
                c.raw(",\"edge\":")
                c.quoted(edge.rawValue)
            }
            c.raw(",\"dx\":")
            c.tenths(p.pointee.translation.x)
            c.raw(",\"dy\":")
            c.tenths(p.pointee.translation.y)
        case .stroke:
            c.raw(shape)
            c.raw(",\"score\":")
            c.fixed(p.pointee.score, decimals: 3)
            c.raw(p.pointee.clockwise ? ",\"clockwise\":true" : ",\"clockwise\":false")
        }
        c.raw("}\n")
    }

    /// Appends one line (with its newline) for `e`, field by field through the writer: the
    /// definition of a line's bytes, which `encode` copies faster (a test holds them equal).
    public func encodeByFields(_ e: GestureEvent, into w: inout JSONLineWriter) {
        w.beginObject()
        w.field("type", "gesture")
        w.key("gesture")
        w.string(e.kind.rawValue)
        if e.gesture < names.count && names[e.gesture] != e.kind.rawValue { w.field("name", names[e.gesture]) }
        w.key("phase")
        w.string(e.phase.rawValue)
        w.field("id", e.id)
        w.field("sequence", e.sequence)
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
            if let m = e.consumed { w.field("consumed", m) }
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
        case .stroke:
            if e.shape >= 0 && e.shape < shapeNames.count { w.field("shape", shapeNames[e.shape]) }
            w.field("score", e.score, decimals: 3)
            w.field("clockwise", e.clockwise)
        }
        w.endObject()
        w.endLine()
    }
}

extension GesturePhase {
    /// The phases in the order of `GestureLineEncoder`'s prepared heads.
    static let lineOrder: [GesturePhase] = [.began, .changed, .ended, .cancelled, .recognized]

    var lineIndex: Int {
        switch self {
        case .began: 0
        case .changed: 1
        case .ended: 2
        case .cancelled: 3
        case .recognized: 4
        }
    }
}
