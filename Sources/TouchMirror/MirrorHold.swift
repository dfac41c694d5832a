import GestureEngine
import TouchFrames

/// A contact held back from the mirror while a gesture that delays touches may still take it
/// (UIKit's `delaysTouchesBegan`): since when (monotonic ns), and its frames so far, replayed in
/// order if the gesture fails or the bound passes, dropped if the gesture takes it.
struct HeldContact {
    var id: UInt32
    var since: Int64
    /// Its state at each frame while held (the first is its landing); at most `kept`, the
    /// latest overwriting the last (the path's end is what the app must reach).
    var frames: [PanelContact]
    /// It lifted on the panel while held (its replay ends with a lift).
    var lifted = false
    static let kept = 64
}

/// Touches taken (`cancels_touches`), held back (`delays_touches_began`) and swallowed (touch to
/// wake): what the mirror never shows, or shows late.
extension MirrorContacts {
    /// A system gesture took contact `id`: shown, it is ended (as a palm first with `.palm`,
    /// which libinput reports as TOUCH_CANCEL); held, its frames are dropped; either way it is
    /// never shown until it lifts.
    mutating func take(_ id: UInt32) {
        guard !isHidden(id) else { return }
        hidden.append(id)
        if let h = held.firstIndex(where: { $0.id == id }) {
            held.remove(at: h)
            return
        }
        guard let s = slot(of: id) else { return }
        if cancelStyle == .palm && device.multitouch {
            select(s)
            add(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM)
            axes[s][Evdev.ABS_MT_TOOL_TYPE] = Evdev.MT_TOOL_PALM
            add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        }
        lift(s)
        endFrame()
    }

    /// Touch to wake: the contacts that land from now on are never shown, until the panel has
    /// no contact left.
    public mutating func swallowNewTouches() { (swallowing, swallowingSince) = (true, nil) }

    mutating func swallowLandings(_ contacts: borrowing FrameList<PanelContact>) {
        for i in contacts.indices {
            let id = contacts[i].id
            if slot(of: id) == nil && !isHidden(id) && !isHeld(id) { hidden.append(id) }
        }
    }

    func isHeld(_ id: UInt32) -> Bool { held.contains { $0.id == id } }

    /// Contacts a gesture may still take that the mirror has not shown: held from now.
    mutating func startHolding(_ hold: borrowing [UInt32], among contacts: borrowing FrameList<PanelContact>, now: Int64) {
        for i in hold.indices {
            let id = hold[i]
            guard slot(of: id) == nil, !isHidden(id), !isHeld(id), Self.contains(contacts, id) else { continue }
            var frames: [PanelContact] = []
            frames.reserveCapacity(HeldContact.kept)
            held.append(HeldContact(id: id, since: now, frames: frames))
        }
    }

    /// Each held contact's state in this frame (or its lift).
    mutating func record(_ contacts: borrowing FrameList<PanelContact>) {
        for h in held.indices where !held[h].lifted {
            var found: PanelContact?
            for i in contacts.indices where contacts[i].id == held[h].id { found = contacts[i] }
            guard let c = found else {
                held[h].lifted = true
                continue
            }
            if held[h].frames.count < HeldContact.kept { held[h].frames.append(c) } else { held[h].frames[HeldContact.kept - 1] = c }
        }
    }

    /// Held contacts no gesture holds any more (it failed), or held for the bound: replayed.
    mutating func releaseFinished(_ hold: borrowing [UInt32], now: Int64) {
        var h = 0
        while h < held.count {
            let id = held[h].id
            var still = false
            for i in hold.indices where hold[i] == id { still = true }
            if still && now - held[h].since < holdBound {
                h += 1
                continue
            }
            release(held.remove(at: h))
        }
    }

    /// A held contact's frames, in order, each a frame of its own; a lift last if it lifted.
    private mutating func release(_ h: HeldContact) {
        for c in h.frames {
            place(c)
            endFrame()
        }
        if h.lifted, let s = slot(of: h.id) {
            lift(s)
            endFrame()
        }
    }

    /// When the first held contact must be replayed (monotonic ns), if one is held.
    public var releaseDue: Int64? {
        var due: Int64?
        for h in held.indices where due == nil || held[h].since + holdBound < due! { due = held[h].since + holdBound }
        return due
    }

    /// The clock reached `now` with no frame (a deadline): the decisions of the engine after it
    /// (`taken`, `hold`) applied, and held contacts due replayed.
    public mutating func advance(taken: borrowing [UInt32], hold: borrowing [UInt32], now: Int64) {
        for i in taken.indices { take(taken[i]) }
        if !held.isEmpty { releaseFinished(hold, now: now) }
    }
}
