/// A region after compilation: its place in the nesting, and its gestures by index.
public struct CompiledRegion: Sendable {
    public let name: String
    public let rect: PixelRect
    /// The smallest region that contains this one; nil for a top-level region.
    public let parent: Int?
    public let depth: Int
    public let drag: DragConstraints?
    /// Indices into `CompiledConfiguration.gestures`.
    public let gestures: [Int]
    /// A client's region (`RegionSpec.fromClient`).
    public let fromClient: Bool
    /// It holds a system gesture (`GestureSpec.outranksClients`).
    public let hasSystemGestures: Bool
    /// `RegionSpec.maxContacts`.
    public let maxContacts: Int?
    /// `RegionSpec.exclude`: contacts landing in it are no gesture's.
    public let exclude: Bool
    /// Its drag chained to an enclosing region's (`DragConstraints.chain`), resolved.
    public internal(set) var chain: CompiledChain?
}

/// A drag chain resolved: the enclosing region, the axis, which way moves the outer first, and
/// the outer region's pan (the gesture the outer's lines of a chained stroke are given as).
public struct CompiledChain: Hashable, Sendable {
    public let outer: Int
    public let vertical: Bool
    /// +1 or −1: a change of the offset of this sign moves the outer first.
    public let outerFirstSign: Double
    public let outerGesture: Int
}

/// A gesture after compilation: its spec and the region it belongs to.
public struct CompiledGesture: Sendable {
    public let spec: GestureSpec
    public let region: Int
    /// `region/name`, unique across the configuration.
    public let qualifiedName: String
}

/// The configuration ready for the engine: regions nested, names resolved, policy built.
/// Compilation is total: a name that resolves to nothing is ignored here (the config loader
/// refuses it with its file and line before it gets this far).
public struct CompiledConfiguration: Sendable {
    public let screen: PixelRect
    public let regions: [CompiledRegion]
    public let gestures: [CompiledGesture]
    public let policy: ArenaPolicy
    /// The regions' nesting, for "is this region inside that one" in O(1).
    let nesting: RegionTree
    /// The excluded regions (`RegionSpec.exclude`).
    let excluded: [Int]
    /// Per region: why its declared drag chain does not resolve (nil: none declared, or it does).
    public let chainProblems: [String?]
    /// Every stroke template: the configuration's, then the built-in shapes it does not redefine.
    public let strokeTemplates: [StrokeTemplate]
    /// The shapes' names, each once, in the order of their first template (a stroke event's
    /// `shape` indexes this).
    public let shapeNames: [String]
    let source: EngineConfiguration
    /// Which compile this is, numbered by whoever compiles successive configurations (the daemon
    /// numbers each reload and regions change): what was resolved against one configuration (a
    /// client's filter over its gesture indices) can tell whether an event still belongs to it.
    public var serial = 0

    public init(_ config: EngineConfiguration) {
        source = config
        screen = config.screen
        (strokeTemplates, shapeNames) = Self.shapes(config)
        let rects = config.regions.map { $0.rect ?? config.screen }

        // Nesting: the parent is the smallest other region containing this one; of two equal
        // rectangles the one declared later is inside the one declared earlier.
        var parents = [Int?](repeating: nil, count: rects.count)
        for i in rects.indices {
            var best: Int?
            for j in rects.indices where j != i && rects[j].contains(rects[i]) {
                let strictlyBigger = rects[j].area > rects[i].area
                guard strictlyBigger || j < i else { continue }
                if let b = best {
                    if rects[j].area < rects[b].area || (rects[j].area == rects[b].area && j > b) { best = j }
                } else {
                    best = j
                }
            }
            parents[i] = best
        }
        // Depths in declaration order of parents: a parent is declared before its child or is
        // strictly bigger, so walk each region's chain once, memoized.
        var depths = [Int](repeating: -1, count: rects.count)
        func depth(_ i: Int) -> Int {
            if depths[i] >= 0 { return depths[i] }
            var chain: [Int] = []
            var p: Int? = i
            while let q = p, depths[q] < 0, chain.count <= rects.count {
                chain.append(q)
                p = parents[q]
            }
            var d = p.map { depths[$0] } ?? -1
            for q in chain.reversed() {
                d += 1
                depths[q] = d
            }
            return depths[i]
        }

        var gestures: [CompiledGesture] = []
        var regions: [CompiledRegion] = []
        for (i, r) in config.regions.enumerated() {
            var indices: [Int] = []
            for g in r.gestures {
                indices.append(gestures.count)
                gestures.append(CompiledGesture(spec: g, region: i, qualifiedName: "\(r.name)/\(g.name)"))
            }
            regions.append(
                CompiledRegion(
                    name: r.name, rect: rects[i], parent: parents[i], depth: depth(i), drag: r.drag, gestures: indices,
                    fromClient: r.fromClient, hasSystemGestures: r.gestures.contains(where: \.outranksClients), maxContacts: r.maxContacts,
                    exclude: r.exclude))
        }
        var problems = [String?](repeating: nil, count: regions.count)
        for i in regions.indices {
            switch Self.resolveChain(i, config.regions[i], regions, gestures, parents) {
            case .success(let chain): regions[i].chain = chain
            case .failure(let why): problems[i] = why.reason
            }
        }
        Self.refuseDeepChains(&regions, &problems)
        chainProblems = problems
        self.regions = regions
        self.gestures = gestures

        nesting = RegionTree(parents: regions.map(\.parent))
        excluded = regions.indices.filter { regions[$0].exclude }
        policy = Self.buildPolicy(regions: regions, gestures: gestures, nesting: nesting)
    }

    struct ChainProblem: Error {
        var reason: String?
    }

    /// Region `i`'s drag chain, when it names an enclosing region with drag constraints on the
    /// chained axis, and both regions have a pan that can move along it; else why not (nil when
    /// the region declares no chain). The config loader refuses a chain with that reason.
    private static func resolveChain(
        _ i: Int, _ spec: RegionSpec, _ regions: [CompiledRegion], _ gestures: [CompiledGesture], _ parents: [Int?]
    ) -> Result<CompiledChain, ChainProblem> {
        guard let chain = spec.drag?.chain else { return .failure(ChainProblem(reason: nil)) }
        let name = regions[i].name
        guard regions.contains(where: { $0.name == chain.region }) else {
            return .failure(ChainProblem(reason: "region '\(name)' chains to '\(chain.region)', which is no region"))
        }
        var p = parents[i]
        var hops = 0
        while let q = p, regions[q].name != chain.region, hops <= regions.count {
            p = parents[q]
            hops += 1
        }
        guard let outer = p, regions[outer].name == chain.region else {
            return .failure(ChainProblem(reason: "region '\(name)' chains to '\(chain.region)', which does not enclose it (a chain hands motion outward)"))
        }
        let vertical = chain.outerFirst.isVertical
        let axis = vertical ? "y" : "x"
        func canPan(_ r: Int) -> Int? {
            regions[r].gestures.first { g in
                let s = gestures[g].spec
                return s.kind == .pan && (s.axis == .free || s.axis == (vertical ? .vertical : .horizontal))
            }
        }
        guard (vertical ? spec.drag?.y : spec.drag?.x) != nil else {
            return .failure(ChainProblem(reason: "region '\(name)' chains along \(axis) but has no [region.drag.\(axis)] (its content's range)"))
        }
        guard let drag = regions[outer].drag, (vertical ? drag.y : drag.x) != nil else {
            return .failure(ChainProblem(reason: "region '\(chain.region)' takes '\(name)''s motion along \(axis) but has no [region.drag.\(axis)]"))
        }
        guard canPan(i) != nil, let outerPan = canPan(outer) else {
            return .failure(ChainProblem(reason: "regions '\(name)' and '\(chain.region)' each need a pan that moves along \(axis) (axis \"\(vertical ? "vertical" : "horizontal")\" or free)"))
        }
        return .success(CompiledChain(outer: outer, vertical: vertical, outerFirstSign: chain.outerFirst.sign, outerGesture: outerPan))
    }

    /// Resolves a rule's name: `name` within the region, or `region/name` anywhere.
    public func resolve(_ name: String, from region: Int) -> Int? {
        Self.resolve(name, from: region, regions: regions, gestures: gestures)
    }

    private static func resolve(
        _ name: String, from region: Int, regions: [CompiledRegion], gestures: [CompiledGesture]
    ) -> Int? {
        if name.contains("/") { return gestures.firstIndex { $0.qualifiedName == name } }
        return regions[region].gestures.first { gestures[$0].spec.name == name }
    }

    /// Builds the policy in time proportional to the pairs that can meet (plus the rules): the
    /// nesting is asked in O(1) and every rule's name is resolved once, so deeply nested regions
    /// compile in milliseconds (a per-pair walk of the ancestry takes seconds).
    private static func buildPolicy(regions: [CompiledRegion], gestures: [CompiledGesture], nesting: RegionTree)
        -> ArenaPolicy
    {
        let n = gestures.count
        var outranking = [Bool](repeating: false, count: n * n)
        var together = [Bool](repeating: false, count: n * n)
        var reasons = [ArenaPolicy.Rank?](repeating: nil, count: n * n)
        var byQualifiedName: [String: Int] = [:]
        for (i, g) in gestures.enumerated() where byQualifiedName[g.qualifiedName] == nil { byQualifiedName[g.qualifiedName] = i }
        func resolveAll(_ list: [String], from region: Int) -> Set<Int> {
            Set(list.compactMap { name in
                name.contains("/")
                    ? byQualifiedName[name] : regions[region].gestures.first { gestures[$0].spec.name == name }
            })
        }
        let simultaneousWith = gestures.map { resolveAll($0.spec.simultaneousWith, from: $0.region) }
        let requiresFailureOf = gestures.map { resolveAll($0.spec.requiresFailureOf, from: $0.region) }
        for a in 0..<n {
            for b in 0..<n where a < b {
                let ra = gestures[a].region, rb = gestures[b].region
                // Only gestures on one path can meet in an arena.
                let aOuter = nesting.isAncestor(ra, of: rb)
                let bOuter = nesting.isAncestor(rb, of: ra)
                guard aOuter || bOuter else { continue }
                let sa = gestures[a].spec, sb = gestures[b].spec
                func set(_ hi: Int, _ lo: Int, _ why: ArenaPolicy.Rank) {
                    outranking[hi * n + lo] = true
                    reasons[hi * n + lo] = why
                }
                if simultaneousWith[a].contains(b) || simultaneousWith[b].contains(a) {
                    together[a * n + b] = true
                    together[b * n + a] = true
                } else if requiresFailureOf[a].contains(b) || requiresFailureOf[b].contains(a) {
                    // Both directions are recorded, so a cycle shows in `findCycle()`.
                    if requiresFailureOf[a].contains(b) { set(b, a, .requiresFailure) }
                    if requiresFailureOf[b].contains(a) { set(a, b, .requiresFailure) }
                } else if ra != rb {
                    let (outer, inner) = aOuter ? (a, b) : (b, a)
                    switch gestures[outer].spec.priority {
                    case .high: set(outer, inner, .highPriority)
                    case .simultaneous:
                        together[a * n + b] = true
                        together[b * n + a] = true
                    // A stroke is decided only at its lift: a gesture of a region around it does
                    // not wait for it (the first ready wins) unless a rule says so.
                    case .normal where gestures[inner].spec.kind == .stroke && gestures[outer].spec.kind != .stroke: break
                    case .normal: set(inner, outer, .innerRegion)
                    }
                } else if sa.minFingers > sb.maxFingers {
                    set(a, b, .moreFingers)
                } else if sb.minFingers > sa.maxFingers {
                    set(b, a, .moreFingers)
                }
            }
        }
        rankSystemGestures(regions, gestures, nesting, &outranking, &together, &reasons)
        return ArenaPolicy(
            count: n, outranking: outranking, together: together, reasons: reasons,
            takeover: ArenaPolicy.takeovers(regions, gestures, outranking: outranking, together: together),
            takers: gestures.map { ArenaPolicy.Taker(minFingers: $0.spec.minFingers, window: 2 * $0.spec.thresholds.ns.fingerSettle) })
    }

    /// A cycle in the outranking relation (each must fail before the next may fire), as gesture
    /// indices, or nil. A cycle would leave its members waiting on each other until the lift.
    public func findCycle() -> [Int]? {
        let n = gestures.count
        var color = [UInt8](repeating: 0, count: n)  // 0 new, 1 on stack, 2 done
        var stack: [Int] = []
        func visit(_ a: Int) -> [Int]? {
            color[a] = 1
            stack.append(a)
            for b in 0..<n where policy.outranks(a, b) {
                if color[b] == 1 {
                    let start = stack.firstIndex(of: b) ?? 0
                    return Array(stack[start...]) + [b]
                }
                if color[b] == 0, let c = visit(b) { return c }
            }
            stack.removeLast()
            color[a] = 2
            return nil
        }
        for a in 0..<n where color[a] == 0 {
            if let c = visit(a) { return c }
        }
        return nil
    }

    /// The innermost region containing `p` (the later-declared of equally deep ones). But a
    /// client's region never takes a touch from a region with a system gesture that also holds
    /// `p`: the touch then goes to the innermost region within that one (itself, or a region
    /// nested in it), which sees it either way. None in an excluded region (`exclude`).
    public func hitTest(_ p: PixelPoint) -> Int? {
        if isExcluded(p) { return nil }
        var best: Int?
        var system: Int?
        for i in regions.indices where regions[i].rect.contains(p) {
            if regions[i].hasSystemGestures && (system.map { regions[$0].depth <= regions[i].depth } ?? true) { system = i }
            if let b = best, regions[b].depth > regions[i].depth { continue }
            best = i
        }
        guard let b = best, let s = system, regions[b].fromClient, !nesting.isAncestor(s, of: b) else { return best }
        var within = s
        for i in regions.indices where regions[i].rect.contains(p) && nesting.isAncestor(s, of: i) {
            if regions[within].depth <= regions[i].depth { within = i }
        }
        return within
    }

    /// Some region is excluded (`RegionSpec.exclude`).
    public var hasExcludedRegions: Bool { !excluded.isEmpty }

    /// Does `p` lie in an excluded region (`RegionSpec.exclude`)? Most configurations have none.
    public func isExcluded(_ p: PixelPoint) -> Bool {
        for i in excluded where regions[i].rect.contains(p) { return true }
        return false
    }
}

/// The regions' nesting as a tree, numbered in one depth-first walk so that "is `a` on `b`'s path
/// to the top" (a region counts as on its own path) is two comparisons.
struct RegionTree: Sendable {
    private var enter: [Int]
    private var exit: [Int]

    init(parents: [Int?]) {
        let n = parents.count
        var children = [[Int]](repeating: [], count: n)
        var roots: [Int] = []
        for (i, p) in parents.enumerated() {
            if let p { children[p].append(i) } else { roots.append(i) }
        }
        enter = [Int](repeating: 0, count: n)
        exit = [Int](repeating: 0, count: n)
        var clock = 0
        // Iterative, so a deep nesting cannot exhaust the stack.
        var stack: [(node: Int, next: Int)] = roots.reversed().map { ($0, 0) }
        while var top = stack.popLast() {
            if top.next == 0 {
                enter[top.node] = clock
                clock += 1
            }
            if top.next < children[top.node].count {
                let child = children[top.node][top.next]
                top.next += 1
                stack.append(top)
                stack.append((child, 0))
            } else {
                exit[top.node] = clock
                clock += 1
            }
        }
    }

    func isAncestor(_ a: Int, of b: Int) -> Bool { enter[a] <= enter[b] && exit[b] <= exit[a] }
}
