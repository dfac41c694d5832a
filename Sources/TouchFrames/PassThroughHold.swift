/// Touches held back while a gesture that delays them may still take them (UIKit's
/// `delaysTouchesBegan`): a touch landing where such a gesture is still possible (an edge band)
/// is not shown on the mirror; if the gesture fails, its frames are replayed at once, in order;
/// if it begins, they are dropped (`appendCancel`), so the app never sees the touch; after the
/// bound it is replayed and passes from then on.
extension PassThrough {
    /// After a read went through the pipeline, before it goes to the mirror: the touches in
    /// `cancel` are taken (cancelled, or never shown), those in `hold` held back from now (at
    /// most `bound` ns), and those held back before and in neither list (their gesture failed)
    /// or held for `bound` already, replayed.
    public mutating func update(cancel: [Int], hold: [Int], bound: Int64, now: Int64) -> [KernelInputEvent] {
        scratch.removeAll(keepingCapacity: true)
        if !cancel.isEmpty { appendCancel(cancel) }
        if bound > 0 { holdBound = bound }
        for s in hold where s >= 0 && s < ids.count && !held[s] && !suppressed[s] && ids[s] < 0 {
            held[s] = true
            heldSince[s] = now
            heldCount += 1
        }
        if heldCount > 0 {
            for s in held.indices where held[s] && (!hold.contains(s) || now - heldSince[s] >= holdBound) { release(s) }
        }
        // Reads pass as they are again: the mirror's slot is the panel's.
        if !filtering { select(panelSlot) }
        return scratch
    }

    /// When the first touch held back must be replayed (monotonic ns), if any is.
    public var releaseDue: Int64? {
        guard heldCount > 0 else { return nil }
        var due = Int64.max
        for s in held.indices where held[s] { due = min(due, heldSince[s] + holdBound) }
        return due
    }

    /// Each held slot that had events in the panel's frame now ending: its frame ends too.
    mutating func closeHeldFrames() {
        for s in heldOpen.indices where heldOpen[s] {
            heldFrames[s].append(KernelInputEvent(seconds: 0, microseconds: 0, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0))
            heldOpen[s] = false
        }
    }

    /// Replays slot `s`'s held frames to the mirror, in order, and lets it pass from now on.
    private mutating func release(_ s: Int) {
        for e in heldFrames[s] {
            if e.type == Evdev.EV_SYN {
                appendTouchKeys()
                add(e.type, e.code, e.value)
                continue
            }
            select(s)
            if e.code == Evdev.ABS_MT_TRACKING_ID { ids[s] = e.value }
            add(e.type, e.code, e.value)
        }
        // A frame of the current read still open holds the rest of it: it passes with the read.
        unhold(s)
    }

    mutating func unhold(_ s: Int) {
        held[s] = false
        heldOpen[s] = false
        heldFrames[s].removeAll(keepingCapacity: true)
        heldCount -= 1
    }
}
