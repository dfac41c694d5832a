/// What a caller asks of the decoder's state between frames: where a contact is, how many are down.
extension FrameDecoder {
    /// The slot contact `id` is down in (multitouch panels; nil when it is not down).
    public func slot(ofContact id: UInt32) -> Int? {
        if let k = slots.firstIndex(where: { $0.trackingID >= 0 && $0.contact == id }) { return k }
        // A lift the chatter filter holds: still shown, where its slot last had it.
        guard isFiltered else { return nil }
        return slots.indices.first { slots[$0].contact == id && filter.shown[$0].lingering }
    }

    /// A contact down now, on the panel's own axes before calibration and rotation (0…1,
    /// `ScreenGeometry.unit`): what a calibrator fits from. Nil for a contact not down.
    public func unitPosition(ofContact id: UInt32) -> (u: Double, v: Double)? {
        if !multitouch {
            guard touching || (isFiltered && filter.shown[0].lingering), single.contact == id, single.hasX, single.hasY else { return nil }
            return geometry.unit(x: single.x, y: single.y)
        }
        guard let k = slot(ofContact: id), slots[k].hasX, slots[k].hasY else { return nil }
        return geometry.unit(x: slots[k].x, y: slots[k].y)
    }

    /// The contacts down on the panel in the last frame, the filters' young ones too (for tests,
    /// `devices`, and touch to wake's end: counted in place, nothing allocated).
    public var activeContacts: Int {
        guard multitouch else { return touching ? 1 : 0 }
        var n = 0
        for i in slots.indices where slots[i].trackingID >= 0 { n += 1 }
        return n
    }
}
