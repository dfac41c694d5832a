/// The pass-through's positions on a calibrated or rotated panel's mirror (`MirrorGeometry`):
/// what goes to the mirror, rewritten so each position is the mirror's. A rotated or skewed map
/// mixes the panel's X and Y, so each slot's panel position is followed, and a slot whose X or Y
/// changed gets both of its mirror values once, before the mirror's slot changes or the frame
/// ends (the kernel drops a value equal to the last one). Everything else passes as it is.
public struct MirrorMapping: Sendable {
    public private(set) var geometry: MirrorGeometry
    /// Per slot: the panel's position (x at 2s, y at 2s + 1), and whether it changed since the
    /// mirror was last given it.
    private var raw: [Int32]
    private var dirty: [Bool]
    /// The single-touch axes (ABS_X, ABS_Y), the same way.
    private var single: (x: Int32, y: Int32) = (0, 0)
    private var singleDirty = false
    /// The mirror's selected slot, as the events written so far left it.
    private var slot = 0
    private var out: [KernelInputEvent] = []

    public init(_ geometry: MirrorGeometry, slots: Int) {
        self.geometry = geometry
        raw = [Int32](repeating: 0, count: 2 * max(slots, 1))
        dirty = [Bool](repeating: false, count: max(slots, 1))
        out.reserveCapacity(64)
    }

    /// A reload's geometry, on the same axes: the slots' panel positions are kept, so each touch
    /// goes on from where it is, mapped anew from its next move.
    public mutating func remap(_ g: MirrorGeometry) {
        geometry = g
    }

    /// `events`, as the panel's (or the pass-through's) events for the mirror, with the mirror's
    /// positions.
    public mutating func map(_ events: borrowing Span<KernelInputEvent>) -> [KernelInputEvent] {
        out.removeAll(keepingCapacity: true)
        for k in events.indices {
            let e = events[k]
            if e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT { flushFrame(e) }
            guard e.type == Evdev.EV_ABS else {
                out.append(e)
                continue
            }
            switch e.code {
            case Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y:
                guard slot >= 0, slot < dirty.count else { continue }
                raw[2 &* slot &+ (e.code == Evdev.ABS_MT_POSITION_X ? 0 : 1)] = e.value
                dirty[slot] = true
            case Evdev.ABS_X:
                single.x = e.value
                singleDirty = true
            case Evdev.ABS_Y:
                single.y = e.value
                singleDirty = true
            case Evdev.ABS_MT_SLOT:
                flushSlot(e)
                slot = Int(e.value)
                out.append(e)
            default:
                out.append(e)
            }
        }
        return out
    }

    private mutating func flushSlot(_ at: KernelInputEvent) {
        guard slot >= 0, slot < dirty.count, dirty[slot] else { return }
        dirty[slot] = false
        let m = geometry.map(x: raw[2 &* slot], y: raw[2 &* slot &+ 1])
        out.append(KernelInputEvent(seconds: at.seconds, microseconds: at.microseconds, type: Evdev.EV_ABS, code: Evdev.ABS_MT_POSITION_X, value: m.x))
        out.append(KernelInputEvent(seconds: at.seconds, microseconds: at.microseconds, type: Evdev.EV_ABS, code: Evdev.ABS_MT_POSITION_Y, value: m.y))
    }

    /// The frame ends: the current slot's position, then the other dirty slots' (each selected,
    /// then the current one again), then the single-touch axes.
    private mutating func flushFrame(_ at: KernelInputEvent) {
        flushSlot(at)
        let current = slot
        for s in dirty.indices where dirty[s] {
            out.append(KernelInputEvent(seconds: at.seconds, microseconds: at.microseconds, type: Evdev.EV_ABS, code: Evdev.ABS_MT_SLOT, value: Int32(s)))
            slot = s
            flushSlot(at)
        }
        if slot != current {
            out.append(KernelInputEvent(seconds: at.seconds, microseconds: at.microseconds, type: Evdev.EV_ABS, code: Evdev.ABS_MT_SLOT, value: Int32(current)))
            slot = current
        }
        if singleDirty {
            singleDirty = false
            let m = geometry.map(x: single.x, y: single.y)
            out.append(KernelInputEvent(seconds: at.seconds, microseconds: at.microseconds, type: Evdev.EV_ABS, code: Evdev.ABS_X, value: m.x))
            out.append(KernelInputEvent(seconds: at.seconds, microseconds: at.microseconds, type: Evdev.EV_ABS, code: Evdev.ABS_Y, value: m.y))
        }
    }
}
