/// The contacts gestures claimed (`Engine.claimContacts`): a running gesture that stopped taking
/// new fingers keeps those it has. As long as no other contact lands in its region, the region's
/// summary is the claim's; from the first frame in which another one lands there, the claim
/// follows its contacts with a tracker of its own. Kept by `SequenceTable`.
struct ContactClaims {
    /// Per gesture: the region of its claim (-1: none), its contacts, its own tracker (once apart
    /// from its region's), and where its summary is in the frame's buffer.
    private(set) var region: [Int]
    private var trackers: [ContactTracker?]
    private(set) var ids: [[UInt32]]
    private(set) var slot: [Int]
    /// The gestures that hold a claim (in the order they took it).
    private(set) var claimed: [Int] = []

    init(_ c: CompiledConfiguration, contacts: Int) {
        let n = c.gestures.count
        region = [Int](repeating: -1, count: n)
        trackers = [ContactTracker?](repeating: nil, count: n)
        // Sized when made: a claim allocates nothing.
        ids = c.gestures.map { g in
            var ids: [UInt32] = []
            ids.reserveCapacity(min(max(1, g.spec.maxFingers), contacts))
            return ids
        }
        slot = [Int](repeating: 0, count: n)
        claimed.reserveCapacity(n)
    }

    func has(_ g: Int) -> Bool { region[g] >= 0 }

    /// Gesture `g` keeps the fingers down in region `r` now (those `t` follows) as its own, at
    /// most `most` of them: from now on its summary follows only them.
    mutating func claim(_ g: Int, in r: Int, from t: borrowing ContactTracker, most: Int) {
        guard t.count > 0, region[g] < 0 else { return }
        claimed.append(g)
        // The fingers on the glass first: a lift the chatter filter holds is a finger already up,
        // taken only when the claim would otherwise go short.
        let all = t.contacts
        let own = all.contains(where: \.held)
            ? Array((all.filter { !$0.held } + all.filter { $0.held }).prefix(max(1, most)))
            : Array(all.prefix(max(1, most)))  // (as before the filters: one array a claim)
        region[g] = r
        ids[g].removeAll(keepingCapacity: true)
        for c in own { ids[g].append(c.id) }
        // Fewer than all: it follows its own from now on.
        trackers[g] = own.count < t.count ? ContactTracker(claiming: own) : nil
    }

    mutating func release(_ g: Int) {
        guard region[g] >= 0 else { return }
        region[g] = -1
        if let i = claimed.firstIndex(of: g) { claimed.remove(at: i) }
        trackers[g] = nil
        ids[g].removeAll(keepingCapacity: true)
    }

    mutating func releaseAll() {
        for g in region.indices { release(g) }
    }

    /// Contacts landed (each with the region it was hit-tested to): a claim whose region one
    /// landed in goes its own way, from the state it shared with its region until this frame
    /// (`regions`: the regions' trackers).
    mutating func split(by landings: FrameList<(contact: UInt32, leaf: Int)>, tree: RegionTree, regions: [ContactTracker]) {
        for g in claimed where region[g] >= 0 && trackers[g] == nil {
            let r = region[g]
            guard landings.contains(where: { $0.leaf >= 0 && tree.isAncestor(r, of: $0.leaf) }) else { continue }
            trackers[g] = ContactTracker(claiming: regions[r].contacts.filter { ids[g].contains($0.id) })
        }
    }

    /// Each claim's summary of `frame`: its region's (where `frames` says it is) while it shares
    /// the region's contacts, else its own, written into `summaries` from index `first` on.
    mutating func read(
        _ frame: TouchFrame, at time: Timestamp, frames: [RegionFrame], shape: [Bool], into summaries: inout [FrameSummary],
        from first: Int
    ) {
        var i = first
        for g in claimed where region[g] >= 0 {
            guard trackers[g] != nil else {
                slot[g] = frames[region[g]].slot
                continue
            }
            slot[g] = i
            if i == summaries.count { summaries.append(FrameSummary(time: time)) }
            trackers[g]!.update(frame, at: time, view: ClaimView(ids: ids[g]), shape: shape[g], into: &summaries[i])
            i += 1
        }
    }
}
