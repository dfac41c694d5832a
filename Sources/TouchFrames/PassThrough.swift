/// What a panel's mirror (pass-through mode) has been told, so it can always be left clean: which
/// slots hold a touch and which keys (BTN_TOUCH, BTN_TOOL_*) are down on it. Frames the panel
/// sends go to the mirror as they are, in the kernel's layout; `note` follows them. After lost
/// events (SYN_DROPPED) the mirror first gets a frame that lifts everything it holds, then the
/// kernel's state (`resync`); so a touch is never left stuck, and no touch changes its tracking
/// id without a lift between. A touch a system gesture takes is cancelled on the mirror
/// (`cancel`) and its events held back until it lifts (`filter`, PassThroughFilter.swift).
/// Pure: the caller writes what it returns.
public struct PassThrough {
    /// Per slot: the tracking id the mirror holds (-1: none).
    var ids: [Int32]
    /// The slot selected on the mirror, and the panel's (the same but while filtering).
    var slot = 0
    var panelSlot = 0
    /// Per slot: the panel's touch there was cancelled on the mirror; its events are held back
    /// until it lifts.
    var suppressed: [Bool]
    var suppressedCount = 0
    /// Per slot: its touch was taken before the mirror saw it land (the pipeline ran first): its
    /// landing, later in the same read, is held back too. Cleared at the read's end.
    var landing: [Bool]
    var landingPending = false
    /// The touch keys the panel reports, which the mirror's follow its visible touches while
    /// filtering.
    let touchKeys: Set<UInt16>
    /// EV_KEY codes down on the mirror (a handful at most: BTN_TOUCH and the BTN_TOOL_* of the
    /// finger count).
    var keys: [UInt16] = []
    /// The events `resync`, `liftAll`, `cancel` and `filter` return (kept, so they allocate once).
    var scratch: [KernelInputEvent] = []
    /// How a taken touch ends on the mirror.
    let cancelStyle: MirrorCancel
    /// Per slot: the panel's position there (x at 2s, y at 2s + 1) when the mirror was not told
    /// it (a touch swallowed, taken, or held and dropped), and whether it is stale so on the
    /// mirror. The kernel drops a value equal to the slot's last one, so the slot's next touch may
    /// land without a position: the mirror is then given this one after its tracking id.
    var unseenPosition: [Int32]
    var stale: [Bool]
    var staleCount = 0

    /// `keys`: the EV_KEY codes the panel reports (its BTN_TOUCH and BTN_TOOL_* are followed).
    public init(slots: Int, keys: Set<UInt16> = [Evdev.BTN_TOUCH], cancel: MirrorCancel = .lift) {
        cancelStyle = cancel
        ids = [Int32](repeating: -1, count: max(slots, 1))
        suppressed = [Bool](repeating: false, count: max(slots, 1))
        landing = [Bool](repeating: false, count: max(slots, 1))
        held = [Bool](repeating: false, count: max(slots, 1))
        heldSince = [Int64](repeating: 0, count: max(slots, 1))
        heldFrames = [[KernelInputEvent]](repeating: [], count: max(slots, 1))
        heldOpen = [Bool](repeating: false, count: max(slots, 1))
        unseenPosition = [Int32](repeating: 0, count: 2 * max(slots, 1))
        stale = [Bool](repeating: false, count: max(slots, 1))
        touchKeys = keys.filter { Self.isTouchKey($0) }
        self.keys.reserveCapacity(8)
        scratch.reserveCapacity(16 * max(slots, 1) + 16)
    }

    /// Touch to wake: touches landing now are held back (never shown) until the panel has no
    /// touch left (`swallowNewTouches`).
    var swallowing = false
    /// Per slot: the panel's touch there is held back while a gesture that delays touches may
    /// still take it (PassThroughHold.swift): since when (ns), and its events so far, each of its
    /// frames ended by a SYN_REPORT.
    var held: [Bool]
    var heldSince: [Int64]
    var heldFrames: [[KernelInputEvent]]
    var heldOpen: [Bool]
    var heldCount = 0
    /// How long a touch may be held back (ns), as the gestures that hold it last said.
    var holdBound: Int64 = 0

    /// A touch is held back from the mirror: its frames go through `filter`.
    public var filtering: Bool { suppressedCount > 0 || swallowing || heldCount > 0 || staleCount > 0 }

    /// Slots the mirror holds a touch in.
    public var touches: Int { ids.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) } }

    /// Follows events the mirror is sent as they are.
    public mutating func note<E: EvdevEvent>(_ events: borrowing Span<E>) {
        for k in events.indices {
            let e = events[k]
            switch e.type {
            case Evdev.EV_ABS where e.code == Evdev.ABS_MT_SLOT:
                slot = Int(e.value)
                panelSlot = slot
            case Evdev.EV_ABS where e.code == Evdev.ABS_MT_TRACKING_ID:
                if slot >= 0 && slot < ids.count { ids[slot] = e.value }
            case Evdev.EV_KEY:
                noteKey(e.code, down: e.value != 0)
            default:
                break
            }
        }
    }

    mutating func noteKey(_ code: UInt16, down: Bool) {
        if let i = keys.firstIndex(of: code) {
            if !down { keys.remove(at: i) }
        } else if down {
            keys.append(code)
        }
    }

    /// A frame giving a mirror just made the panel's past: each slot's last position (x at 2s,
    /// y at 2s + 1; none for a slot still at 0, 0) and the panel's selected slot. The kernel sends
    /// neither again (a touch landing where its slot's last one was comes with no position; a
    /// slot already selected is not selected again), so the mirror must start where the panel is.
    /// Empty when the panel has no past. Written before anyone reads the mirror: no touch is in it.
    public mutating func seed(positions: [Int32], slot panel: Int) -> [KernelInputEvent] {
        scratch.removeAll(keepingCapacity: true)
        for s in ids.indices where 2 * s + 1 < positions.count && (positions[2 * s] != 0 || positions[2 * s + 1] != 0) {
            select(s)
            add(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, positions[2 * s])
            add(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, positions[2 * s + 1])
        }
        if panel >= 0 && panel < ids.count { select(panel) }
        panelSlot = slot
        if !scratch.isEmpty { add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0) }
        return scratch
    }

    /// A frame lifting every touch and key the mirror holds (empty when it holds none).
    public mutating func liftAll() -> [KernelInputEvent] {
        scratch.removeAll(keepingCapacity: true)
        appendLift()
        return scratch
    }

    /// After lost events: a frame lifting what the mirror holds, then `state` (the kernel's
    /// state, decoded, ending with its SYN_REPORT) in the kernel's layout.
    public mutating func resync(to state: borrowing Span<InputEvent>) -> [KernelInputEvent] {
        scratch.removeAll(keepingCapacity: true)
        appendLift()
        let from = scratch.count
        for k in state.indices {
            let e = state[k]
            scratch.append(KernelInputEvent(seconds: 0, microseconds: 0, type: e.type, code: e.code, value: e.value))
        }
        // The kernel's state is the panel's whole: a touch held back comes back as a new one
        // (the engine cancels what was under way after lost events anyway).
        for s in suppressed.indices {
            suppressed[s] = false
            held[s] = false
            heldFrames[s].removeAll(keepingCapacity: true)
        }
        suppressedCount = 0
        heldCount = 0
        for s in stale.indices { stale[s] = false }
        staleCount = 0
        let added = scratch
        note(added.span.extracting(from...))
        return scratch
    }

    mutating func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        scratch.append(KernelInputEvent(seconds: 0, microseconds: 0, type: type, code: code, value: value))
    }

    private mutating func appendLift() {
        var lifted = false
        for s in ids.indices where ids[s] >= 0 {
            add(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s))
            add(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
            ids[s] = -1
            slot = s
            lifted = true
        }
        for k in keys { add(Evdev.EV_KEY, k, 0) }
        lifted = lifted || !keys.isEmpty
        keys.removeAll(keepingCapacity: true)
        if lifted { add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0) }
    }
}
