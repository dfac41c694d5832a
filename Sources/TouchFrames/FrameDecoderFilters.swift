import GestureEngine

/// The decoder's side of the panel's filters (`ContactFilter`): each frame's slots through them,
/// and the frames they make on their own (a held lift, a young contact coming of age).
extension FrameDecoder {
    /// Each slot through the panel's filters, before the frame's ids are counted (a stuck
    /// contact moving again lands under a new one; chatter lands under its old one).
    mutating func runFilter(at time: Timestamp) {
        if multitouch {
            for k in 0..<slotsUsed {
                let down = slots[k].trackingID >= 0 && slots[k].hasX && slots[k].hasY
                filter.apply(&slots[k], slot: k, down: down, at: time.nanoseconds, nextContact: &nextContact)
            }
        } else {
            filter.apply(&single, slot: 0, down: touching && single.hasX && single.hasY, at: time.nanoseconds, nextContact: &nextContact)
        }
    }

    /// Contact `id` of this frame was not in the last one: it landed, or a filter showed it
    /// only now (a young contact coming of age).
    public func isNewInFrame(_ id: UInt32) -> Bool {
        guard isFiltered else { return id >= contactsBefore }
        return !filter.wasShown(id)
    }

    /// The frame's contacts as the filters show them to the gestures: a hidden or young contact
    /// left out, a lingering one where it was. A contact is new to the gestures when it was not
    /// in their last frame (a young one coming of age lands then).
    mutating func collectFiltered(_ filler: Contact) {
        let geometry = geometry, majorScale = majorScale, palmSize = palmSize
        let shown = filter.shown
        let one = multitouch ? nil : single
        let (slots, count, touching) = (slots, multitouch ? slotsUsed : 1, touching)
        frame.contacts.refill(capacity: max(1, slots.count), filler: filler) { out in
            var n = 0
            for k in 0..<count {
                let v = shown[k]
                guard !v.hidden && !v.young else { continue }
                // Read in place (a slot is ~100 bytes: a choice between two copied them).
                let (down, id, palm) = one.map { (touching, $0.contact, false) }
                    ?? (slots[k].trackingID >= 0, slots[k].contact, slots[k].isPalm || (majorScale > 0 && Double(slots[k].major) * majorScale > palmSize))
                guard (down || v.lingering) && (one?.hasX ?? slots[k].hasX) && (one?.hasY ?? slots[k].hasY) else { continue }
                out[n] = Contact(id: id, position: geometry.map(x: v.x, y: v.y), isPalm: palm)
                n &+= 1  // below the slot count
            }
            return n
        }
        landed = frame.contacts.contains { isNewInFrame($0.id) }
    }

    /// `panel` as the filters show it to the mirror (young contacts hidden unless
    /// `ghost_on_mirror` is off), in slot order as `collectFiltered`.
    mutating func collectFilteredPanel() {
        let shown = filter.shown, ghostsOnMirror = ghostsOnMirror
        let one = multitouch ? nil : single
        let (slots, count, touching) = (slots, multitouch ? slotsUsed : 1, touching)
        panel.refill(capacity: max(1, slots.count), filler: PanelContact(id: 0, slot: 0, x: 0, y: 0)) { out in
            var n = 0
            for k in 0..<count {
                let v = shown[k]
                guard !v.hidden && !(v.young && ghostsOnMirror) else { continue }
                let down = one.map { _ in touching } ?? (slots[k].trackingID >= 0)
                guard (down || v.lingering) && (one?.hasX ?? slots[k].hasX) && (one?.hasY ?? slots[k].hasY) else { continue }
                out[n] = PanelContact(id: one?.contact ?? slots[k].contact, slot: Int32(k), x: v.x, y: v.y, axes: one?.axes ?? slots[k].axes)
                n &+= 1  // below the slot count
            }
            return n
        }
    }

    /// What the panel's filters did since it was opened (none without filters).
    public var filterCounts: FilterCounts { isFiltered ? filter.counts : FilterCounts() }

    /// When the filters want a frame of their own (a held lift or a young contact due), if ever.
    public var nextTick: Timestamp? {
        guard isFiltered, let t = filter.nextTick else { return nil }
        return Timestamp(nanoseconds: t)
    }

    /// The frame the filters make at `time` (no event came: the panel's state then, a held lift
    /// shown, a young contact shown); false when none was due.
    public mutating func tick(at time: Timestamp) -> Bool {
        guard let due = nextTick, due <= time else { return false }
        makeFrame(at: time)
        return true
    }
}
