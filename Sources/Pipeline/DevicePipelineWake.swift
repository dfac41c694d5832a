import GestureEngine
import TouchFrames

/// Touch to wake on a pipeline: the touch that woke the kiosk (`WakeTouch`: every finger landing
/// in its first half second) goes to no one; a finger landing later while it is still down (a
/// drop of water, a stuck contact woke the kiosk) is an ordinary touch.
struct WakeSwallow {
    /// The frames go to no one: the waking touch's window, until no contact is down.
    var swallowing = false
    /// The first frame swallowed.
    var since: Timestamp?
    /// The contacts whose ids are below this landed in the window (the decoder numbers them in
    /// order): the waking touch's, passed over until they lift (0: none left down).
    var below: UInt32 = 0
    /// The waking contacts seen down since the window ended, as the gestures, the limits and
    /// the touch lines pass them over.
    var passed: [UInt32] = []
}

extension DevicePipeline {
    /// Touch to wake: the frames from now go to no one until no contact is down, or, while the
    /// waking touch stays down, until a frame past its window (`WakeTouch`); the engine never
    /// sees them (what it had under way sees the next frame after them).
    public mutating func swallowSequence() { wake = WakeSwallow(swallowing: true) }

    /// Contact `id` is the waking touch's (the pointer passes it over).
    func isWaking(_ id: UInt32) -> Bool { id < wake.below }

    mutating func swallow(_ frame: TouchFrame, into out: inout PipelineOutput) {
        out.frame(frame, swallowed: true, touched: true)
        wake.since = wake.since ?? frame.time
        wake.below = decoder.nextContact
        if frame.contacts.isEmpty { wake.swallowing = false }
    }

    /// A frame past the waking touch's window: what lands now is an ordinary touch.
    mutating func wakeWindowIsOver() -> Bool {
        guard let since = wake.since, decoder.frame.time.nanoseconds - since.nanoseconds > WakeTouch.windowNanoseconds else {
            return false
        }
        wake.swallowing = false
        pointer.seenNextContact = max(pointer.seenNextContact, wake.below)
        return true
    }

    /// The waking touch's contacts down in this frame (a young one the filters show late, too):
    /// passed over, before the engine reads the frame, by the gestures, the regions' limits and
    /// the touch lines, until they lift. Nothing once none is down. (Only after a wake: the scan
    /// and, with no waking contact shown, the panel's count run then alone.)
    mutating func passWakingContacts() {
        var down = false, new = false
        var i = decoder.frame.contacts.startIndex
        while i < decoder.frame.contacts.endIndex {
            let id = decoder.frame.contacts[i].id
            i += 1
            guard id < wake.below else { continue }
            down = true
            if !wake.passed.contains(id) {
                wake.passed.append(id)
                new = true
            }
        }
        // None shown: over once none is down on the panel either (a waking contact the ghost
        // filter still holds back is shown later, and passed over then).
        guard down else {
            if decoder.activeContacts == 0 { wake = WakeSwallow() }
            return
        }
        guard new else { return }
        engine.passOver(wake.passed)
        limits.pass(wake.passed)
        excluded.hide(wake.passed)
    }
}
