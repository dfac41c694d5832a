// Which of a frame's contacts a tracker follows (`ContactTracker.update`'s view), for
// `SequenceTable.read`.

/// The contacts of one region's sequence: those hit-tested to it or to a region nested in it.
struct RegionView: ContactView {
    let leaves: [Int32]
    let tree: RegionTree
    let region: Int

    @inline(__always)
    func includes(_ index: Int, _ contact: Contact) -> Bool {
        let leaf = leaves[index]
        return leaf >= 0 && tree.isAncestor(region, of: Int(leaf))
    }
}

/// Every contact of the frame (they all landed in the region, or in regions nested in it).
struct EveryContact: ContactView {
    @inline(__always)
    func includes(_ index: Int, _ contact: Contact) -> Bool { true }
}

/// The contacts a gesture claimed.
struct ClaimView: ContactView {
    let ids: [UInt32]

    @inline(__always)
    func includes(_ index: Int, _ contact: Contact) -> Bool {
        for id in ids where id == contact.id { return true }
        return false
    }
}
