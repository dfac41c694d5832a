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
        let root = try fileTree(bytes, path: file)
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
        // A client's strokes take the configuration's shapes (it cannot add templates).
        loader.strokeNames = base.engine.strokes.map(\.name)
        loader.ruleLines = base.engine.regions.map { r in r.gestures.map { _ in (header: 1, requires: nil, simultaneous: nil) } }
        loader.ruleFiles = base.engine.regions.map { _ in file }
        loader.chainLines = base.engine.regions.map { _ in nil }
        var regions = base.engine.regions
        var added: [RegionSpec] = []
        let thresholds = base.engine.regions.first?.gestures.first?.thresholds ?? .standard
        for t in tables {
            let scope = Scope(table: t, file: file, name: "a region")
            var r = try loader.readRegion(scope, thresholds: thresholds, screen: base.engine.screen, existing: regions)
            // The pointer is the kiosk's, as the actions are: only the file drives it.
            if loader.pointerRegions.contains(where: { $0.name == r.name }) {
                throw scope.fail("emulate", "a client's region cannot emulate a pointer (only the configuration file's can)")
            }
            // What the app is shown is the kiosk's: a client's gestures cannot hide touches from it.
            if r.maxContacts != nil {
                throw scope.fail("max_contacts", "a client's region cannot limit the touches the app is shown (only the configuration file's can)")
            }
            // A client's region covers at most the screen: larger, it would become the parent of
            // the file's full-screen region and, with priority high, take every gesture.
            if let rect = r.rect {
                guard let inside = rect.clipped(to: base.engine.screen) else {
                    throw scope.fail("rect", "region '\(r.name)' lies outside the screen")
                }
                r.rect = inside
            }
            r.fromClient = true
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
    /// Gestures in the regions of one user's clients together (half of all clients'): one user
    /// cannot take the whole share and lock another's `set_regions` out.
    public static let gesturesPerUser = 128
    /// A config file's bytes, regions and gestures, and the names in one rule list: the compile
    /// works on every pair of gestures (a policy matrix of gestures²), so these keep a reload
    /// within milliseconds and a few MB, far above any kiosk's needs.
    public static let fileBytes = 1 << 20
    /// Regions, gestures and actions in the configuration: the file and its drop-ins together.
    public static let regions = 1024
    public static let gestures = 1024
    public static let actions = 1024
    public static let namesPerRule = 1024
    /// `[[panel]]`s in one file, and in the file and its drop-ins together: a kiosk has one or a
    /// few panels, a calibration file one entry per panel ever calibrated.
    public static let panelsPerFile = 64
    public static let panels = 256
    /// Dead zones a panel's filters hold (a broken strip, a bezel, a phantom's spot or two).
    public static let deadZones = 16
    /// Drop-ins read, and the bytes of every file read together (the file, the saved
    /// calibrations, the drop-ins): what one reload parses stays a few MiB.
    public static let dropIns = 256
    /// Stroke templates (`[[stroke]]`): a few shapes of a few examples each; every one is matched
    /// at each stroke's lift (about 650 instructions a template: docs/BENCHMARKS.md, "Strokes").
    public static let strokes = 256
    /// Template files one configuration includes (`[strokes] include`).
    public static let strokeFiles = 16
    /// Stroke gestures in all clients' regions together: each matches every template at a lift
    /// its region sees, so these bound what a client can make a lift cost (16 × 256 templates:
    /// about 2.7 million instructions, a millisecond).
    public static let strokesOfAllClients = 16
    public static let bytesInAll = 2 << 20
}

struct Loader {
    let file: String
    /// Lines of each gesture's rules, for errors found after compiling.
    var ruleLines: [[(header: Int, requires: Int?, simultaneous: Int?)]] = []
    /// The file each region was read from (a drop-in's or the main file), for those errors.
    var ruleFiles: [String] = []

    /// `warning` about gesture `g` of region `r`, after the file and line of the gesture's table
    /// (`FILE:LINE: `, as an error names its place).
    func located(_ r: Int, _ g: Int, _ warning: String) -> String {
        guard r < ruleFiles.count, r < ruleLines.count, g < ruleLines[r].count else { return warning }
        return "\(ruleFiles[r]):\(ruleLines[r][g].header): \(warning)"
    }

    /// The line of each region's `[region.drag] chain`, for a chain that does not resolve.
    var chainLines: [Int?] = []
    /// The regions read so far that emulate a pointer.
    var pointerRegions: [PointerRegion] = []
    /// The names of the configuration's stroke templates (read before the regions).
    var strokeNames: [String] = []

    /// Warnings about the regions, each at its `FILE:LINE` (a region no touch can reach, a key
    /// that does nothing in this mode): the file is taken, and `check-config` prints them.
    var regionNotices: [String] = []

    init(file: String) { self.file = file }

    mutating func load(_ root: TOMLTable) throws(ConfigError) -> Configuration {
        let top = Scope(table: root, file: file, name: "")
        try top.checkKeys(["screen", "device", "panel", "thresholds", "region", "daemon", "action", "idle", "stroke", "strokes"])
        let strokes = try readStrokes(top)
        strokeNames = strokes.map(\.name)
        var daemon = DaemonSettings()
        if let d = try top.subtable("daemon") { daemon = try readDaemon(d) }

        var geometry = GeometryConfiguration()
        try readScreen(top, into: &geometry)
        if let device = try top.subtable("device") {
            try device.checkKeys(["rotation", "calibration", "width_mm", "height_mm", "output", "palm_size", "mode", "cancel", "filters"])
            try readGeometry(device, into: &geometry, panelsFollow: try panelsHaveFilters(top))
            if let mode = try device.choice("mode", DeviceMode.self) {
                if daemon.mode == .grab && mode != .grab {
                    throw device.fail("mode", "[device] mode = \"\(mode.rawValue)\" contradicts [daemon] grab = true (remove one)")
                }
                daemon.mode = mode
            }
            if let cancel = try device.choice("cancel", MirrorCancel.self) { daemon.cancel = cancel }
        }
        let panels = try readPanels(top, geometry)

        var thresholds = Thresholds.standard
        if let t = try top.subtable("thresholds") {
            try t.checkKeys(ThresholdKey.all.map(\.key))
            try readThresholds(t, into: &thresholds)
        }

        let screen = geometry.screen
        var regions: [RegionSpec] = []
        let regionScopes = try top.subtables("region", label: "[[region]]")
        if regionScopes.count > ConfigLimits.regions {
            throw regionScopes[ConfigLimits.regions].fail(nil, "more than \(ConfigLimits.regions) regions in the configuration (the file and its drop-ins together)")
        }
        var gestureCount = 0
        for r in regionScopes {
            regions.append(try readRegion(r, thresholds: thresholds, screen: screen, existing: regions))
            gestureCount += regions[regions.count - 1].gestures.count
            if gestureCount > ConfigLimits.gestures {
                throw r.fail(nil, "more than \(ConfigLimits.gestures) gestures in the configuration (the file and its drop-ins together)")
            }
        }
        for (r, scope) in zip(regions, regionScopes) { noteRegion(r, scope, among: regions, screen: screen, mode: daemon.mode) }
        if regionScopes.isEmpty {
            regions = [RegionSpec(name: EngineConfiguration.screenRegionName, gestures: EngineConfiguration.standardGestures(thresholds: thresholds))]
            ruleLines = [regions[0].gestures.map { _ in (header: 1, requires: nil, simultaneous: nil) }]
        }
        let engine = EngineConfiguration(screen: screen, regions: regions, strokes: strokes)
        try checkRules(engine, regionScopes)
        var c = Configuration(engine: engine, geometry: geometry, source: file)
        c.daemon = daemon
        c.panels = panels
        c.pointerRegions = pointerRegions
        try readIdle(top, into: &c)
        let actionScopes = try top.subtables("action", label: "[[action]]")
        if actionScopes.count > ConfigLimits.actions {
            throw actionScopes[ConfigLimits.actions].fail(nil, "more than \(ConfigLimits.actions) actions in the configuration (the file and its drop-ins together)")
        }
        c.actions = try readActions(actionScopes, engine, idleAfter: c.idleAfter, displayWakes: c.displayWakes)
        Self.markSystemGestures(&c)
        return c
    }

    /// The file's gestures an action is bound to are its system gestures: they outrank every
    /// client's (`GestureSpec.outranksClients`).
    static func markSystemGestures(_ c: inout Configuration) {
        let compiled = CompiledConfiguration(c.engine)
        for a in c.actions where a.on == nil {
            for g in ActionTable.bound(a, compiled) {
                let r = compiled.gestures[g].region
                guard let i = compiled.regions[r].gestures.firstIndex(of: g) else { continue }
                c.engine.regions[r].gestures[i].outranksClients = true
            }
        }
    }

    func readDaemon(_ d: Scope) throws(ConfigError) -> DaemonSettings {
        try d.checkKeys(["socket", "group", "max_clients", "max_line_bytes", "output_buffer_bytes", "coalesce_ms", "set_regions", "set_regions_uids", "set_regions_gids", "ignore_devices", "grab", "max_action_children",
            "max_clients_per_user", "idle_timeout_ms", "request_socket", "bridge_user", "request_ms_per_user",
        ])
        var s = DaemonSettings()
        s.ignoreDevices = try d.strings("ignore_devices") ?? []
        if try d.bool("grab") == true { s.mode = .grab }
        if let path = try d.string("socket") {
            guard path.hasPrefix("/"), path.utf8.count < 108 else { throw d.fail("socket", "'socket' must be an absolute path shorter than 108 bytes") }
            s.socket = path
        }
        if let path = try d.string("request_socket") {
            guard path.isEmpty || (path.hasPrefix("/") && path.utf8.count < 108) else {
                throw d.fail("request_socket", "'request_socket' must be an absolute path shorter than 108 bytes, or \"\" for none")
            }
            s.requestSocket = path
        }
        if let u = try d.string("bridge_user") {
            // useradd's rule for a name (NAME_REGEX of adduser.conf, 32 bytes), or "" for none.
            let allowed = u.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)) }
            guard u.utf8.count <= 32, allowed, !u.hasPrefix("-") else {
                throw d.fail("bridge_user", "'bridge_user' must be a user name (letters, digits, '_', '.', '-'; 32 bytes at most) or \"\" for none")
            }
            s.bridgeUser = u
        }
        if let g = try d.string("group") {
            guard !g.isEmpty else { throw d.fail("group", "'group' must not be empty") }
            s.groupLine = d.table.line(of: "group")
            s.group = g
        }
        s.maxClients = try d.integer("max_clients", in: 1...1024) ?? s.maxClients
        s.maxClientsPerUser = try d.integer("max_clients_per_user", in: 1...1024) ?? s.maxClientsPerUser
        s.idleTimeoutMilliseconds = try d.integer("idle_timeout_ms", in: 0...86_400_000) ?? s.idleTimeoutMilliseconds
        s.requestMsPerUser = try d.integer("request_ms_per_user", in: 10...1000) ?? s.requestMsPerUser
        s.maxActionChildren = try d.integer("max_action_children", in: 1...64) ?? s.maxActionChildren
        s.maxLineBytes = try d.integer("max_line_bytes", in: 1024...(1 << 20)) ?? s.maxLineBytes
        s.outputBufferBytes = try d.integer("output_buffer_bytes", in: 4096...(16 << 20)) ?? s.outputBufferBytes
        s.coalesceMilliseconds = try d.integer("coalesce_ms", in: 0...100) ?? s.coalesceMilliseconds
        let worstCase = s.maxClients * (s.outputBufferBytes + s.maxLineBytes)
        if worstCase > DaemonSettings.maxClientMemory {
            // Named at the key set furthest above its default (of those set: the one that made it).
            let defaults = DaemonSettings()
            let raised = [
                ("output_buffer_bytes", Double(s.outputBufferBytes) / Double(defaults.outputBufferBytes)),
                ("max_line_bytes", Double(s.maxLineBytes) / Double(defaults.maxLineBytes)),
                ("max_clients", Double(s.maxClients) / Double(defaults.maxClients)),
            ]
            let key = raised.filter { d.table[$0.0] != nil }.max { $0.1 < $1.1 }?.0 ?? "max_clients"
            throw d.fail(
                key,
                "max_clients × (output_buffer_bytes + max_line_bytes) is \(s.maxClients) × (\(s.outputBufferBytes) + \(s.maxLineBytes)) bytes, \(mebibytes(worstCase)) MiB: clients that never read could make the daemon hold that much; at most \(DaemonSettings.maxClientMemory >> 20) MiB"
            )
        }
        let who = try d.string("set_regions") ?? "all"
        // Ids are checked before they are converted: -1, 2^32 or 1e30 must be refused, not trap.
        var ids: [String: [UInt32]] = [:]
        for key in ["set_regions_uids", "set_regions_gids"] {
            guard let list = try d.numbers(key) else { continue }
            ids[key] = try list.map { (v: Double) throws(ConfigError) -> UInt32 in
                guard v >= 0, v == v.rounded(), v <= 4_294_967_294 else {
                    let found = v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
                    throw d.fail(key, "'\(key)' must hold user or group ids (whole numbers from 0 to 4294967294), found \(found)")
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

    /// Some `[[panel]]` has filters of its own (it may turn on a filter whose keys
    /// `[device.filters]` tunes for every panel).
    func panelsHaveFilters(_ top: Scope) throws(ConfigError) -> Bool {
        for p in try top.subtables("panel", label: "[[panel]]") where try p.subtable("filters") != nil { return true }
        return false
    }

    /// `[[panel]]`s, each on `[device]`'s geometry, within the cap over every file.
    func readPanels(_ top: Scope, _ geometry: GeometryConfiguration) throws(ConfigError) -> [PanelGeometry] {
        let scopes = try top.subtables("panel", label: "[[panel]]")
        if scopes.count > ConfigLimits.panels {
            throw scopes[ConfigLimits.panels].fail(nil, "more than \(ConfigLimits.panels) [[panel]]s in the configuration (the file and its drop-ins together)")
        }
        var panels: [PanelGeometry] = []
        for p in scopes {
            try p.checkKeys(["match", "rotation", "calibration", "width_mm", "height_mm", "output", "palm_size", "filters"])
            guard let match = try p.string("match"), !match.isEmpty else {
                throw p.fail(nil, "a [[panel]] needs 'match': a node path, \"vvvv:pppp\" or a glob on the device name")
            }
            var g = geometry
            // Measured on this panel: it wins over the panel's axis resolution ([device]'s does not).
            if try p.value("width_mm") != nil { g.sizeIsThePanels = true }
            try readGeometry(p, into: &g)
            panels.append(PanelGeometry(match: match, geometry: g))
        }
        return panels
    }

    /// `[device]` and `[[panel]]` keys onto a geometry.
    func readGeometry(_ device: Scope, into geometry: inout GeometryConfiguration, panelsFollow: Bool = false) throws(ConfigError) {
        if let r = try device.integer("rotation", in: Int.min...Int.max) {
            guard [0, 90, 180, 270].contains(r) else { throw device.fail("rotation", "'rotation' must be 0, 90, 180 or 270, found \(r)") }
            geometry.rotation = r
        }
        if let k = try device.numbers("calibration", count: 6) {
            // The fit's own rule (CalibrationFit.problem): what a save writes, this reads.
            switch CalibrationFit.problem(k) {
            case .tooLarge?:
                throw device.fail("calibration", "'calibration' numbers must lie within ±\(Int(CalibrationFit.largestNumber))")
            case .foldsThePanel?:
                throw device.fail("calibration", "'calibration' folds the panel onto a line or a point (a·e − b·d is under 0.001): every touch would land in one place")
            default: break
            }
            (geometry.calibration, geometry.calibrationIsSet) = (k, true)
        }
        // From a watch-sized panel (10 mm) to a 4 m wall.
        let w = try device.number("width_mm", in: 10...4_000, unit: "mm"), h = try device.number("height_mm", in: 10...4_000, unit: "mm")
        if (w == nil) != (h == nil) {
            throw device.fail(w == nil ? "height_mm" : "width_mm", "set both 'width_mm' and 'height_mm', or neither")
        }
        if let w, let h {
            geometry.widthMM = w
            geometry.heightMM = h
        }
        // Under 5 mm every fingertip would be a palm.
        geometry.palmSize = try device.number("palm_size", in: 5...1000, unit: "mm", offAtZero: true) ?? geometry.palmSize
        if let o = try device.numbers("output", count: 4) {
            guard o[2] > 0 && o[3] > 0 else { throw device.fail("output", "'output' width and height must be more than 0") }
            guard o.allSatisfy({ abs($0) <= Self.pixelLimit }) else {
                throw device.fail("output", "'output' numbers must lie within ±1048576 px")
            }
            let rect = PixelRect(x: o[0], y: o[1], width: o[2], height: o[3])
            guard rect.clipped(to: geometry.screen) != nil else {
                throw device.fail(
                    "output", "'output' lies outside the screen (\(Int(geometry.screenWidth))×\(Int(geometry.screenHeight)) px, [screen])")
            }
            geometry.output = rect
        }
        if let f = try device.subtable("filters") {
            // The panel's own size: [device]'s stands in only where a panel's axes give none.
            let size = geometry.sizeIsThePanels ? geometry.widthMM.flatMap { w in geometry.heightMM.map { (w, $0) } } : nil
            try readFilters(f, into: &geometry.filters, size: size, panelsFollow: panelsFollow)
        }
    }

    func readThresholds(_ s: Scope, into t: inout Thresholds) throws(ConfigError) {
        for key in ThresholdKey.all {
            if let v = try s.number(key.key, in: key.range, unit: key.unit.rawValue) { key.set(&t, v) }
        }
    }

}
