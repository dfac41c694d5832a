import GestureEngine
import GestureProtocol
import TouchFrames

/// libFuzzer target: any bytes as an evdev event stream (types, codes, values, timestamps that may
/// run backwards, SYN_DROPPED, slots out of range) through the frame decoder and the default
/// engine. Checked, not only "no crash": every began is followed by exactly one ended or cancelled
/// and nothing after it; a discrete gesture is one recognized; ids grow; every line is JSON; the
/// engine is idle at the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEngine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var decoder = FrameDecoder(description: panel, geometry: GeometryConfiguration())!
    let compiled = CompiledConfiguration(.standard())
    var engine = Engine(compiled: compiled)
    let encoder = GestureLineEncoder(configuration: compiled)
    var out: [GestureEvent] = []
    var t: Int64 = 1_000_000_000
    let types: [UInt16] = [Evdev.EV_SYN, Evdev.EV_ABS, Evdev.EV_ABS, Evdev.EV_ABS, Evdev.EV_KEY, 0x04]
    let codes: [UInt16] = [Evdev.ABS_MT_SLOT, Evdev.ABS_MT_TRACKING_ID, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y, Evdev.ABS_MT_TOOL_TYPE, Evdev.ABS_X, Evdev.ABS_Y, 0x3f]
    var i = 0
    while i + 4 <= bytes.count {
        let b0 = bytes[i], b1 = bytes[i + 1]
        let value = Int32(Int16(bitPattern: UInt16(bytes[i + 2]) << 8 | UInt16(bytes[i + 3])))
        i += 4
        t += Int64(Int8(bitPattern: b1)) * 2_000_000  // time may run backwards
        let type = types[Int(b0 & 0x07) % types.count]
        var code: UInt16
        switch type {
        case Evdev.EV_SYN: code = (b0 >> 3) & 1 == 0 ? Evdev.SYN_REPORT : Evdev.SYN_DROPPED
        case Evdev.EV_KEY: code = Evdev.BTN_TOUCH
        default: code = codes[Int(b0 >> 3) % codes.count]
        }
        if type == 0x04 { code = 0 }
        let v = code == Evdev.ABS_MT_TRACKING_ID ? (value < -100 ? -1 : value & 0xFF) : (code == Evdev.ABS_MT_SLOT ? value % 12 : value)
        if let frame = decoder.feed(InputEvent(time: Timestamp(nanoseconds: t), type: type, code: code, value: v)) {
            engine.handle(frame, into: &out)
        }
    }
    engine.deviceRemoved(at: Timestamp(nanoseconds: t), into: &out)
    engine.advance(to: .distantFuture, into: &out)
    if !engine.isIdle { fatalError("engine not idle at the end") }

    var open: [UInt64: GestureKind] = [:]
    var finished = Set<UInt64>()
    var lastID: UInt64 = 0
    for e in out {
        if finished.contains(e.id) { fatalError("an event after its gesture ended: \(e)") }
        if e.id < lastID && open[e.id] == nil { fatalError("ids do not grow") }
        lastID = max(lastID, e.id)
        switch e.phase {
        case .recognized: finished.insert(e.id)
        case .began:
            if open[e.id] != nil { fatalError("began twice") }
            open[e.id] = e.kind
        case .changed: if open[e.id] == nil { fatalError("changed before began") }
        case .ended, .cancelled:
            if open[e.id] == nil { fatalError("ended before began") }
            open[e.id] = nil
            finished.insert(e.id)
        }
        var w = JSONLineWriter(capacity: 256)
        encoder.encode(e, into: &w)
        if (try? parseJSON(w.bytes.dropLast())) == nil { fatalError("not JSON: \(String(decoding: w.bytes, as: UTF8.self))") }
    }
    if !open.isEmpty {
        let story = out.filter { open[$0.id] != nil }.map { "\($0.kind.rawValue) \($0.phase.rawValue) t=\($0.time.nanoseconds) n=\($0.fingers)" }
        fatalError("began without ended or cancelled: \(story)")
    }
    return 0
}

let panel = DeviceDescription.multitouchPanel(name: "fuzz panel", maxX: 4095, maxY: 4095, slots: 10, resolution: 16)
