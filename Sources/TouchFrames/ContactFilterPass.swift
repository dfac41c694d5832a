import GestureEngine

/// A multitouch frame's pass: each slot through the filters, then into the gestures' contacts,
/// on one set of spans (the state, the slots, the list, the ids the gestures saw). Collected once
/// every slot is stepped: a landing with the chatter filter on may move a held lift to a slot
/// before its own (`landing`). (One loop doing both measured 190 instructions a frame more: the
/// step inlined beside the collection spilled.)
extension ContactFilter {
    /// The first `count` slots at `time` (ns), each through the filters into `shown` (a slot with
    /// nothing down before or now passed over; `fresh`: the panel's frame, not one the filters
    /// made, whose positions are the last frame's again), then collected into `list`: a hidden or
    /// young contact left out, a lingering one where it was, mapped by `geometry` (a palm by the
    /// panel's word or its size past `palmSize` mm). Returns the slots whose contact is new to
    /// the gestures (their slot showed them another one, or none, in their last frame, `lastIDs`;
    /// a young one coming of age lands then), a bit a slot. A stuck contact that moves again gets
    /// the id `nextContact` (which then counts on); one that lands again as chatter gets its old
    /// id back. At most 64 slots (`DeviceDescription.maxSlots`).
    mutating func run(
        _ slots: inout [DecoderSlot], count: Int, at time: Int64, fresh: Bool, nextContact: inout UInt32, _ geometry: ScreenGeometry,
        majorScale: Double, palmSize: Double, into list: inout FrameList<Contact>, lastIDs ids: inout ContiguousArray<UInt32>
    ) -> UInt64 {
        // The state, and the list's storage, moved out for the frame (no copy, nothing retained)
        // and read through spans: one uniqueness check an array a frame, not one a slot. The
        // rules read once a frame (passed on from `self`, each step's call copied them).
        let rules = rules
        var (state, shown) = (ContiguousArray<FilterSlot>(), ContiguousArray<ShownSlot>())
        swap(&state, &self.state)
        swap(&shown, &self.shown)
        var storage = [Contact]()
        list.beginRefill(capacity: max(1, slots.count), filler: Contact(id: 0, position: .zero), into: &storage)
        var (m, new) = (0, UInt64(0))
        do {
            var st = state.mutableSpan, sh = shown.mutableSpan, ds = slots.mutableSpan, last = ids.mutableSpan, out = storage.mutableSpan
            // (Two at a time: `min`'s variadic form builds an array of the rest, which the
            // optimizer may leave on the heap: an allocation a frame.)
            let n = min(min(min(count, st.count), min(sh.count, ds.count)), min(min(last.count, out.count), 64))
            let chatter = rules.settings.chatterNs != nil
            for k in 0..<n {
                let down = ds[k].trackingID >= 0 && ds[k].hasX && ds[k].hasY
                if down && chatter && st[k].contact != ds[k].contact {
                    // A landing: maybe a bounce the panel gave another slot (ContactFilterBounces.swift).
                    Self.landing(k, &st, &sh, &ds, n, fresh: fresh, rules, &tally, &nextContact, at: time)
                    continue
                }
                if !down && !st[k].down { continue }
                Self.step(&st[k], &sh[k], &ds[k], down: down, at: time, fresh: fresh, rules, &tally, &nextContact)
            }
            // Collected once every slot is stepped (a landing may have moved a held lift to a
            // slot before its own).
            for k in 0..<n { Self.collect(k, sh[k], ds[k], geometry, majorScale, palmSize, into: &out, &m, &last, &new) }
        }
        list.endRefill(&storage, count: m)
        swap(&state, &self.state)
        swap(&shown, &self.shown)
        return new
    }

    /// Slot `k`, shown as `v`, its panel slot `s`: its contact into `out` at `m` (then counted
    /// on) unless hidden, young or gone, mapped by `geometry` (a palm by the panel's word or its
    /// size past `palmSize` mm), its bit in `new` when its slot showed the gestures another
    /// contact in their last frame (`last`, then updated).
    @inline(__always)
    static func collect(
        _ k: Int, _ v: ShownSlot, _ s: DecoderSlot, _ geometry: ScreenGeometry, _ majorScale: Double, _ palmSize: Double,
        into out: inout MutableSpan<Contact>, _ m: inout Int, _ last: inout MutableSpan<UInt32>, _ new: inout UInt64
    ) {
        guard !v.hidden && !v.young && (s.trackingID >= 0 || v.lingering) && s.hasX && s.hasY else {
            last[k] = 0
            return
        }
        let palm = s.isPalm || (majorScale > 0 && Double(s.major) * majorScale > palmSize)
        // New to the gestures: down in this frame though its lift is held (a young contact
        // coming of age at its lift, `comesOfAgeAtLift`): a held lift they never saw down is
        // a finger already up to them.
        let isNew = last[k] != s.contact && !v.moved
        out[m] = Contact(id: s.contact, position: geometry.map(x: v.x, y: v.y), isPalm: palm, isLifted: v.lingering && !isNew)
        m &+= 1  // below the slot count
        if isNew { new |= 1 << k }
        last[k] = s.contact
    }
}
