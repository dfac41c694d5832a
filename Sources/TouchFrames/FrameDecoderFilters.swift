import GestureEngine

/// The decoder's side of the panel's filters (`ContactFilter`): each frame's slots through them,
/// and the frames they make on their own (a held lift, a young contact coming of age).
extension FrameDecoder {
    /// A multitouch panel's slots through its filters and into `frame.contacts` (`ContactFilter.run`),
    /// the slots new to the gestures into `newToGestures`, before the frame's ids are counted (a
    /// stuck contact moving again lands under a new one; chatter lands under its old one).
    mutating func runFilterCollecting(at time: Timestamp, fresh: Bool) {
        // The panel's frame teaches its report interval (the filters' own frames do not), before
        // the slots are stepped: a lift in this frame is held by what it taught.
        if fresh {
            var down = false
            for k in 0..<min(slotsUsed, slots.count) where slots[k].trackingID >= 0 {
                down = true
                break
            }
            filter.tally.report(at: time.nanoseconds, down: down)
        }
        var contacts = FrameList<Contact>()
        swap(&contacts, &frame.contacts)
        var ids = ContiguousArray<UInt32>()
        swap(&ids, &gestureIDs)
        newToGestures = filter.run(
            &slots, count: slotsUsed, at: time.nanoseconds, fresh: fresh, nextContact: &nextContact, geometry, majorScale: majorScale,
            palmSize: palmSize, into: &contacts, lastIDs: &ids)
        swap(&ids, &gestureIDs)
        swap(&contacts, &frame.contacts)
    }

    /// A single-touch panel's contact through its filters.
    mutating func runFilterSingle(at time: Timestamp, fresh: Bool) {
        filter.run(one: &single, down: touching && single.hasX && single.hasY, at: time.nanoseconds, fresh: fresh, nextContact: &nextContact)
    }

    /// A single-touch panel's contact as the filters show it to the gestures, into `frame.contacts`
    /// and `newToGestures`.
    mutating func collectFilteredSingle() {
        var contacts = FrameList<Contact>()
        swap(&contacts, &frame.contacts)
        var ids = ContiguousArray<UInt32>()
        swap(&ids, &gestureIDs)
        newToGestures = Self.collectFiltered(
            filter.shown, one: single, touching: touching, geometry, Contact(id: 0, position: .zero), into: &contacts, lastIDs: &ids)
        swap(&ids, &gestureIDs)
        swap(&contacts, &frame.contacts)
    }

    /// Contact `id` of this frame was not in the last one: it landed, or a filter showed it
    /// only now (a young contact coming of age).
    public func isNewInFrame(_ id: UInt32) -> Bool {
        guard isFiltered else { return id >= contactsBefore }
        guard multitouch else { return newToGestures & 1 != 0 && single.contact == id }
        // The slot it is down (or held) in: a slot it lifted from keeps its id (a bounce another
        // slot took, `ContactFilter.takeBounce`).
        for k in 0..<min(slotsUsed, 64) where slots[k].contact == id && (slots[k].trackingID >= 0 || filter.shown[k].lingering) {
            return newToGestures & (1 << k) != 0
        }
        return false
    }

    /// A single-touch panel's one contact as the filters show it to the gestures, into `list`, as
    /// `ContactFilter.run` collects a slot; 1 when it is new to them (its id not in `lastIDs`).
    static func collectFiltered(
        _ shown: ContiguousArray<ContactFilter.ShownSlot>, one: DecoderSlot, touching: Bool, _ geometry: ScreenGeometry, _ filler: Contact,
        into list: inout FrameList<Contact>, lastIDs ids: inout ContiguousArray<UInt32>
    ) -> UInt64 {
        // (A single-touch panel has one slot, so `shown` and `ids` one entry each; without it, nothing shows.)
        let v = shown.first ?? ContactFilter.ShownSlot(hidden: true)
        let shows = !v.hidden && !v.young && (touching || v.lingering) && one.hasX && one.hasY && !ids.isEmpty
        let new = shows && ids[0] != one.contact && !v.moved
        if !ids.isEmpty { ids[0] = shows ? one.contact : 0 }
        list.refill(capacity: 1, filler: filler) { out in
            guard shows else { return 0 }
            out[0] = Contact(id: one.contact, position: geometry.map(x: v.x, y: v.y), isLifted: v.lingering && !new)
            return 1
        }
        return new ? 1 : 0
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

    /// What is wrong with the panel's dead zones on its size (one off the panel, one covering
    /// it all), for a notice when it opens.
    public var deadZoneProblem: String? {
        guard isFiltered else { return nil }
        return ContactFilterSettings.deadZoneProblem(filter.settings.deadZones, width: geometry.sizeMM.width, height: geometry.sizeMM.height)
    }

    /// The frame's filters done: the contacts the stuck filter ended in it, into
    /// `contactsEndedAsStuck` (emptied first when it holds any). The mirror ends each as
    /// `[device] cancel` says, as a touch a system gesture takes; the gestures see it lift.
    /// Stored, not asked of the decoder: a call lent the whole decoder (1,152 bytes), which a
    /// caller holding the decoder beside what it writes into copied at every frame.
    mutating func noteContactsEndedAsStuck() {
        if !contactsEndedAsStuck.isEmpty { contactsEndedAsStuck.removeAll(keepingCapacity: true) }
        guard filter.tally.stuckNow, case let bits = filter.endedAsStuck, bits != 0 else { return }
        if !multitouch { return contactsEndedAsStuck.append(single.contact) }
        for k in 0..<min(slots.count, 64) where bits & (1 << UInt64(k)) != 0 { contactsEndedAsStuck.append(slots[k].contact) }
    }

    /// What the panel's filters did since it was opened (none without filters).
    public var filterCounts: FilterCounts { isFiltered ? filter.counts : FilterCounts() }

    /// When the filters want a frame of their own (a held lift or a young contact due), if ever
    /// (`nextTick`, stored at each frame: asked every frame from other modules, where a computed
    /// property copied the decoder).
    func filterTick() -> Timestamp? {
        guard isFiltered, let t = filter.nextTick else { return nil }
        return Timestamp(nanoseconds: t)
    }

    /// The frame the filters make at `time` (no event came: the panel's state then, a held lift
    /// shown, a young contact shown); false when none was due. A frame that ends held lifts is
    /// stamped at the latest of those lifts (never before the last frame): the finger left then,
    /// and the gestures' release velocity is fitted up to that time, not over the held stillness.
    public mutating func tick(at time: Timestamp) -> Bool {
        guard isFiltered, let due = nextTick, due <= time else { return false }
        let last = frame.time
        makeFrame(at: time, fresh: false)
        if let lift = filter.tally.releasedLift {
            frame.time = max(last, Timestamp(nanoseconds: min(lift, time.nanoseconds)))
        }
        return true
    }
}
