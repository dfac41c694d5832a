import GestureEngine

/// Gestures that can never be recognized: in one region, of two gestures of equal rank that
/// neither share touches (`simultaneous_with`) nor wait for each other, the one listed first
/// wins the touches both would take. A later gesture of the same kind and thresholds that takes
/// no touch the earlier one would not, and that no rule names (a gesture sharing with it or
/// waiting for it may beat the earlier one and let it through), never wins: check-config and the
/// daemon's start say so. Only sure cases are named; a gesture that fires rarely is not.
extension EngineConfiguration {
    /// One warning for each gesture an earlier one of its region shadows.
    public var shadowedGestures: [String] { shadows.map(\.warning) }

    /// Each gesture an earlier one of its region shadows: its region's and its own index, and
    /// the warning (the loader puts the gesture's file and line before it).
    var shadows: [(region: Int, gesture: Int, warning: String)] {
        // Every gesture some rule names (`region/name`): another gesture that shares its touches
        // or waits for it may beat the earlier one and let it through, so it is never named.
        var named = Set<String>()
        for r in regions {
            for g in r.gestures {
                for n in g.simultaneousWith + g.requiresFailureOf { named.insert(n.contains("/") ? n : "\(r.name)/\(n)") }
            }
        }
        var warnings: [(region: Int, gesture: Int, warning: String)] = []
        for (i, region) in regions.enumerated() {
            for (j, later) in region.gestures.enumerated() where !named.contains("\(region.name)/\(later.name)") {
                guard let earlier = region.gestures[..<j].first(where: { Self.shadows($0, later) }) else { continue }
                // An action makes its gesture a system gesture (it outranks clients' gestures):
                // where a client's region takes the touch from an earlier gesture that is none,
                // the later one may get it; nowhere else.
                let unless = later.outranksClients && !earlier.outranksClients ? " where no client's region takes the touch from '\(earlier.name)'" : ""
                warnings.append(
                    (i, j, "region '\(region.name)': gesture '\(later.name)' can never be recognized\(unless): '\(earlier.name)', listed before it, takes every touch it would (the same kind and thresholds); make them simultaneous_with each other, narrow '\(earlier.name)', or remove one"))
            }
        }
        return warnings
    }

    /// Does `a` (listed first) take every touch `b` (named by no rule) would?
    static func shadows(_ a: GestureSpec, _ b: GestureSpec) -> Bool {
        // The cheap comparisons first: a region of a thousand gestures compares every pair.
        guard a.kind == b.kind, a.tapCount == b.tapCount, a.minFingers <= b.minFingers, b.maxFingers <= a.maxFingers,
            a.priority == b.priority, a.priority != .simultaneous,
            a.directionCount == b.directionCount, a.axis == .free || a.axis == b.axis
        else { return false }
        // A pan or a pinch needing more fingers takes over one that began with fewer
        // (`ArenaPolicy.takeovers`); an edge swipe of more edges reads a corner as the nearest
        // edge, which may fail where one edge alone goes inward.
        if (a.kind == .pan || a.kind == .pinch) && a.minFingers != b.minFingers { return false }
        if a.kind == .edgeSwipe && Set(a.edges.isEmpty ? ScreenEdge.allCases : Array(a.edges)) != Set(b.edges.isEmpty ? ScreenEdge.allCases : Array(b.edges)) {
            return false
        }
        // `b` shares touches with no gesture `a` does not, and waits for all `a` waits for (else
        // a third gesture may beat `a` and let `b` through, or `b` fire while `a` still waits).
        guard Set(b.simultaneousWith).isSubset(of: a.simultaneousWith), Set(a.requiresFailureOf).isSubset(of: b.requiresFailureOf) else {
            return false
        }
        // `b`'s touches are among `a`'s.
        func within<T>(_ mine: Set<T>, _ theirs: Set<T>) -> Bool { theirs.isEmpty || (!mine.isEmpty && mine.isSubset(of: theirs)) }
        return within(b.directions, a.directions) && within(Set(b.shapes), Set(a.shapes)) && a.thresholds == b.thresholds
    }
}
