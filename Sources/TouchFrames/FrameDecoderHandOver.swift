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
    /// is. A slot never used is at 0, 0: where 0 is on an axis, a first touch at that edge sends
    /// no position on it and is there, as libinput reads it; where it is not, any touch sends one.
    /// (A protocol A panel sends every position in every frame.)
    public mutating func seed(positions: [Int32], slot selected: Int) {
        guard slotted || !multitouch else { return }
        let zero = (x: geometry.xAxis.minimum <= 0 && geometry.xAxis.maximum >= 0, y: geometry.yAxis.minimum <= 0 && geometry.yAxis.maximum >= 0)
        func place(_ s: inout DecoderSlot, _ x: Int32, _ y: Int32) {
            let used = x != 0 || y != 0
            guard used || zero.x || zero.y else { return }
            (s.x, s.y) = (x, y)
            s.hasX = used || zero.x
            s.hasY = used || zero.y
        }
        guard multitouch else {
            if positions.count >= 2 { place(&single, positions[0], positions[1]) }
            return
        }
        for s in slots.indices where 2 * s + 1 < positions.count { place(&slots[s], positions[2 * s], positions[2 * s + 1]) }
        if selected >= 0 && selected < slots.count { slot = selected }
    }
}
