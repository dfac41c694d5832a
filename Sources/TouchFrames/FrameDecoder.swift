import GestureEngine

/// Turns a device's evdev event stream into touch frames: multitouch protocol B (slots,
/// tracking ids), protocol A (no slots: `ProtocolA` tracks its contacts into slots) or a
/// single-touch panel (ABS_X/Y + BTN_TOUCH) as one contact. One frame per SYN_REPORT. Shared by `replay` and the live reader, so both see exactly the same frames.
///
/// Robust to what real panels send: events before the first SYN_REPORT update state silently;
/// a slot without a position yet is left out until it has one; values outside the axis range
/// are clamped; unknown codes are ignored; events for a slot beyond the device's slot count are
/// dropped; after SYN_DROPPED everything up to the next SYN_REPORT is discarded and the next
/// frame is marked as a discontinuity (the engine cancels rather than guess; when nothing came
/// between the two, the frame after them: the kernel kept its newest event, a SYN_REPORT, or
/// `touchgesturectl record` marked the kernel's state that follows); a tracking id that
/// replaces another in a slot without a lift is a lift plus a new contact.
public struct FrameDecoder: Sendable {
    public let description: DeviceDescription
    public internal(set) var geometry: ScreenGeometry
    public let device: UInt32
    let multitouch: Bool
    /// Multitouch with slots (protocol B): its axis events go to the slots as they come.
    let slotted: Bool
    /// A protocol A panel's contacts, tracked into `slots` at each SYN_REPORT (unused otherwise).
    var protocolA: ProtocolA
    /// Millimetres per unit of ABS_MT_TOUCH_MAJOR, and the size above which a contact is a palm
    /// (`GeometryConfiguration.palmSize`); 0: the panel reports no size, or the check is off.
    var majorScale: Double
    var palmSize: Double
    var slots: [DecoderSlot]
    var slot = 0
    /// One past the highest slot a contact is down (or a filter holds one) in, lowered at a
    /// frame's end (`releaseTopSlots`): a frame looks no further.
    var slotsUsed = 0
    /// The id the next contact to land gets (ids start at 1 and only grow): a caller that
    /// remembers it knows whether a frame has a new contact without looking at its contacts.
    public internal(set) var nextContact: UInt32 = 1
    /// `nextContact` at the frame before the last: `landed` compares the two.
    var contactsBefore: UInt32 = 1
    /// A contact landed in the last frame (what wakes an idle kiosk). Stored: asked every frame
    /// from another module, where a computed property copied the decoder.
    public internal(set) var landed = false
    /// The last frame's contacts before it (some were down): read by the wake check.
    public internal(set) var hadContacts = false

    /// Fill `panel` with each frame (a consumer writes the panel's touches on: the mirror, touch
    /// lines' panel positions). Off, a frame costs nothing more.
    public var keepsPanel = false
    /// Make the engine's contacts (`frame.contacts`) at each frame. Off in a decoder that only
    /// feeds the mirror (the input thread's): an unfiltered multitouch frame then skips them.
    public var feedsEngine = true
    /// The last frame's contacts as the panel reports them, in the order of `frame.contacts`
    /// (filled only while `keepsPanel`).
    public internal(set) var panel = FrameList<PanelContact>()
    /// The last frame's events that are no contact's (a key other than the touch keys, a switch,
    /// MSC_TIMESTAMP), in order (while `keepsPanel`), for the mirror; and the frame being read's.
    public private(set) var others = FrameList<PanelEvent>()
    /// The contacts the stuck filter ended in the last frame (`noteContactsEndedAsStuck`).
    public internal(set) var contactsEndedAsStuck: [UInt32] = []
    private var pendingOthers = FrameList<PanelEvent>()

    // Single-touch state.
    var touching = false
    var single = DecoderSlot()

    private var dropping = false
    /// No event came between the SYN_DROPPED and now (`dropping`): its SYN_REPORT makes no frame.
    private var droppedNothing = false
    private var discontinuity = false
    /// Slots `seed` found never used, at the kernel's 0, 0 (`DecoderSlot.zeroKnown`).
    var zeroSeeded = false
    /// The panel's filters (`GeometryConfiguration.filters`): always there, empty without
    /// settings (an optional's unwrap copied it out and back, arrays and all, every frame).
    var filter: ContactFilter
    /// The panel's contacts go through filters before anyone sees them.
    public internal(set) var isFiltered = false
    /// Young contacts (the ghost filter) are hidden on the mirror too.
    var ghostsOnMirror = false
    /// When the filters want a frame of their own (a held lift or a young contact due), if ever.
    public internal(set) var nextTick: Timestamp?
    /// A filtered panel's contact each slot showed the gestures in the last frame (0: none),
    /// and the slots whose contact is new to them in this one (a bit a slot).
    var gestureIDs: ContiguousArray<UInt32>
    var newToGestures: UInt64 = 0

    /// SYN_DROPPED events seen.
    public private(set) var droppedCount = 0
    /// Frames emitted.
    public private(set) var frameCount = 0

    /// Fails (returns nil) for a device that is no touchscreen (see `DeviceDescription.touchKind`).
    public init?(description: DeviceDescription, geometry: GeometryConfiguration, device: UInt32 = 0) {
        guard let kind = description.touchKind, let axes = description.positionAxes,
            axes.x.maximum > axes.x.minimum, axes.y.maximum > axes.y.minimum
        else { return nil }
        self.description = description
        self.geometry = ScreenGeometry(x: axes.x, y: axes.y, configuration: geometry)
        self.device = device
        multitouch = kind == .multitouch
        slotted = multitouch && !description.isProtocolA
        if kind == .multitouch, geometry.palmSize > 0, let major = description.axes[Evdev.ABS_MT_TOUCH_MAJOR],
            major.maximum > major.minimum
        {
            // The kernel's multi-touch protocol gives the touch size in surface units, unless the
            // axis reports a resolution (units per mm) of its own.
            majorScale = major.resolution > 0 ? 1 / Double(major.resolution) : self.geometry.millimetersPerSurfaceUnit
            palmSize = geometry.palmSize
        } else {
            majorScale = 0
            palmSize = 0
        }
        slots = [DecoderSlot](repeating: DecoderSlot(), count: description.slotCount)
        gestureIDs = ContiguousArray(repeating: 0, count: description.slotCount)
        let size = self.geometry.sizeMM
        protocolA = ProtocolA(
            slots: description.isProtocolA ? description.slotCount : 0,
            mmPerUnit: (size.width / (Double(axes.x.maximum) - Double(axes.x.minimum) + 1), size.height / (Double(axes.y.maximum) - Double(axes.y.minimum) + 1)))
        filter = ContactFilter(geometry.filters, slots: geometry.filters.isEmpty ? 0 : description.slotCount, x: axes.x, y: axes.y, sizeMM: size)
        // Stored, not asked of the optional filter each frame (its tag check copied it).
        isFiltered = !geometry.filters.isEmpty
        ghostsOnMirror = geometry.filters.ghostOnMirror
        // Room for a contact a slot, so that no frame allocates.
        frame.contacts.refill(capacity: max(1, slots.count), filler: Contact(id: 0, position: .zero)) { _ in 0 }
    }

    /// The live reader resynchronized after SYN_DROPPED (libevdev's sync events follow, bringing
    /// the slots to the kernel's state): the next frame is marked as a discontinuity.
    public mutating func markDiscontinuity() {
        discontinuity = true
        // A protocol A frame being read when events were lost is stale too.
        if multitouch && !slotted { protocolA.discard() }
        // A SYN_DROPPED the decoder met itself (`lostEvents`) was counted then; what was
        // dropped after it is replaced by the resync's state.
        if !dropping { droppedCount += 1 }
        dropping = false
    }

    /// The last `feed` stopped at a SYN_DROPPED: a live reader's events after it are stale,
    /// and it takes the kernel's state instead (a resync, `markDiscontinuity`). The one scan
    /// of a read finds it: the reader does not look for it first.
    public private(set) var lostEvents = false
    /// The last event fed was a SYN_REPORT (one closing a SYN_DROPPED's gap makes no frame): no
    /// frame is half read, the filters' own may come.
    public private(set) var betweenFrames = true

    /// Feeds `events` from `i` up to and including the next SYN_REPORT, moving `i` past the last
    /// event read; true if a frame ended (it is `frame`). It stops after a SYN_DROPPED too
    /// (false, `lostEvents` set): a caller that resynchronizes stops there, one that does not
    /// (a recording) feeds on, and what follows is dropped up to the next SYN_REPORT. A read takes
    /// a call a frame, not an event; the frame is read where it lies (`frame`).
    public mutating func feed(_ events: borrowing Span<InputEvent>, from i: inout Int) -> Bool {
        feedRun(events, from: &i)
    }

    /// The same, for events in the kernel's layout (a live device's read).
    public mutating func feed(_ events: borrowing Span<KernelInputEvent>, from i: inout Int) -> Bool {
        feedRun(events, from: &i)
    }

    /// The last frame made (valid until the next event is fed).
    public internal(set) var frame = TouchFrame(time: .zero, contacts: [], scale: .identity)

    @inline(__always)
    private mutating func feedRun<E: EvdevEvent>(_ events: borrowing Span<E>, from i: inout Int) -> Bool {
        lostEvents = false
        while i < events.count {
            if slotted && !dropping && events[i].type == Evdev.EV_ABS {
                // A run of multitouch axis events (most of a frame), against the slots in place:
                // one access to the slot array for the run (swapped out and back), not one per event.
                var slot = slot, next = nextContact, used = slotsUsed
                betweenFrames = false
                do {
                    var span = slots.mutableSpan
                    while i < events.count && events[i].type == Evdev.EV_ABS {
                        Self.mt(events[i].code, events[i].value, &slot, &next, &used, &span)
                        i &+= 1  // below `events.count`
                    }
                }
                self.slot = slot
                nextContact = next
                slotsUsed = used
                continue
            }
            let e = events[i]
            i += 1
            if feedOne(e) { return true }
            if lostEvents { return false }
        }
        return false
    }

    /// Feeds one event; returns a frame at SYN_REPORT.
    public mutating func feed(_ e: InputEvent) -> TouchFrame? {
        lostEvents = false
        return feedOne(e) ? frame : nil
    }

    /// One event; true at SYN_REPORT (the frame is in `frame`).
    @inline(__always)
    private mutating func feedOne<E: EvdevEvent>(_ e: E) -> Bool {
        betweenFrames = e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT
        if e.type == Evdev.EV_SYN {
            switch e.code {
            case Evdev.SYN_REPORT:
                if dropping {
                    dropping = false
                    discontinuity = true
                    if multitouch && !slotted { protocolA.discard() }
                    // Nothing came after the SYN_DROPPED (the kernel kept its newest event, a
                    // frame's end, or `touchgesturectl record` marked the kernel's state next):
                    // the next frame is the discontinuity, not a frame of the stale state.
                    if droppedNothing { return false }
                } else if multitouch && !slotted {
                    protocolA.endFrame(at: e.time.nanoseconds, into: &slots, next: &nextContact, used: &slotsUsed)
                }
                makeFrame(at: e.time)
                return true
            case Evdev.SYN_MT_REPORT:
                if multitouch && !slotted && !dropping { protocolA.endContact() }
                if dropping { droppedNothing = false }
                return false
            case Evdev.SYN_DROPPED:
                dropping = true
                droppedNothing = true
                if keepsPanel { pendingOthers.removeAll() }  // the frame being read is lost
                droppedCount += 1
                lostEvents = true
                return false
            default:
                return false
            }
        }
        if dropping {
            droppedNothing = false
            return false
        }
        if e.type == Evdev.EV_ABS {
            if slotted {
                mt(e.code, e.value)
            } else if multitouch {
                protocolA.axis(e.code, e.value)
            } else {
                st(e.code, e.value)
            }
        } else if keepsPanel && PanelEvent.passes(e.type, e.code) {
            // At most `PanelEvent.mostInAFrame`: a device that never ends its frame cannot grow
            // the list without end (a panel's keys and misc events are a handful a frame).
            if pendingOthers.count < PanelEvent.mostInAFrame {
                pendingOthers.append(PanelEvent(type: e.type, code: e.code, value: e.value))
            }
        } else if e.type == Evdev.EV_KEY && e.code == Evdev.BTN_TOUCH && !multitouch {
            let down = e.value != 0
            if down && !touching {
                single.contact = nextContact
                nextContact &+= 1
            }
            touching = down
        }
        return false
    }

    private mutating func mt(_ code: UInt16, _ value: Int32) {
        var slot = slot, next = nextContact, used = slotsUsed
        var span = slots.mutableSpan
        Self.mt(code, value, &slot, &next, &used, &span)
        self.slot = slot
        nextContact = next
        slotsUsed = used
    }

    /// One multitouch axis event: `slot` is the current slot (-1: one beyond the device's),
    /// `next` the next contact id, `used` one past the highest slot a contact was down in.
    @inline(__always)
    private static func mt(
        _ code: UInt16, _ value: Int32, _ slot: inout Int, _ next: inout UInt32, _ used: inout Int,
        _ slots: inout MutableSpan<DecoderSlot>
    ) {
        let e = (code: code, value: value)
        if e.code == Evdev.ABS_MT_SLOT {
            slot = e.value >= 0 && Int(e.value) < slots.count ? Int(e.value) : -1
            return
        }
        guard slot >= 0 else { return }
        switch e.code {
        case Evdev.ABS_MT_TRACKING_ID:
            if e.value < 0 {
                slots[slot].trackingID = -1
                slots[slot].isPalm = false
                slots[slot].major = 0
            } else if slots[slot].trackingID != e.value {
                // A new contact (or a new id replacing one whose lift was never sent).
                slots[slot].trackingID = e.value
                slots[slot].contact = next
                used = max(used, slot + 1)
                // The tool and size the kernel keeps in the slot (a second palm sends no tool type).
                slots[slot].isPalm = slots[slot].axes[Evdev.ABS_MT_TOOL_TYPE] == Evdev.MT_TOOL_PALM
                slots[slot].major = slots[slot].axes[Evdev.ABS_MT_TOUCH_MAJOR]
                next &+= 1
            }
        case Evdev.ABS_MT_POSITION_X:
            slots[slot].x = e.value  // clamped by `geometry.map`
            slots[slot].hasX = true
        case Evdev.ABS_MT_POSITION_Y:
            slots[slot].y = e.value
            slots[slot].hasY = true
        case Evdev.ABS_MT_TOOL_TYPE:
            slots[slot].isPalm = e.value == Evdev.MT_TOOL_PALM
            slots[slot].axes[e.code] = e.value
        case Evdev.ABS_MT_TOUCH_MAJOR:
            slots[slot].major = e.value
            slots[slot].axes[e.code] = e.value
        default:
            slots[slot].axes[e.code] = e.value  // (a code outside the axes' range is dropped there)
        }
    }

    /// The contacts of the slots below `used` that are down and placed, into `list`.
    @inline(__always)
    private static func collect(
        _ slots: borrowing [DecoderSlot], used: Int, _ geometry: ScreenGeometry, _ majorScale: Double, _ palmSize: Double,
        _ filler: Contact, into list: inout FrameList<Contact>
    ) {
        list.refill(capacity: max(1, slots.count), filler: filler) { out in
            var n = 0
            for k in 0..<used {
                let s = slots[k]
                guard s.trackingID >= 0 && s.hasX && s.hasY else { continue }
                // A palm by the panel's word, or by its size (a touch longer than palm_size).
                let palm = s.isPalm || (majorScale > 0 && Double(s.major) * majorScale > palmSize)
                out[n] = Contact(id: s.contact, position: geometry.map(x: s.x, y: s.y), isPalm: palm)
                n &+= 1  // below the slot count
            }
            return n
        }
    }

    /// The frame at `time`: the panel's (`fresh`), or one the filters make on their own (a tick:
    /// no new position).
    mutating func makeFrame(at time: Timestamp, fresh: Bool = true) {
        if zeroSeeded && nextContact != lastNextContact { placeSeededLandings() }
        hadContacts = !frame.contacts.isEmpty
        if isFiltered {
            // A multitouch panel's contacts are collected by the filters' pass.
            filter.startFrame()
            if multitouch { runFilterCollecting(at: time, fresh: fresh) } else { runFilterSingle(at: time, fresh: fresh) }
            nextTick = filterTick()
            noteContactsEndedAsStuck()
        }
        if keepsPanel {
            swap(&others, &pendingOthers)
            pendingOthers.removeAll()
        }
        contactsBefore = lastNextContact
        lastNextContact = nextContact
        landed = nextContact != contactsBefore
        defer {
            if keepsPanel { if isFiltered { collectFilteredPanel() } else { collectPanel() } }
            releaseTopSlots()
        }
        if isFiltered {
            if !multitouch { collectFilteredSingle() }
            landed = newToGestures != 0
        } else {
            // The frame's list moved out (no copy) and written through a span of it (one uniqueness check,
            // nothing retained or released), the geometry read where it lies. It holds a contact a slot.
            var contacts = FrameList<Contact>()
            swap(&contacts, &frame.contacts)
            let filler = Contact(id: 0, position: PixelPoint(x: 0, y: 0))
            if multitouch {
                // (None for the mirror alone: `collectPanel` says whether contacts were down.)
                if feedsEngine { Self.collect(slots, used: slotsUsed, geometry, majorScale, palmSize, filler, into: &contacts) }
            } else {
                let down = touching && single.hasX && single.hasY
                let c = down ? Contact(id: single.contact, position: geometry.map(x: single.x, y: single.y)) : filler
                contacts.refill(capacity: 1, filler: filler) { list in
                    guard down else { return 0 }
                    list[0] = c
                    return 1
                }
            }
            swap(&contacts, &frame.contacts)
        }
        frameCount += 1
        frame.time = time
        frame.device = device
        frame.scale = geometry.scale
        frame.discontinuity = discontinuity
        discontinuity = false
    }

    /// `nextContact` at the last frame's end.
    private var lastNextContact: UInt32 = 1
}
