/// How a touch a system gesture takes ends on the mirror (`[device] cancel`).
public enum MirrorCancel: String, CaseIterable, Hashable, Sendable {
    /// Lifted, as a finger that left: every compositor ends it at the app (cage, sway 1.7 and
    /// weston 10 drop libinput's TOUCH_CANCEL, measured in the e2e guest, and leave the app's
    /// touch point down for good).
    case lift
    /// `MT_TOOL_PALM`, then lifted: libinput reports TOUCH_CANCEL, which a compositor that
    /// forwards it turns into `wl_touch.cancel` (the app's touchcancel); one that drops it
    /// leaves the touch down in the app.
    case palm
}

/// Touches a system gesture takes (UIKit's `cancelsTouchesInView`): ended on the mirror (as the
/// kernel reports a cancelled touch, or lifted: `MirrorCancel`), and held back from it until they
/// lift on the panel.
extension PassThrough {
    /// Cancels the touches in `slots` on the mirror: with `.palm` a frame giving each
    /// `MT_TOOL_PALM` (libinput reports TOUCH_CANCEL) first; then a frame lifting them (and the
    /// touch keys their count gives).
    /// From then on their events are held back (`filter`) until they lift on the panel. Slots
    /// with no touch on the mirror, or already cancelled, are left alone.
    public mutating func cancel(_ slots: [Int]) -> [KernelInputEvent] {
        scratch.removeAll(keepingCapacity: true)
        appendCancel(slots)
        return scratch
    }

    mutating func appendCancel(_ slots: [Int]) {
        var live: [Int] = []
        for s in slots where s >= 0 && s < ids.count && !suppressed[s] {
            if ids[s] >= 0 {
                live.append(s)
            } else {
                // Not shown yet (held back, or landing in the read that follows): it never will be.
                if held[s] {
                    for e in heldFrames[s] { unseen(e, in: s) }
                    unhold(s)
                } else {
                    landing[s] = true
                    landingPending = true
                }
                suppressed[s] = true
                suppressedCount += 1
            }
        }
        guard !live.isEmpty else { return }
        if cancelStyle == .palm {
            for s in live {
                select(s)
                add(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM)
            }
            add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        }
        for s in live {
            select(s)
            add(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
            ids[s] = -1
            suppressed[s] = true
            suppressedCount += 1
        }
        appendTouchKeys()
        add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
    }

    /// A read while touches are held back: the events of their slots are dropped until the
    /// panel lifts them (then the slot's tool type is set back to `MT_TOOL_FINGER`, before any
    /// next touch there); the panel's single-touch axes and touch keys are replaced by keys that
    /// follow the touches the mirror shows; everything else passes in order.
    public mutating func filter(_ events: borrowing Span<KernelInputEvent>) -> [KernelInputEvent] {
        scratch.removeAll(keepingCapacity: true)
        for k in events.indices {
            let e = events[k]
            switch e.type {
            case Evdev.EV_ABS where e.code == Evdev.ABS_MT_SLOT:
                panelSlot = Int(e.value)
            case Evdev.EV_ABS where e.code > Evdev.ABS_MT_SLOT:
                slotEvent(e)
            case Evdev.EV_ABS:
                break  // ABS_X, ABS_Y, ABS_PRESSURE: the panel's single-touch emulation
            case Evdev.EV_KEY where Self.isTouchKey(e.code):
                break
            case Evdev.EV_SYN where e.code == Evdev.SYN_REPORT:
                if heldCount > 0 { closeHeldFrames() }
                appendTouchKeys()
                add(e.type, e.code, e.value)
                // The wake touch is over: the panel has no touch left, shown or held back.
                if swallowing && suppressedCount == 0 && touches == 0 { swallowing = false }
            default:
                add(e.type, e.code, e.value)
            }
        }
        if landingPending {
            for i in landing.indices { landing[i] = false }
            landingPending = false
        }
        // Back to passing reads as they are: the mirror's slot is the panel's again.
        if !filtering { select(panelSlot) }
        return scratch
    }

    /// A multitouch event of the panel's current slot.
    private mutating func slotEvent(_ e: KernelInputEvent) {
        let s = panelSlot
        guard s >= 0 && s < ids.count else { return }
        if held[s] {
            heldFrames[s].append(e)
            heldOpen[s] = true
            return
        }
        if suppressed[s] {
            guard e.code == Evdev.ABS_MT_TRACKING_ID else { return unseen(e, in: s) }
            if landing[s] && e.value >= 0 {
                landing[s] = false  // the taken touch's own landing
                return
            }
            // The cancelled touch is over on the panel (or replaced without a lift).
            suppressed[s] = false
            suppressedCount -= 1
            if cancelStyle == .palm {
                select(s)
                add(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_FINGER)
            }
            guard e.value >= 0 else { return }
        }
        if swallowing && e.code == Evdev.ABS_MT_TRACKING_ID && e.value >= 0 {
            // A touch lands while waking: held back from its first event (a touch the mirror
            // still showed in that slot is lifted first).
            if ids[s] >= 0 {
                select(s)
                add(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
                ids[s] = -1
            }
            suppressed[s] = true
            suppressedCount += 1
            return
        }
        select(s)
        if e.code == Evdev.ABS_MT_TRACKING_ID { ids[s] = e.value }
        add(e.type, e.code, e.value)
        if e.code == Evdev.ABS_MT_TRACKING_ID && e.value >= 0 && stale[s] {
            // Where the panel's slot is, which its frame may not repeat.
            add(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, unseenPosition[2 &* s])
            add(Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, unseenPosition[2 &* s &+ 1])
            stale[s] = false
            staleCount -= 1
        }
    }

    /// An event of slot `s` the mirror is not given: a position is remembered, and the slot is
    /// stale on the mirror until its next touch lands.
    mutating func unseen(_ e: KernelInputEvent, in s: Int) {
        guard e.type == Evdev.EV_ABS, e.code == Evdev.ABS_MT_POSITION_X || e.code == Evdev.ABS_MT_POSITION_Y else { return }
        unseenPosition[2 &* s &+ (e.code == Evdev.ABS_MT_POSITION_X ? 0 : 1)] = e.value
        if !stale[s] {
            stale[s] = true
            staleCount += 1
        }
    }

    /// Touch to wake: the touches that land from now on are held back from the mirror (the app
    /// never sees them) until the panel has no touch left.
    public mutating func swallowNewTouches() { swallowing = true }

    mutating func select(_ s: Int) {
        guard slot != s else { return }
        add(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s))
        slot = s
    }

    /// BTN_TOUCH and the BTN_TOOL_* of the touches the mirror shows, where they changed.
    mutating func appendTouchKeys() {
        let shown = ids.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) }
        for k in Self.toolOrder where touchKeys.contains(k) {
            let down = k == Evdev.BTN_TOUCH ? shown > 0 : Self.tool(for: shown) == k
            guard down != keys.contains(k) else { continue }
            add(Evdev.EV_KEY, k, down ? 1 : 0)
            noteKey(k, down: down)
        }
    }

    static let BTN_TOOL_FINGER: UInt16 = 0x145
    static let BTN_TOOL_QUINTTAP: UInt16 = 0x148
    static let BTN_TOOL_DOUBLETAP: UInt16 = 0x14d
    static let BTN_TOOL_TRIPLETAP: UInt16 = 0x14e
    static let BTN_TOOL_QUADTAP: UInt16 = 0x14f
    /// The touch keys, in the order they are written (a frame applies them together at its SYN_REPORT).
    static let toolOrder: [UInt16] = [
        BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP, BTN_TOOL_QUADTAP, BTN_TOOL_QUINTTAP, Evdev.BTN_TOUCH,
    ]

    static func isTouchKey(_ code: UInt16) -> Bool { code == Evdev.BTN_TOUCH || toolOrder.contains(code) }

    /// The BTN_TOOL_* the kernel reports for `n` touches (none for 0).
    static func tool(for n: Int) -> UInt16? {
        switch n {
        case 0: nil
        case 1: BTN_TOOL_FINGER
        case 2: BTN_TOOL_DOUBLETAP
        case 3: BTN_TOOL_TRIPLETAP
        case 4: BTN_TOOL_QUADTAP
        default: BTN_TOOL_QUINTTAP
        }
    }
}
