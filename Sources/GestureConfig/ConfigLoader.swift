import GestureEngine
import TouchFrames


/// Reads a configuration file's text. Every refusal names the file, the line and the reason:
/// `kiosk.toml:12: unknown key 'slopp' in [[region.gesture]] (known: ...)`.
public enum ConfigLoader {
    /// Extra top-level sections owned by other parts (the daemon's `[daemon]`), passed through
    /// unparsed so each part can read its own.
    public static func parse(_ text: String, file: String) throws(ConfigError) -> Configuration {
        try parse(bytes: Array(text.utf8), file: file)
    }

    /// A file's bytes: bytes that are not UTF-8 are refused with their line, like any TOML error.
    public static func parse(bytes: [UInt8], file: String) throws(ConfigError) -> Configuration {
        let root: TOMLTable
        do {
            root = try parseTOML(bytes: bytes)
        } catch {
            throw ConfigError(file: file, line: error.line, reason: error.reason)
        }
        var loader = Loader(file: file)
        return try loader.load(root)
    }

    /// Regions sent by a client (`set_regions`), in the `[[region]]` schema, added to `base`.
    /// Refused like a config file's (`file` names the client), and also when a name clashes
    /// with a region already there.
    public static func clientRegions(_ tables: [TOMLTable], base: Configuration, file: String) throws(ConfigError)
        -> [RegionSpec]
    {
        guard tables.count <= ConfigLimits.regionsPerClient else {
            throw ConfigError(file: file, line: 1, reason: "a client may set \(ConfigLimits.regionsPerClient) regions at most, found \(tables.count)")
        }
        var loader = Loader(file: file)
        loader.ruleLines = base.engine.regions.map { r in r.gestures.map { _ in (header: 1, requires: nil, simultaneous: nil) } }
        var regions = base.engine.regions
        var added: [RegionSpec] = []
        let thresholds = base.engine.regions.first?.gestures.first?.thresholds ?? .standard
        for t in tables {
            let scope = Scope(table: t, file: file, name: "a region")
            var r = try loader.readRegion(scope, thresholds: thresholds, screen: base.engine.screen, existing: regions)
            // A client's region covers at most the screen: larger, it would become the parent of
            // the file's full-screen region and, with priority high, take every gesture.
            if let rect = r.rect {
                guard let inside = rect.clipped(to: base.engine.screen) else {
                    throw scope.fail("rect", "region '\(r.name)' lies outside the screen")
                }
                r.rect = inside
            }
            regions.append(r)
            added.append(r)
        }
        let gestures = added.reduce(0) { $0 + $1.gestures.count }
        guard gestures <= ConfigLimits.gesturesPerClient else {
            throw ConfigError(file: file, line: 1, reason: "a client may set \(ConfigLimits.gesturesPerClient) gestures at most, found \(gestures)")
        }
        try loader.checkRules(EngineConfiguration(screen: base.engine.screen, regions: regions), [])
        return added
    }
}

/// Bounds on what a config or a client may declare, so that no request can make the daemon's
/// compile or its arenas large (docs/PROTOCOL.md, set_regions).
public enum ConfigLimits {
    /// Bytes in a region or gesture name.
    public static let nameBytes = 64
    /// Regions in one client's set_regions.
    public static let regionsPerClient = 32
    /// Gestures in one client's regions.
    public static let gesturesPerClient = 64
    /// Gestures in all clients' regions together.
    public static let gesturesOfAllClients = 256
}

/// A table being read: typed getters that fail with the key's line.
struct Scope {
    let table: TOMLTable
    let file: String
    let name: String

    func fail(_ key: String?, _ reason: String) -> ConfigError {
        ConfigError(file: file, line: key.map { table.line(of: $0) } ?? table.line, reason: reason)
    }

    func checkKeys(_ allowed: [String]) throws(ConfigError) {
        for k in table.keys where !allowed.contains(k) {
            throw fail(k, "unknown key '\(k)' in \(name.isEmpty ? "the top level" : name) (known: \(allowed.joined(separator: ", ")))")
        }
    }

    func value(_ key: String) throws(ConfigError) -> TOMLValue? {
        switch table[key] {
        case nil: return nil
        case .value(let v): return v
        case .table, .tables: throw fail(key, "'\(key)' in \(name.isEmpty ? "the top level" : name) must be a value, not a table")
        }
    }

    func number(
        _ key: String, atLeast low: Double? = nil, above: Double? = nil, atMost high: Double? = nil, allowInfinity: Bool = false
    ) throws(ConfigError) -> Double? {
        guard let v = try value(key) else { return nil }
        guard let d = v.number else { throw fail(key, "'\(key)' must be a number, found \(v.typeName)") }
        if d.isNaN { throw fail(key, "'\(key)' is NaN") }
        if d.isInfinite && !allowInfinity { throw fail(key, "'\(key)' must be finite") }
        if let low, d < low { throw fail(key, "'\(key)' must be at least \(format(low)), found \(format(d))") }
        if let above, d <= above { throw fail(key, "'\(key)' must be more than \(format(above)), found \(format(d))") }
        if let high, d > high { throw fail(key, "'\(key)' must be at most \(format(high)), found \(format(d))") }
        return d
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let v = try value(key) else { return nil }
        guard case .integer(let i) = v.kind else { throw fail(key, "'\(key)' must be an integer, found \(v.typeName)") }
        guard range.contains(Int(i)) else {
            throw fail(key, "'\(key)' must be from \(range.lowerBound) to \(range.upperBound), found \(i)")
        }
        return Int(i)
    }

    func string(_ key: String) throws(ConfigError) -> String? {
        guard let v = try value(key) else { return nil }
        guard case .string(let s) = v.kind else { throw fail(key, "'\(key)' must be a string, found \(v.typeName)") }
        return s
    }

    func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let v = try value(key) else { return nil }
        guard case .bool(let b) = v.kind else { throw fail(key, "'\(key)' must be true or false, found \(v.typeName)") }
        return b
    }

    func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) throws(ConfigError) -> E?
    where E.RawValue == String {
        guard let s = try string(key) else { return nil }
        guard let e = E(rawValue: s) else {
            throw fail(key, "'\(key)' must be one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \"\(s)\"")
        }
        return e
    }

    func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let v = try value(key) else { return nil }
        guard case .array(let items) = v.kind else { throw fail(key, "'\(key)' must be an array of strings") }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item.kind else { throw fail(key, "'\(key)' must hold strings only, found \(item.typeName)") }
            out.append(s)
        }
        return out
    }

    func numbers(_ key: String, count: Int? = nil) throws(ConfigError) -> [Double]? {
        guard let v = try value(key) else { return nil }
        guard case .array(let items) = v.kind else { throw fail(key, "'\(key)' must be an array of numbers") }
        var out: [Double] = []
        for item in items {
            guard let d = item.number else { throw fail(key, "'\(key)' must hold numbers only, found \(item.typeName)") }
            guard d.isFinite else { throw fail(key, "'\(key)' must hold finite numbers") }
            out.append(d)
        }
        if let count, out.count != count { throw fail(key, "'\(key)' must hold \(count) numbers, found \(out.count)") }
        return out
    }

    func subtable(_ key: String) throws(ConfigError) -> Scope? {
        switch table[key] {
        case nil: return nil
        case .table(let t):
            return Scope(table: t, file: file, name: name.isEmpty ? "[\(key)]" : "[\(name.trimmingBrackets).\(key)]")
        case .value, .tables: throw fail(key, "'\(key)' in \(name.isEmpty ? "the top level" : name) must be a table")
        }
    }

    func subtables(_ key: String, label: String) throws(ConfigError) -> [Scope] {
        switch table[key] {
        case nil: return []
        case .tables(let list): return list.map { Scope(table: $0, file: file, name: label) }
        case .table(let t): return [Scope(table: t, file: file, name: label)]
        case .value(let v):
            // An array of inline tables: gesture = [{ kind = "tap" }, ...]
            if case .array(let items) = v.kind {
                var out: [Scope] = []
                for item in items {
                    guard case .table(let t) = item.kind else { break }
                    out.append(Scope(table: t, file: file, name: label))
                }
                if out.count == items.count { return out }
            }
            throw fail(key, "'\(key)' must be an array of tables ([[\(key)]])")
        }
    }
}

extension String {
    var trimmingBrackets: String { String(self.drop { $0 == "[" }.reversed().drop { $0 == "]" }.reversed()) }
}

func format(_ d: Double) -> String {
    d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
}

struct Loader {
    let file: String
    /// Lines of each gesture's rules, for errors found after compiling.
    var ruleLines: [[(header: Int, requires: Int?, simultaneous: Int?)]] = []

    init(file: String) { self.file = file }

    mutating func load(_ root: TOMLTable) throws(ConfigError) -> Configuration {
        let top = Scope(table: root, file: file, name: "")
        try top.checkKeys(["screen", "device", "panel", "thresholds", "region", "daemon"])
        var daemon = DaemonSettings()
        if let d = try top.subtable("daemon") { daemon = try readDaemon(d) }

        var geometry = GeometryConfiguration()
        if let screen = try top.subtable("screen") {
            try screen.checkKeys(["width", "height"])
            geometry.screenWidth = try screen.number("width", atLeast: 1, atMost: 65536) ?? geometry.screenWidth
            geometry.screenHeight = try screen.number("height", atLeast: 1, atMost: 65536) ?? geometry.screenHeight
        }
        if let device = try top.subtable("device") {
            try device.checkKeys(["rotation", "calibration", "width_mm", "height_mm", "output"])
            try readGeometry(device, into: &geometry)
        }
        var panels: [PanelGeometry] = []
        for p in try top.subtables("panel", label: "[[panel]]") {
            try p.checkKeys(["match", "rotation", "calibration", "width_mm", "height_mm", "output"])
            guard let match = try p.string("match"), !match.isEmpty else {
                throw p.fail(nil, "a [[panel]] needs 'match': a node path, \"vvvv:pppp\" or a glob on the device name")
            }
            var g = geometry
            try readGeometry(p, into: &g)
            panels.append(PanelGeometry(match: match, geometry: g))
        }

        var thresholds = Thresholds.standard
        if let t = try top.subtable("thresholds") {
            try t.checkKeys(ThresholdKey.all.map(\.key))
            try readThresholds(t, into: &thresholds)
        }

        let screen = geometry.screen
        var regions: [RegionSpec] = []
        let regionScopes = try top.subtables("region", label: "[[region]]")
        for r in regionScopes {
            regions.append(try readRegion(r, thresholds: thresholds, screen: screen, existing: regions))
        }
        if regionScopes.isEmpty {
            regions = [RegionSpec(name: EngineConfiguration.screenRegionName, gestures: EngineConfiguration.standardGestures(thresholds: thresholds))]
            ruleLines = [regions[0].gestures.map { _ in (header: 1, requires: nil, simultaneous: nil) }]
        }
        let engine = EngineConfiguration(screen: screen, regions: regions)
        try checkRules(engine, regionScopes)
        var c = Configuration(engine: engine, geometry: geometry, source: file)
        c.daemon = daemon
        c.panels = panels
        return c
    }

    func readDaemon(_ d: Scope) throws(ConfigError) -> DaemonSettings {
        try d.checkKeys(["socket", "group", "max_clients", "max_line_bytes", "output_buffer_bytes", "set_regions", "set_regions_uids", "set_regions_gids", "ignore_devices", "grab"])
        var s = DaemonSettings()
        s.ignoreDevices = try d.strings("ignore_devices") ?? []
        s.grab = try d.bool("grab") ?? false
        if let path = try d.string("socket") {
            guard path.hasPrefix("/"), path.utf8.count < 108 else { throw d.fail("socket", "'socket' must be an absolute path shorter than 108 bytes") }
            s.socket = path
        }
        if let g = try d.string("group") {
            guard !g.isEmpty else { throw d.fail("group", "'group' must not be empty") }
            s.groupLine = d.table.line(of: "group")
            s.group = g
        }
        s.maxClients = try d.integer("max_clients", in: 1...1024) ?? s.maxClients
        s.maxLineBytes = try d.integer("max_line_bytes", in: 1024...(1 << 20)) ?? s.maxLineBytes
        s.outputBufferBytes = try d.integer("output_buffer_bytes", in: 4096...(16 << 20)) ?? s.outputBufferBytes
        let worstCase = s.maxClients * (s.outputBufferBytes + s.maxLineBytes)
        if worstCase > DaemonSettings.maxClientMemory {
            let key = ["output_buffer_bytes", "max_line_bytes", "max_clients"].first { d.table[$0] != nil } ?? "max_clients"
            throw d.fail(
                key,
                "max_clients × (output_buffer_bytes + max_line_bytes) is \(worstCase >> 20) MiB: clients that never read could make the daemon hold that much; at most \(DaemonSettings.maxClientMemory >> 20) MiB"
            )
        }
        let who = try d.string("set_regions") ?? "all"
        // Ids are checked before they are converted: -1, 2^32 or 1e30 must be refused, not trap.
        var ids: [String: [UInt32]] = [:]
        for key in ["set_regions_uids", "set_regions_gids"] {
            guard let list = try d.numbers(key) else { continue }
            ids[key] = try list.map { (v: Double) throws(ConfigError) -> UInt32 in
                guard v >= 0, v == v.rounded(), v <= 4_294_967_294 else {
                    throw d.fail(key, "'\(key)' must hold user or group ids (whole numbers from 0 to 4294967294), found \(v)")
                }
                return UInt32(v)
            }
        }
        let uids = ids["set_regions_uids"], gids = ids["set_regions_gids"]
        switch who {
        case "all":
            if uids != nil || gids != nil { s.setRegions = .only(uids: Set(uids ?? []), gids: Set(gids ?? [])) }
        case "none": s.setRegions = .nobody
        default: throw d.fail("set_regions", "'set_regions' must be \"all\" or \"none\" (restrict with set_regions_uids / set_regions_gids)")
        }
        return s
    }

    /// `[device]` and `[[panel]]` keys onto a geometry.
    func readGeometry(_ device: Scope, into geometry: inout GeometryConfiguration) throws(ConfigError) {
        if let r = try device.integer("rotation", in: 0...270) {
            guard [0, 90, 180, 270].contains(r) else { throw device.fail("rotation", "'rotation' must be 0, 90, 180 or 270, found \(r)") }
            geometry.rotation = r
        }
        geometry.calibration = try device.numbers("calibration", count: 6) ?? geometry.calibration
        let w = try device.number("width_mm", above: 0), h = try device.number("height_mm", above: 0)
        if (w == nil) != (h == nil) {
            throw device.fail(w == nil ? "height_mm" : "width_mm", "set both 'width_mm' and 'height_mm', or neither")
        }
        if let w, let h {
            geometry.widthMM = w
            geometry.heightMM = h
        }
        if let o = try device.numbers("output", count: 4) {
            guard o[2] > 0 && o[3] > 0 else { throw device.fail("output", "'output' width and height must be more than 0") }
            geometry.output = PixelRect(x: o[0], y: o[1], width: o[2], height: o[3])
        }
    }

    func readThresholds(_ s: Scope, into t: inout Thresholds) throws(ConfigError) {
        for key in ThresholdKey.all {
            let positive = key.key == "velocity_horizon"
            if let v = try s.number(key.key, atLeast: positive ? nil : 0, above: positive ? 0 : nil, atMost: key.unit.maximum) {
                key.set(&t, v)
            }
        }
    }

    /// Names are identifiers: they appear in every gesture line, in logs and in rules, so they
    /// are short and hold no control character (a newline or ESC in a name would forge log lines).
    func checkName(_ name: String, _ scope: Scope, _ what: String) throws(ConfigError) {
        guard !name.isEmpty, !name.contains("/") else {
            throw scope.fail("name", "a \(what) name must be non-empty and hold no '/'")
        }
        guard name.utf8.count <= ConfigLimits.nameBytes else {
            throw scope.fail("name", "a \(what) name may have \(ConfigLimits.nameBytes) bytes at most, found \(name.utf8.count)")
        }
        if let bad = name.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw scope.fail("name", "a \(what) name may hold no control character (U+\(String(bad.value, radix: 16, uppercase: true)))")
        }
    }

    mutating func readRegion(_ r: Scope, thresholds: Thresholds, screen: PixelRect, existing: [RegionSpec])
        throws(ConfigError) -> RegionSpec
    {
        try r.checkKeys(["name", "rect", "priority", "standard_gestures", "gesture", "drag"])
        guard let name = try r.string("name") else { throw r.fail(nil, "a [[region]] needs a 'name'") }
        try checkName(name, r, "region")
        if existing.contains(where: { $0.name == name }) { throw r.fail("name", "region '\(name)' is defined twice") }
        var rect: PixelRect?
        if let v = try r.numbers("rect", count: 4) {
            guard v[2] > 0 && v[3] > 0 else { throw r.fail("rect", "'rect' is [x, y, width, height] with width and height more than 0") }
            rect = PixelRect(x: v[0], y: v[1], width: v[2], height: v[3])
        }
        let priority = try r.choice("priority", Priority.self) ?? .normal

        var gestures: [GestureSpec] = []
        var lines: [(header: Int, requires: Int?, simultaneous: Int?)] = []
        if try r.bool("standard_gestures") == true {
            for var g in EngineConfiguration.standardGestures(thresholds: thresholds) {
                g.priority = priority
                gestures.append(g)
                lines.append((r.table.line(of: "standard_gestures"), nil, nil))
            }
        }
        let scopes = try r.subtables("gesture", label: "[[region.gesture]] of region '\(name)'")
        for g in scopes {
            let spec = try readGesture(g, thresholds: thresholds, priority: priority)
            if let i = gestures.firstIndex(where: { $0.name == spec.name }) {
                if lines[i].requires == nil && lines[i].header == r.table.line(of: "standard_gestures") {
                    // A gesture of the standard set is replaced by one of the same name.
                    gestures[i] = spec
                    lines[i] = (g.table.line, g.table.lines["requires_failure_of"], g.table.lines["simultaneous_with"])
                    continue
                }
                throw g.fail("name", "gesture '\(spec.name)' is defined twice in region '\(name)'")
            }
            gestures.append(spec)
            lines.append((g.table.line, g.table.lines["requires_failure_of"], g.table.lines["simultaneous_with"]))
        }
        ruleLines.append(lines)
        var drag: DragConstraints?
        if let d = try r.subtable("drag") { drag = try readDrag(d) }
        return RegionSpec(name: name, rect: rect, gestures: gestures, drag: drag)
    }

    func readGesture(_ g: Scope, thresholds: Thresholds, priority: Priority) throws(ConfigError) -> GestureSpec {
        guard let kind = try g.choice("kind", GestureKind.self) else {
            throw g.fail(nil, "a gesture needs a 'kind' (\(GestureKind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var allowed = ["kind", "name", "priority", "requires_failure_of", "simultaneous_with"] + ThresholdKey.all.map(\.key)
        switch kind {
        case .tap: allowed += ["fingers", "count"]
        case .longPress, .edgeSwipe: allowed += ["fingers"]
        case .pan: allowed += ["fingers", "min_fingers", "max_fingers", "axis"]
        case .pinch: allowed += ["min_fingers", "max_fingers"]
        case .swipe: allowed += ["fingers", "min_fingers", "max_fingers", "sectors", "directions"]
        }
        if kind == .edgeSwipe { allowed.append("edges") }
        for k in g.table.keys where !allowed.contains(k) {
            if ["fingers", "min_fingers", "max_fingers", "count", "axis", "sectors", "directions", "edges"].contains(k) {
                throw g.fail(k, "'\(k)' does not apply to a \(kind.rawValue)")
            }
        }
        try g.checkKeys(allowed)

        var t = thresholds
        try readThresholds(g, into: &t)
        let name = try g.string("name") ?? kind.rawValue
        try checkName(name, g, "gesture")
        let fingers = try g.integer("fingers", in: 1...10)
        let minF = try g.integer("min_fingers", in: 1...10) ?? fingers ?? (kind == .pinch ? 2 : 1)
        let maxF = try g.integer("max_fingers", in: 1...10) ?? fingers ?? (kind == .pinch ? 5 : minF)
        if kind == .pinch && minF < 2 { throw g.fail("min_fingers", "a pinch needs at least 2 fingers") }
        if minF > maxF { throw g.fail("max_fingers", "'max_fingers' (\(maxF)) is less than 'min_fingers' (\(minF))") }

        var spec = GestureSpec(kind, name: name, fingers: minF, maxFingers: maxF, thresholds: t)
        spec.priority = try g.choice("priority", Priority.self) ?? priority
        spec.tapCount = try g.integer("count", in: 1...5) ?? 1
        spec.axis = try g.choice("axis", PanAxis.self) ?? .free
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
        spec.requiresFailureOf = try g.strings("requires_failure_of") ?? []
        spec.simultaneousWith = try g.strings("simultaneous_with") ?? []
        return spec
    }

    func readDrag(_ d: Scope) throws(ConfigError) -> DragConstraints {
        try d.checkKeys(["x", "y", "projection", "initial"])
        var drag = DragConstraints()
        for axis in ["x", "y"] {
            guard let a = try d.subtable(axis) else { continue }
            try a.checkKeys(["min", "max", "mode", "factor", "limit", "snap"])
            var c = AxisConstraint()
            c.min = try a.number("min", allowInfinity: true) ?? -.infinity
            c.max = try a.number("max", allowInfinity: true) ?? .infinity
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
            c.rubberBandLimit = try a.number("limit", above: 0) ?? c.rubberBandLimit
            c.snapPoints = try a.numbers("snap") ?? []
            if axis == "x" { drag.x = c } else { drag.y = c }
        }
        if let p = try d.number("projection", atLeast: 0, atMost: ThresholdUnit.milliseconds.maximum) {
            drag.projection = .nanoseconds(Int64(p * 1e6))
        }
        if let i = try d.numbers("initial", count: 2) { drag.initial = PixelPoint(x: i[0], y: i[1]) }
        return drag
    }

    /// Names in rules must resolve; require-failure must not go round in a circle.
    func checkRules(_ engine: EngineConfiguration, _ scopes: [Scope]) throws(ConfigError) {
        let compiled = CompiledConfiguration(engine)
        func fail(_ line: Int?, _ fallback: Int, _ reason: String) -> ConfigError {
            ConfigError(file: file, line: line ?? fallback, reason: reason)
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
                            throw fail(line, lines.header, "unknown gesture '\(name)' in \(key) of '\(region.name)/\(g.name)' (region '\(region.name)' has: \(known); name another region's as region/name)")
                        }
                        if other == me { throw fail(line, lines.header, "'\(region.name)/\(g.name)' names itself in \(key)") }
                    }
                }
            }
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
            let lines = cycle.map(lines(of:)).first { $0.requires != nil } ?? lines(of: cycle[0])
            throw fail(lines.requires, lines.header,
                "rule cycle: \(names.joined(separator: " → ")) (each must fail before the next may fire: \(why.joined(separator: ", ")))")
        }
    }
}
