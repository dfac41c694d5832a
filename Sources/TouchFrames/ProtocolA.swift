/// Multitouch protocol A (a panel without slots: each frame lists every contact down, each
/// ended by SYN_MT_REPORT, with no tracking id or with the driver's own): its contacts tracked
/// across frames into the decoder's slots, as mtdev does for libinput, so everything after the
/// decoder (filters, mirror, gestures) reads a protocol A panel as a protocol B one.
///
/// A frame's contacts are matched to the slots down before it: by the driver's tracking id when
/// every contact carries one and no two the same (only to slots whose id was the driver's), unless
/// those ids pair them far worse than their places do (a driver whose ids swap as its contacts
/// move: `preferNearestToSwappedIDs`), otherwise nearest first (the closest pair of a slot and a contact, then the next closest,
/// ...), no pair farther apart than `jumpMillimeters` (a lift and a landing, not a move). A slot
/// left unmatched lifts; a contact left unmatched lands in the first free slot. A frame with no
/// contact lifts them all (the protocol sends every contact every frame).
struct ProtocolA {
    /// Farther than this between two frames, a contact is a lift and a landing (3 m/s at 30 Hz).
    static let jumpMillimeters = 100.0
    /// The contact being reported (its values since the last SYN_MT_REPORT).
    private var current = DecoderSlot()
    /// The frame's contacts so far (`count` of them; room for one a slot, made once).
    private var contacts: [DecoderSlot]
    private var count = 0
    /// The tracking id the next contact without one of its own gets in its slot.
    private var nextTracking: Int32 = 0
    /// The slots whose tracking id is the driver's (a bit a slot), not one given here.
    private var driverIDs: UInt64 = 0
    /// Millimetres a unit along X and Y (the panel's size), set again by a reload.
    var mmPerUnit: (x: Double, y: Double)

    /// `slots`: the decoder's slots (the most contacts a frame keeps, at most 64).
    init(slots: Int, mmPerUnit: (x: Double, y: Double)) {
        contacts = [DecoderSlot](repeating: DecoderSlot(), count: min(slots, 64))
        self.mmPerUnit = mmPerUnit
    }

    /// One ABS_MT_* event of the contact being reported.
    mutating func axis(_ code: UInt16, _ value: Int32) {
        switch code {
        case Evdev.ABS_MT_POSITION_X:
            current.x = value
            current.hasX = true
        case Evdev.ABS_MT_POSITION_Y:
            current.y = value
            current.hasY = true
        case Evdev.ABS_MT_TRACKING_ID:
            current.trackingID = value
        case Evdev.ABS_MT_TOOL_TYPE:
            current.isPalm = value == Evdev.MT_TOOL_PALM
            current.axes[code] = value
        case Evdev.ABS_MT_TOUCH_MAJOR:
            current.major = value
            current.axes[code] = value
        default:
            current.axes[code] = value
        }
    }

    /// SYN_MT_REPORT: the contact being reported is complete (one without a position, or past
    /// the slots' number, is dropped).
    mutating func endContact() {
        if current.hasX && current.hasY && count < contacts.count {
            contacts[count] = current
            count += 1
        }
        current = DecoderSlot()
    }

    /// Forgets the frame being read (events were lost: the next frame reports every contact again).
    mutating func discard() {
        current = DecoderSlot()
        count = 0
    }

    /// SYN_REPORT: the frame's contacts into `slots` (a moved contact keeps its slot and id; a
    /// new one takes id `next`; `used` is one past the highest slot a contact was down in).
    mutating func endFrame(into slots: inout [DecoderSlot], next: inout UInt32, used: inout Int) {
        endContact()  // a driver that ends its last contact with the frame alone
        let n = count
        count = 0
        // Each frame contact's slot (-1: none yet), and the slots it took (a slot a bit).
        var slotOf = InlineArray<64, Int8>(repeating: -1)
        var taken: UInt64 = 0
        // The driver's ids are usable when every contact has one and no two share it (a driver
        // that repeats an id, or sends some without, gives none this frame); they match when
        // every slot down has the driver's id too (else, as on the first frame with ids, nearest
        // first, the slots then taking the driver's ids).
        let ids = n > 0 && (0..<n).allSatisfy { j in contacts[j].trackingID >= 0 && !(0..<j).contains { contacts[$0].trackingID == contacts[j].trackingID } }
        let down = slots.indices.reduce(UInt64(0)) { slots[$1].trackingID >= 0 ? $0 | 1 << $1 : $0 }
        if ids && down & ~driverIDs == 0 {
            for j in 0..<n {
                let id = contacts[j].trackingID
                guard let k = slots.indices.first(where: { slots[$0].trackingID == id && down & (1 << $0) != 0 && taken & (1 << $0) == 0 }) else { continue }
                slotOf[j] = Int8(k)
                taken |= 1 << k
            }
            if n > 1 { preferNearestToSwappedIDs(n, slots, &slotOf, &taken) }
        } else {
            matchNearest(n, slots, &slotOf, &taken)
        }
        // Slots not matched lift; matched ones move; contacts not matched land.
        for k in slots.indices where slots[k].trackingID >= 0 && taken & (1 << k) == 0 {
            slots[k].trackingID = -1
            slots[k].isPalm = false
            slots[k].major = 0
        }
        for j in 0..<n {
            var c = contacts[j]
            if slotOf[j] >= 0 {
                // A moved contact keeps its slot and id; the slot takes the driver's id, if usable.
                let k = Int(slotOf[j])
                if ids {
                    driverIDs |= 1 << k
                } else {
                    (c.trackingID, driverIDs) = (slots[k].trackingID, driverIDs & ~(1 << k))
                }
                c.contact = slots[k].contact
                slots[k] = c
                continue
            }
            guard let k = slots.indices.first(where: { slots[$0].trackingID < 0 && taken & (1 << $0) == 0 }) else { continue }
            if ids {
                driverIDs |= 1 << k
            } else {
                driverIDs &= ~(1 << k)
                c.trackingID = nextTracking
                nextTracking = nextTracking == Int32.max ? 0 : nextTracking + 1
            }
            c.contact = next
            next &+= 1
            slots[k] = c
            taken |= 1 << k
            used = max(used, k + 1)
        }
    }

    /// The driver's ids, where they pair its contacts far worse than their places do, give way
    /// to the places for this frame: a driver that numbers its contacts in the order it lists
    /// them (which swaps as they move: a panel listing them by row) would make two fingers trade
    /// places every frame. Worse: the pairs' squared distances add up to more than four times the
    /// nearest pairing's and `swapMillimeters`² more (two fingers crossing each other, closer
    /// than a fingertip, keep the driver's word).
    private func preferNearestToSwappedIDs(_ n: Int, _ slots: [DecoderSlot], _ slotOf: inout InlineArray<64, Int8>, _ taken: inout UInt64) {
        var near = InlineArray<64, Int8>(repeating: -1)
        var nearTaken: UInt64 = 0
        matchNearest(n, slots, &near, &nearTaken)
        guard nearTaken.nonzeroBitCount == taken.nonzeroBitCount else { return }
        let margin = Self.swapMillimeters * Self.swapMillimeters
        guard cost(n, slots, near) * 4 + margin < cost(n, slots, slotOf) else { return }
        (slotOf, taken) = (near, nearTaken)
    }

    /// How far (mm) the driver's ids must move its contacts beyond their nearest pairing before
    /// they are taken for swapped (`preferNearestToSwappedIDs`): about a fingertip's width.
    static let swapMillimeters = 10.0

    /// The squared distances (mm²) of the pairs `slotOf` makes, added up.
    private func cost(_ n: Int, _ slots: [DecoderSlot], _ slotOf: InlineArray<64, Int8>) -> Double {
        var sum = 0.0
        for j in 0..<n where slotOf[j] >= 0 {
            let k = Int(slotOf[j])
            let dx = (Double(slots[k].x) - Double(contacts[j].x)) * mmPerUnit.x
            let dy = (Double(slots[k].y) - Double(contacts[j].y)) * mmPerUnit.y
            sum += dx * dx + dy * dy
        }
        return sum
    }

    /// Pairs the frame's `n` contacts with the slots down, closest pair first, none farther
    /// apart than the jump.
    private func matchNearest(_ n: Int, _ slots: [DecoderSlot], _ slotOf: inout InlineArray<64, Int8>, _ taken: inout UInt64) {
        // In mm, in doubles: any two Int32 positions are a finite distance apart.
        let limit = Self.jumpMillimeters * Self.jumpMillimeters
        var matched = 0
        while matched < n {
            var best: (d: Double, k: Int, j: Int)?
            for k in slots.indices where slots[k].trackingID >= 0 && taken & (1 << k) == 0 {
                for j in 0..<n where slotOf[j] < 0 {
                    let dx = (Double(slots[k].x) - Double(contacts[j].x)) * mmPerUnit.x
                    let dy = (Double(slots[k].y) - Double(contacts[j].y)) * mmPerUnit.y
                    let d = dx * dx + dy * dy
                    if d <= limit && d < (best?.d ?? .infinity) { best = (d, k, j) }
                }
            }
            guard let b = best else { return }
            slotOf[b.j] = Int8(b.k)
            taken |= 1 << b.k
            matched += 1
        }
    }
}
