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
                filter!.apply(&slots[k], slot: k, down: down, at: time.nanoseconds, nextContact: &nextContact)
            }
        } else {
            filter!.apply(&single, slot: 0, down: touching && single.hasX && single.hasY, at: time.nanoseconds, nextContact: &nextContact)
        }
    }

    /// Contact `id` of this frame was not in the last one: it landed, or a filter showed it
    /// only now (a young contact coming of age).
    public func isNewInFrame(_ id: UInt32) -> Bool {
        guard let filter else { return id >= contactsBefore }
        return !filter.wasShown(id)
    }

    /// When the filters want a frame of their own (a held lift or a young contact due), if ever.
    public var nextTick: Timestamp? { filter?.nextTick.map { Timestamp(nanoseconds: $0) } }

    /// The frame the filters make at `time` (no event came: the panel's state then, a held lift
    /// shown, a young contact shown); false when none was due.
    public mutating func tick(at time: Timestamp) -> Bool {
        guard let due = nextTick, due <= time else { return false }
        makeFrame(at: time)
        return true
    }
}
