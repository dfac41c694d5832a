import GestureEngine

/// The decoder's side of the mirror: `panel`, the frame's contacts in the panel's own terms
/// (slot, tracking id, units, every axis), which the virtual touchscreen writes.
extension FrameDecoder {
    /// `panel`, from the slots, in the order of `frame.contacts` (the same slots, the same test).
    mutating func collectPanel() {
        let filler = PanelContact(id: 0, slot: 0, x: 0, y: 0)
        if !multitouch {
            let down = !frame.contacts.isEmpty
            let s = single
            panel.refill(capacity: 1, filler: filler) { list in
                guard down else { return 0 }
                list[0] = PanelContact(id: s.contact, slot: 0, x: s.x, y: s.y, axes: s.axes)
                return 1
            }
            return
        }
        // A decoder for the mirror alone makes no engine contacts: the last frame's panel says.
        if !feedsEngine { hadContacts = !panel.isEmpty }
        let used = slotsUsed
        panel.refill(capacity: max(1, slots.count), filler: filler) { [slots] out in
            var n = 0
            for k in 0..<used {
                let s = slots[k]
                guard s.trackingID >= 0 && s.hasX && s.hasY else { continue }
                out[n] = PanelContact(id: s.contact, slot: Int32(k), x: s.x, y: s.y, axes: s.axes)
                n &+= 1  // below the slot count
            }
            return n
        }
    }

    /// `slotsUsed` lowered past the top slots no contact is down in, the filters hold nothing in,
    /// at a frame's end (every consumer of the frame read its slots): the next frames look at
    /// the slots in use, not at every slot a hand ever reached.
    mutating func releaseTopSlots() {
        guard multitouch else { return }
        var used = min(slotsUsed, slots.count)
        while used > 0 && slots[used - 1].trackingID < 0 && !(isFiltered && filter.holds(used - 1)) { used -= 1 }
        slotsUsed = used
    }
}

/// A single-touch panel's axes (ABS_X, ABS_Y, ABS_PRESSURE), into its one slot.
extension FrameDecoder {
    mutating func st(_ code: UInt16, _ value: Int32) {
        let e = (code: code, value: value)
        switch e.code {
        case Evdev.ABS_X:
            single.x = e.value
            single.hasX = true
        case Evdev.ABS_Y:
            single.y = e.value
            single.hasY = true
        case Evdev.ABS_PRESSURE:
            single.axes[Evdev.ABS_MT_PRESSURE] = e.value
        default:
            return
        }
    }
}
