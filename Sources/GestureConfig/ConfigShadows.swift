import GestureEngine

/// Gestures that can never be recognized: in one region, of two gestures of equal rank that
/// neither share touches (`simultaneous_with`) nor wait for each other, the one listed first
/// wins the touches both would take. A later gesture of the same kind and thresholds that takes
/// no touch the earlier one would not (no more fingers, no other direction, edge, axis or shape,
/// and waiting for every gesture the earlier one waits for) never wins: check-config and the
/// daemon's start say so. Only certain cases are named; a gesture that fires rarely is not.
extension EngineConfiguration {
    /// One warning for each gesture an earlier one of its region shadows.
    public var shadowedGestures: [String] {
        var warnings: [String] = []
        for region in regions {
            for (j, later) in region.gestures.enumerated() {
                guard let earlier = region.gestures[..<j].first(where: { Self.shadows($0, later, region: region.name) }) else { continue }
                warnings.append(
                    "region '\(region.name)': gesture '\(later.name)' can never be recognized: '\(earlier.name)', listed before it, takes every touch it would (the same kind and thresholds); make them simultaneous_with each other, narrow '\(earlier.name)', or remove one")
            }
        }
        return warnings
    }

    /// Does `a` (listed first) take every touch `b` would?
    static func shadows(_ a: GestureSpec, _ b: GestureSpec, region: String) -> Bool {
        func names(_ g: GestureSpec) -> Set<String> { [g.name, "\(region)/\(g.name)"] }
        guard a.kind == b.kind, a.priority == b.priority, a.priority != .simultaneous, a.outranksClients == b.outranksClients,
            a.thresholds == b.thresholds, a.tapCount == b.tapCount, a.directionCount == b.directionCount
        else { return false }
        // Neither shares touches with the other, and `b` waits for all `a` waits for (else `b`
        // may fire while `a` still waits).
        guard names(b).isDisjoint(with: a.simultaneousWith), names(a).isDisjoint(with: b.simultaneousWith),
            names(b).isDisjoint(with: a.requiresFailureOf), Set(a.requiresFailureOf).isSubset(of: b.requiresFailureOf)
        else { return false }
        // `b`'s touches are among `a`'s.
        func within<T>(_ mine: Set<T>, _ theirs: Set<T>) -> Bool { theirs.isEmpty || (!mine.isEmpty && mine.isSubset(of: theirs)) }
        return a.minFingers <= b.minFingers && b.maxFingers <= a.maxFingers && (a.axis == .free || a.axis == b.axis)
            && within(b.directions, a.directions) && within(b.edges, a.edges) && within(Set(b.shapes), Set(a.shapes))
    }
}
