/// A decoder that goes on from another one's state (a reload), or from the kernel's (a panel
/// opened with a past).
extension FrameDecoder {
    /// A new decoder for the same panel (a reload changed its geometry) goes on from `old`'s
    /// slots: the contacts down stay down, with their ids, so a consumer that follows them (the
    /// mirror) sees no lift; only positions are mapped anew.
    public mutating func continueFrom(_ old: FrameDecoder) {
        guard old.slots.count == slots.count, old.multitouch == multitouch else { return }
        // The old decoder whole (its slots, contacts, last frame), with this one's mapping.
        let mapping = (geometry, majorScale, palmSize)
        // The filters' state goes on where the settings did not change.
        // The filters go on as they were when nothing of theirs changed (settings and the panel's
        // size); new ones take the contacts down as they are (landed long ago, in no dead zone).
        let same = old.filter.settings == filter.settings && old.filter.mmPerUnit == filter.mmPerUnit
        var filter = same ? old.filter : self.filter
        if !same {
            let (slots, down) = old.multitouch ? (old.slots, old.slots.map { $0.trackingID >= 0 }) : ([old.single], [old.touching])
            filter.adopt(slots, down: down, at: old.frame.time.nanoseconds)
            filter.counts += old.filter.counts
        }
        let (filtered, ghosts, size) = (isFiltered, ghostsOnMirror, protocolA.mmPerUnit)
        self = old
        (geometry, majorScale, palmSize) = mapping
        protocolA.mmPerUnit = size
        // Filters new to the panel: what the gestures were shown is what was down.
        if !old.isFiltered {
            for k in gestureIDs.indices {
                let s = multitouch ? slots[k] : single
                gestureIDs[k] = (multitouch ? s.trackingID >= 0 : (k == 0 && touching)) && s.hasX && s.hasY ? s.contact : 0
            }
        }
        (self.filter, isFiltered, ghostsOnMirror) = (filter, filtered, ghosts)
        // The new filters' next frame (none without filters: an old one's would fire forever).
        nextTick = filterTick()
    }

    /// A panel opened with a past (`EvdevDevice.slotState`): each slot's last position (x at 2s,
    /// y at 2s + 1; a single-touch panel's ABS_X and ABS_Y as slot 0) and the selected slot. The
    /// kernel sends neither again (a value equal to the last is dropped), so a touch landing
    /// where the last one was comes with no position: the decoder must start where the panel
    /// is. A slot never used is at 0, 0 (`DecoderSlot.zeroKnown`): a first touch on an edge where
    /// 0 is on the axis sends a position on the other axis only, and is placed at 0 on this one
    /// as libinput places it; one with no position at all waits for one (a driver that sends the
    /// tracking id a frame before the position would otherwise land it at the corner).
    /// (A protocol A panel sends every position in every frame.)
    public mutating func seed(positions: [Int32], slot selected: Int) {
        guard slotted || !multitouch else { return }
        let zero = (x: geometry.xAxis.minimum <= 0 && geometry.xAxis.maximum >= 0, y: geometry.yAxis.minimum <= 0 && geometry.yAxis.maximum >= 0)
        guard multitouch else {
            // A single-touch panel's last touch (its axes' 0, 0: none yet, and waited for).
            if positions.count >= 2 && (positions[0] != 0 || positions[1] != 0) {
                (single.x, single.y, single.hasX, single.hasY) = (positions[0], positions[1], true, true)
            }
            return
        }
        for s in slots.indices where 2 * s + 1 < positions.count {
            let (x, y) = (positions[2 * s], positions[2 * s + 1])
            if x != 0 || y != 0 {
                (slots[s].x, slots[s].y, slots[s].hasX, slots[s].hasY) = (x, y, true, true)
            } else if zero.x || zero.y {
                slots[s].zeroKnown = true
                zeroSeeded = true
            }
        }
        if selected >= 0 && selected < slots.count { slot = selected }
    }

    /// A frame in which a contact landed while slots are at the kernel's 0, 0 (`seed`): a
    /// seeded slot's landing with a position on one axis is at 0 on the other (where 0 is on
    /// it); with a position on both, or once the slot held a contact, it is an ordinary slot.
    mutating func placeSeededLandings() {
        let zero = (x: geometry.xAxis.minimum <= 0 && geometry.xAxis.maximum >= 0, y: geometry.yAxis.minimum <= 0 && geometry.yAxis.maximum >= 0)
        var left = false
        for k in slots.indices where slots[k].zeroKnown {
            guard slots[k].trackingID >= 0 else {
                left = true
                continue
            }
            if slots[k].hasX && !slots[k].hasY && zero.y { slots[k].hasY = true }
            if slots[k].hasY && !slots[k].hasX && zero.x { slots[k].hasX = true }
            // No position at all yet: it waits, as any slot with none does.
            if slots[k].hasX || slots[k].hasY { slots[k].zeroKnown = false } else { left = true }
        }
        zeroSeeded = left
    }
}
