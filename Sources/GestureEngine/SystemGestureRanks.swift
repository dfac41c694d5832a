extension CompiledConfiguration {
    /// The file's system gestures (`GestureSpec.outranksClients`) outrank every client gesture
    /// they meet, and so does every file gesture that must fail before one of them may fire (the
    /// two-finger tap a Back swipe waits on): a client's gesture that outranked those would wait
    /// on the system gesture through them, a cycle. Both only where they can meet (one's region
    /// holds the other's) and the client did not make them simultaneous. A system stroke runs
    /// together with the client gestures it meets instead (see below).
    static func rankSystemGestures(
        _ regions: [CompiledRegion], _ gestures: [CompiledGesture], _ nesting: RegionTree, _ outranking: inout [Bool],
        _ together: inout [Bool], _ reasons: inout [ArenaPolicy.Rank?]
    ) {
        let n = gestures.count
        let client = gestures.map { regions[$0.region].fromClient }
        var gates = gestures.indices.map { gestures[$0].spec.outranksClients && !client[$0] }
        var queue = gestures.indices.filter { gates[$0] }
        while let s = queue.popLast() {
            for f in 0..<n where !client[f] && !gates[f] && outranking[f * n + s] {
                gates[f] = true
                queue.append(f)
            }
        }
        for f in 0..<n where gates[f] {
            for c in 0..<n where client[c] && !together[f * n + c] {
                let rf = gestures[f].region, rc = gestures[c].region
                guard nesting.isAncestor(rf, of: rc) || nesting.isAncestor(rc, of: rf) else { continue }
                outranking[c * n + f] = false
                reasons[c * n + f] = nil
                if gestures[f].spec.kind == .stroke {
                    // A stroke is decided at its lift: outranking, it would hold every client
                    // gesture it meets until then. It runs with them instead (a client's scroll
                    // goes on while the shape is drawn), and no client can rule it out.
                    outranking[f * n + c] = false
                    reasons[f * n + c] = nil
                    together[f * n + c] = true
                    together[c * n + f] = true
                } else {
                    outranking[f * n + c] = true
                    reasons[f * n + c] = .systemGesture
                }
            }
        }
    }
}
