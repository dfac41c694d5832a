import GestureEngine

/// `[[region]]`, `[[region.gesture]]` and `[region.drag]`: names, rectangles, gestures with their
/// thresholds and rules, drag bounds; and the rule check over the whole configuration.
extension Loader {
    /// Names are identifiers: they appear in every gesture line, in logs and in rules, so they
    /// are short and hold no control character (a newline or ESC in a name would forge log lines).
    func checkName(_ name: String, _ scope: Scope, _ what: String) throws(ConfigError) {
        if let why = Self.nameProblem(name, what) { throw scope.fail("name", why) }
    }

    /// What is wrong with a name (nil: nothing).
    static func nameProblem(_ name: String, _ what: String) -> String? {
        let a = what.first == "a" ? "an" : "a"
        guard !name.isEmpty, !name.contains("/") else { return "\(a) \(what) name must be non-empty and hold no '/'" }
        guard name.utf8.count <= ConfigLimits.nameBytes else {
            return "\(a) \(what) name may have \(ConfigLimits.nameBytes) bytes at most, found \(name.utf8.count)"
        }
        if let bad = name.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "\(a) \(what) name may hold no control character (U+\(String(bad.value, radix: 16, uppercase: true)))"
        }
        return nil
    }

    mutating func readRegion(_ r: Scope, thresholds: Thresholds, screen: PixelRect, existing: [RegionSpec])
        throws(ConfigError) -> RegionSpec
    {
        try r.checkKeys(["name", "rect", "priority", "standard_gestures", "gesture", "drag", "emulate", "pointer", "max_contacts", "exclude"])
        guard let name = try r.string("name") else { throw r.fail(nil, "a [[region]] needs a 'name'") }
        try checkName(name, r, "region")
        if existing.contains(where: { $0.name == name }) { throw r.fail("name", "region '\(name)' is defined twice") }
        var rect: PixelRect?
        if let v = try r.numbers("rect", count: 4) {
            guard v[2] > 0 && v[3] > 0 else { throw r.fail("rect", "'rect' is [x, y, width, height] with width and height more than 0") }
            guard v.allSatisfy({ abs($0) <= Self.pixelLimit }) else {
                throw r.fail("rect", "'rect' numbers must lie within ±\(Int(Self.pixelLimit)) px")
            }
            rect = PixelRect(x: v[0], y: v[1], width: v[2], height: v[3])
        }
        let priority = try r.choice("priority", Priority.self) ?? .normal

        var gestures: [GestureSpec] = []
        var lines: [(header: Int, requires: Int?, simultaneous: Int?)] = []
        // Which gestures are still the standard set's (a gesture of the file may replace each once).
        var fromStandard: [Bool] = []
        if try r.bool("standard_gestures") == true {
            for var g in EngineConfiguration.standardGestures(thresholds: thresholds) {
                g.priority = priority
                gestures.append(g)
                lines.append((r.table.line(of: "standard_gestures"), nil, nil))
                fromStandard.append(true)
            }
        }
        let scopes = try r.subtables("gesture", label: "[[region.gesture]] of region '\(name)'")
        for g in scopes {
            let spec = try readGesture(g, thresholds: thresholds, priority: priority)
            if let i = gestures.firstIndex(where: { $0.name == spec.name }) {
                if i < fromStandard.count && fromStandard[i] {
                    // A gesture of the standard set is replaced by one of the same name.
                    gestures[i] = spec
                    lines[i] = (g.table.line, g.table.lines["requires_failure_of"], g.table.lines["simultaneous_with"])
                    fromStandard[i] = false
                    continue
                }
                throw g.fail("name", "gesture '\(spec.name)' is defined twice in region '\(name)'")
            }
            gestures.append(spec)
            lines.append((g.table.line, g.table.lines["requires_failure_of"], g.table.lines["simultaneous_with"]))
        }
        if let mapping = try readPointer(r, thresholds: thresholds, priority: priority, gestures: &gestures, lines: &lines) {
            pointerRegions.append(PointerRegion(name: name, mapping: mapping, line: r.table.line(of: "emulate")))
        }
        ruleLines.append(lines)
        ruleFiles.append(r.file)
        var drag: DragConstraints?
        if let d = try r.subtable("drag") {
            drag = try readDrag(d)
            chainLines.append(drag?.chain == nil ? nil : d.table.line(of: "chain"))
        } else {
            chainLines.append(nil)
        }
        var spec = RegionSpec(name: name, rect: rect, gestures: gestures, drag: drag)
        // One finger (no pinch-zoom in the app) to ten (a panel's usual slots).
        spec.maxContacts = try r.integer("max_contacts", in: 1...10)
        spec.exclude = try r.bool("exclude") ?? false
        let standard = try r.bool("standard_gestures") == true
        let given = (standard ? ["standard_gestures"] : []) + ["gesture", "drag", "emulate", "pointer", "max_contacts"].filter { r.table[$0] != nil }
        if spec.exclude, let other = given.first {
            // (A client's `gestures` is read as the file's `gesture`: named as either may have written it.)
            let what = other == "gesture" ? "it takes no gestures" : "'\(other)' does not apply"
            throw r.fail(other, "region '\(name)' is excluded from gestures (exclude = true): \(what)")
        }
        return spec
    }

    func readGesture(_ g: Scope, thresholds: Thresholds, priority: Priority) throws(ConfigError) -> GestureSpec {
        guard let kind = try g.choice("kind", GestureKind.self) else {
            throw g.fail(nil, "a gesture needs a 'kind' (\(GestureKind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var allowed = ["kind", "name", "priority", "requires_failure_of", "simultaneous_with", "cancels_touches", "delays_touches_began"] + ThresholdKey.all.map(\.key)
        switch kind {
        case .tap: allowed += ["fingers", "count"]
        case .longPress, .edgeSwipe: allowed += ["fingers"]
        case .pan: allowed += ["fingers", "min_fingers", "max_fingers", "axis"]
        case .pinch: allowed += ["min_fingers", "max_fingers"]
        case .swipe: allowed += ["fingers", "min_fingers", "max_fingers", "sectors", "directions"]
        case .stroke: allowed += ["fingers", "min_fingers", "max_fingers", "shapes"]
        }
        if kind == .edgeSwipe { allowed.append("edges") }
        for k in g.table.keys where !allowed.contains(k) {
            if ["fingers", "min_fingers", "max_fingers", "count", "axis", "sectors", "directions", "edges", "shapes"].contains(k) {
                throw g.fail(k, "'\(k)' does not apply to a \(kind.rawValue)")
            }
        }
        try g.checkKeys(allowed)

        var t = thresholds
        try readThresholds(g, into: &t)
        let name = try g.string("name") ?? kind.rawValue
        try checkName(name, g, "gesture")
        let fingers = try g.integer("fingers", in: 1...10)
        // `fingers` sets both bounds: one beside it would say two things at once.
        if fingers != nil, let both = ["min_fingers", "max_fingers"].first(where: { g.table[$0] != nil }) {
            throw g.fail(both, "'fingers' sets both 'min_fingers' and 'max_fingers': give 'fingers', or the two bounds")
        }
        let minF = try g.integer("min_fingers", in: 1...10) ?? fingers ?? (kind == .pinch ? 2 : 1)
        let maxF = try g.integer("max_fingers", in: 1...10) ?? fingers ?? (kind == .pinch ? 5 : minF)
        if kind == .pinch && minF < 2 { throw g.fail("min_fingers", "a pinch needs at least 2 fingers") }
        if minF > maxF { throw g.fail("max_fingers", "'max_fingers' (\(maxF)) is less than 'min_fingers' (\(minF))") }

        var spec = GestureSpec(kind, name: name, fingers: minF, maxFingers: maxF, thresholds: t)
        spec.priority = try g.choice("priority", Priority.self) ?? priority
        spec.tapCount = try g.integer("count", in: 1...5) ?? 1
        spec.axis = try g.choice("axis", PanAxis.self) ?? .free
        spec.cancelsTouches = try g.bool("cancels_touches")
        spec.delaysTouchesBegan = Int64(try g.integer("delays_touches_began", in: 0...1000) ?? 0) * 1_000_000
        if let sectors = try g.integer("sectors", in: 4...8) {
            guard sectors == 4 || sectors == 8 else { throw g.fail("sectors", "'sectors' must be 4 or 8, found \(sectors)") }
            spec.directionCount = sectors
        }
        if let dirs = try g.strings("directions") {
            for d in dirs {
                guard let dir = SwipeDirection(rawValue: d) else {
                    throw g.fail("directions", "unknown direction \"\(d)\" (\(SwipeDirection.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                if spec.directionCount == 4 && d.contains("_") {
                    if g.table["sectors"] == nil { spec.directionCount = 8 } else {
                        throw g.fail("directions", "\"\(d)\" is a diagonal: set 'sectors = 8'")
                    }
                }
                spec.directions.insert(dir)
            }
        }
        if let edges = try g.strings("edges") {
            for e in edges {
                guard let edge = ScreenEdge(rawValue: e) else {
                    throw g.fail("edges", "unknown edge \"\(e)\" (left, right, top, bottom)")
                }
                spec.edges.insert(edge)
            }
        }
        spec.shapes = try readShapes(g)
        spec.requiresFailureOf = try g.strings("requires_failure_of") ?? []
        spec.simultaneousWith = try g.strings("simultaneous_with") ?? []
        for (list, key) in [(spec.requiresFailureOf, "requires_failure_of"), (spec.simultaneousWith, "simultaneous_with")]
        where list.count > ConfigLimits.namesPerRule {
            throw g.fail(key, "'\(key)' names \(list.count) gestures; \(ConfigLimits.namesPerRule) at most")
        }
        return spec
    }

    /// The farthest a pixel number may lie from the screen's origin: a desktop of 16 8K
    /// monitors in a row is under 131,072 px wide; past 2^20 a number is a typo, and its
    /// arithmetic (a drag's offset, a rubber band) would lose its fractions.
    static let pixelLimit = 1_048_576.0
    /// `regionNotices` for region `r`, read from `scope`, one of the file's `regions`.
    mutating func noteRegion(_ r: RegionSpec, _ scope: Scope, among regions: [RegionSpec], screen: PixelRect, mode: DeviceMode) {
        func at(_ key: String) -> String { "\(scope.table.file(of: key) ?? scope.file):\(scope.table.line(of: key))" }
        if let rect = r.rect, rect.x >= screen.width || rect.y >= screen.height || rect.x + rect.width <= 0 || rect.y + rect.height <= 0 {
            regionNotices.append("\(at("rect")): region '\(r.name)' lies off the screen (\(format(screen.width))×\(format(screen.height)) px): no touch reaches it")
        }
        // A touch landing in an excluded region is no gesture's, whatever lies over it.
        if !r.exclude && (!r.gestures.isEmpty || r.maxContacts != nil), let area = (r.rect ?? screen).clipped(to: screen),
            let e = regions.first(where: { $0.exclude && ($0.rect ?? screen).contains(area) })
        {
            regionNotices.append("\(at(r.rect == nil ? "name" : "rect")): region '\(r.name)' lies wholly in excluded region '\(e.name)' (exclude = true) on the screen: no touch landing there reaches its gestures or counts in its max_contacts")
        }
        if mode != .passthrough, r.maxContacts != nil {
            regionNotices.append("\(at("max_contacts")): region '\(r.name)': max_contacts limits what the virtual touchscreen shows, which only [device] mode = \"passthrough\" makes")
        }
    }

    /// Snap points an axis may hold (a carousel of pages, a sheet's detents).
    static let snapPointLimit = 256

    func readDrag(_ d: Scope) throws(ConfigError) -> DragConstraints {
        try d.checkKeys(["x", "y", "projection", "initial", "chain", "chain_outer_first"])
        var drag = DragConstraints()
        for axis in ["x", "y"] {
            guard let a = try d.subtable(axis) else { continue }
            try a.checkKeys(["min", "max", "mode", "factor", "limit", "snap"])
            var c = AxisConstraint()
            c.min = try a.number("min", allowInfinity: true) ?? -.infinity
            c.max = try a.number("max", allowInfinity: true) ?? .infinity
            for (key, v) in [("min", c.min), ("max", c.max)] where v.isFinite && abs(v) > Self.pixelLimit {
                throw a.fail(key, "'\(key)' must be -inf, inf or within ±\(Int(Self.pixelLimit)) px, found \(format(v))")
            }
            // -inf / inf mean "no bound"; a bound at the other infinity would put every offset
            // there (and an infinite offset cannot be written as JSON).
            if c.min == .infinity { throw a.fail("min", "'min' may be -inf (no lower bound) but not inf") }
            if c.max == -.infinity { throw a.fail("max", "'max' may be inf (no upper bound) but not -inf") }
            if c.min > c.max { throw a.fail("max", "'max' (\(format(c.max))) is less than 'min' (\(format(c.min)))") }
            c.mode = try a.choice("mode", AxisConstraint.Mode.self) ?? .clamp
            if let f = try a.number("factor", atLeast: 0) {
                guard f <= 1 else { throw a.fail("factor", "'factor' must be from 0 to 1, found \(format(f))") }
                c.rubberBandFactor = f
            }
            c.rubberBandLimit = try a.number("limit", in: 1...Self.pixelLimit, unit: "px") ?? c.rubberBandLimit
            c.snapPoints = try a.numbers("snap") ?? []
            guard c.snapPoints.count <= Self.snapPointLimit, c.snapPoints.allSatisfy({ abs($0) <= Self.pixelLimit }) else {
                throw a.fail("snap", "'snap' holds at most \(Self.snapPointLimit) points, each within ±\(Int(Self.pixelLimit)) px")
            }
            // A rest outside the bounds could never be reached by a drag, and once there the
            // region would never move again (every offset clamped back past it).
            if let p = c.snapPoints.first(where: { $0 < c.min || $0 > c.max }) {
                throw a.fail("snap", "the snap point \(format(p)) lies outside the bounds (min \(format(c.min)), max \(format(c.max)))")
            }
            if axis == "x" { drag.x = c } else { drag.y = c }
        }
        if let p = try d.number("projection", in: 0...10_000, unit: "ms") {
            drag.projection = .nanoseconds(Int64(p * 1e6))
        }
        if let i = try d.numbers("initial", count: 2) {
            guard i.allSatisfy({ abs($0) <= Self.pixelLimit }) else {
                throw d.fail("initial", "'initial' numbers must lie within ±\(Int(Self.pixelLimit)) px")
            }
            // Where the region rests before any drag: within its bounds, as a snap point is.
            for (v, c, axis) in [(i[0], drag.x, "x"), (i[1], drag.y, "y")] {
                guard let c, v < c.min || v > c.max else { continue }
                throw d.fail("initial", "'initial' \(axis) \(format(v)) lies outside the bounds (min \(format(c.min)), max \(format(c.max)))")
            }
            drag.initial = PixelPoint(x: i[0], y: i[1])
        }
        drag.chain = try readChain(d)
        return drag
    }

    /// Names in rules must resolve; require-failure must not go round in a circle.
    func checkRules(_ engine: EngineConfiguration, _ scopes: [Scope]) throws(ConfigError) {
        let compiled = CompiledConfiguration(engine)
        func fail(_ line: Int?, _ fallback: Int, _ reason: String, region: Int) -> ConfigError {
            ConfigError(file: region < ruleFiles.count ? ruleFiles[region] : file, line: line ?? fallback, reason: reason)
        }
        for (ri, region) in engine.regions.enumerated() {
            for (gi, g) in region.gestures.enumerated() {
                let lines = ri < ruleLines.count && gi < ruleLines[ri].count ? ruleLines[ri][gi] : (header: 1, requires: nil, simultaneous: nil)
                let me = compiled.regions[ri].gestures[gi]
                for (list, key, line) in [
                    (g.requiresFailureOf, "requires_failure_of", lines.requires),
                    (g.simultaneousWith, "simultaneous_with", lines.simultaneous),
                ] {
                    for name in list {
                        guard let other = compiled.resolve(name, from: ri) else {
                            let known = region.gestures.map(\.name).joined(separator: ", ")
                            throw fail(line, lines.header, "unknown gesture '\(name)' in \(key) of '\(region.name)/\(g.name)' (region '\(region.name)' has: \(known); name another region's as region/name)", region: ri)
                        }
                        if other == me { throw fail(line, lines.header, "'\(region.name)/\(g.name)' names itself in \(key)", region: ri) }
                    }
                }
            }
        }
        for (ri, problem) in compiled.chainProblems.enumerated() {
            guard let problem else { continue }
            let line = ri < chainLines.count ? chainLines[ri] : nil
            throw ConfigError(file: ri < ruleFiles.count ? ruleFiles[ri] : file, line: line ?? 1, reason: problem)
        }
        if let cycle = compiled.findCycle() {
            let names = cycle.map { compiled.gestures[$0].qualifiedName }
            var why: [String] = []
            for (a, b) in zip(cycle, cycle.dropFirst()) {
                why.append(compiled.policy.rank(a, over: b)?.rawValue ?? "?")
            }
            // Name the line of a requires_failure_of that takes part, else the first gesture's header.
            func lines(of g: Int) -> (header: Int, requires: Int?, simultaneous: Int?) {
                let r = compiled.gestures[g].region
                guard let i = compiled.regions[r].gestures.firstIndex(of: g), r < ruleLines.count, i < ruleLines[r].count
                else { return (header: 1, requires: nil, simultaneous: nil) }
                return ruleLines[r][i]
            }
            let named = cycle.first { lines(of: $0).requires != nil } ?? cycle[0]
            let lines = lines(of: named)
            throw fail(lines.requires, lines.header,
                "rule cycle: \(names.joined(separator: " → ")) (each must fail before the next may fire: \(why.joined(separator: ", ")))",
                region: compiled.gestures[named].region)
        }
    }
}
