/// Multitouch protocol A (a panel without slots: each frame lists every contact down, each
/// ended by SYN_MT_REPORT, with no tracking id or with the driver's own): its contacts tracked
/// across frames into the decoder's slots, as mtdev does for libinput, so everything after the
/// decoder (filters, mirror, gestures) reads a protocol A panel as a protocol B one.
///
/// A frame's contacts are matched to the slots down before it: by the driver's tracking id when
/// every contact carries one and no two the same (only to slots whose id was the driver's), unless
/// those ids pair them far worse than their places do (a driver whose ids swap as its contacts
/// move: `preferNearestToSwappedIDs`), otherwise nearest first (the closest pair of a slot and a
/// contact, then the next closest, ...); whichever way, no pair farther apart than a finger moves
/// between the two frames (`jumpLimit`: a lift and a landing, not a move). A slot
/// left unmatched lifts; a contact left unmatched lands in the first free slot. A frame with no
/// contact lifts them all (the protocol sends every contact every frame).
struct ProtocolA {
    /// Farther than this between two frames, a contact is a lift and a landing (3 m/s at 30 Hz):
    /// the limit for frames 33 ms or more apart.
    static let jumpMillimeters = 100.0
    /// A finger's fastest flick (mm/s): frames closer together than 33 ms allow that far (on a
    /// 100 Hz panel 30 mm: a finger lifting as another lands 60 mm away, two keys typed with two
    /// hands, is two contacts), and at least `minimumJumpMillimeters`.
    static let jumpSpeed = 3_000.0
    static let minimumJumpMillimeters = 20.0
    /// The limit for this frame (mm), from the time since the last one.
    private var jumpLimit = ProtocolA.jumpMillimeters
    /// When the last frame ended (ns; nil: none yet), and the panel's report interval as its
    /// frames have come (s; 0 before one is seen): two reports read together (microseconds
    /// apart, or stamped alike) are that far apart for the limit, not closer.
    private var lastFrameAt: Int64?
    private var interval = ReportInterval()
    /// The contact being reported (its values since the last SYN_MT_REPORT).
    private var current = DecoderSlot()
    /// The frame's contacts so far (`count` of them; room for 64, made once).
    private var contacts: [DecoderSlot]
    private var count = 0
    /// The tracking id the next contact without one of its own gets in its slot.
    private var nextTracking: Int32 = 0
    /// The slots whose tracking id is the driver's (a bit a slot), not one given here.
    private var driverIDs: UInt64 = 0
    /// Millimetres a unit along X and Y (the panel's size), set again by a reload.
    var mmPerUnit: (x: Double, y: Double)

    /// `slots`: the decoder's slots (the most contacts a frame keeps). A frame may list up to 64
    /// contacts: those that move on keep their slots, and landings past the slots' number are
    /// left out (not the contacts listed last, whichever they are: the slots would trade fingers).
    init(slots: Int, mmPerUnit: (x: Double, y: Double)) {
        contacts = [DecoderSlot](repeating: DecoderSlot(), count: slots > 0 ? 64 : 0)
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
    /// the 64th of its frame, is dropped).
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
    mutating func endFrame(at time: Int64, into slots: inout [DecoderSlot], next: inout UInt32, used: inout Int) {
        endContact()  // a driver that ends its last contact with the frame alone
        let n = count
        count = 0
        let dt = lastFrameAt.map { Double(time &- $0) / 1e9 } ?? .infinity
        lastFrameAt = time
        interval.learn(dt)
        jumpLimit = min(Self.jumpMillimeters, max(Self.minimumJumpMillimeters, Self.jumpSpeed * max(dt, interval.seconds)))
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
            // An id whose slot lies past the jump limit pairs nothing (`jumped`).
            var jumped = false
            for j in 0..<n {
                let id = contacts[j].trackingID
                guard let k = slots.indices.first(where: { slots[$0].trackingID == id && down & (1 << $0) != 0 && taken & (1 << $0) == 0 }) else { continue }
                guard distanceSquared(slots[k], contacts[j]) <= jumpLimit * jumpLimit else {
                    jumped = true
                    continue
                }
                slotOf[j] = Int8(k)
                taken |= 1 << k
            }
            // (One contact left of two or more: ids in list order gave it the first one's id.)
            if jumped || n > 1 || down.nonzeroBitCount > 1 { preferNearestToSwappedIDs(n, slots, &slotOf, &taken, jumped: jumped) }
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
    /// places every frame, and the finger left when the first one lifts take its place. Worse: an
    /// id's slot past the jump limit (`jumped`), or the pairs' squared distances adding up to
    /// more than four times the nearest pairing's and `swapMillimeters`² more (two fingers
    /// crossing each other, closer than a fingertip, keep the driver's word).
    private func preferNearestToSwappedIDs(
        _ n: Int, _ slots: [DecoderSlot], _ slotOf: inout InlineArray<64, Int8>, _ taken: inout UInt64, jumped: Bool
    ) {
        var near = InlineArray<64, Int8>(repeating: -1)
        var nearTaken: UInt64 = 0
        matchNearest(n, slots, &near, &nearTaken)
        if jumped { return (slotOf, taken) = (near, nearTaken) }
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
        for j in 0..<n where slotOf[j] >= 0 { sum += distanceSquared(slots[Int(slotOf[j])], contacts[j]) }
        return sum
    }

    /// How far apart a slot's contact and a listed one are, squared (mm², in doubles: any two
    /// Int32 positions are a finite distance apart).
    private func distanceSquared(_ a: DecoderSlot, _ b: DecoderSlot) -> Double {
        let dx = (Double(a.x) - Double(b.x)) * mmPerUnit.x
        let dy = (Double(a.y) - Double(b.y)) * mmPerUnit.y
        return dx * dx + dy * dy
    }

    /// Pairs the frame's `n` contacts with the slots down, closest pair first, none farther
    /// apart than the jump.
    private func matchNearest(_ n: Int, _ slots: [DecoderSlot], _ slotOf: inout InlineArray<64, Int8>, _ taken: inout UInt64) {
        let limit = jumpLimit * jumpLimit
        var matched = 0
        while matched < n {
            var best: (d: Double, k: Int, j: Int)?
            for k in slots.indices where slots[k].trackingID >= 0 && taken & (1 << k) == 0 {
                for j in 0..<n where slotOf[j] < 0 {
                    let d = distanceSquared(slots[k], contacts[j])
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
