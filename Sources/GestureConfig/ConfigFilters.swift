import TouchFrames

/// `[device.filters]` and `[panel.filters]`: what a panel's contacts go through before anyone
/// sees them (docs/CONFIG.md, "Filters"). A panel's table sets its own keys over the device's.
extension Loader {
    /// `size`: the panel's width and height (mm) when the configuration gives them, which its
    /// dead zones must lie on and not wholly cover. `panelsFollow`: `[[panel]]`s may turn on a
    /// filter these keys tune (a key of a filter that is off is then not refused here).
    func readFilters(
        _ f: Scope, into settings: inout ContactFilterSettings, size: (Double, Double)? = nil, panelsFollow: Bool = false
    ) throws(ConfigError) {
        // A key of a filter that is off does nothing: refused (unless a panel may turn it on).
        func needs(_ on: Bool, _ key: String, _ enabler: String, _ filter: String) throws(ConfigError) {
            guard !on && !panelsFollow else { return }
            throw f.fail(key, f.table[enabler] == nil ? "set '\(enabler)' too: it turns the \(filter) filter on" : "'\(key)' tunes the \(filter) filter, which '\(enabler)' = 0 turns off (\(place(enabler)))")
        }
        /// Where `key` of this table was set: `FILE:LINE` (a drop-in's, where one set it last).
        func place(_ key: String) -> String { "\(f.table.file(of: key) ?? f.file):\(f.table.line(of: key))" }
        try f.checkKeys([
            "dejitter_min_cutoff", "dejitter_speed_coefficient", "dejitter_derivative_cutoff", "dejitter_rest_speed", "dead_zones", "stuck_after",
            "chatter_window",
            "chatter_distance", "ghost_under", "ghost_on_mirror", "stuck_distance",
        ])
        // From a filter slower than a resting hand's drift (0.05 Hz) to one that passes what a
        // 60 Hz panel reports (30 Hz: no smoothing left).
        if let c = try f.number("dejitter_min_cutoff", in: 0.05...30, unit: "Hz", offAtZero: true) {
            if c == 0 {
                settings.dejitter = nil
            } else if settings.dejitter != nil {
                settings.dejitter!.minCutoff = c  // the device's other dejitter keys stay
            } else {
                settings.dejitter = .init(minCutoff: c)
            }
        }
        let k = try f.number("dejitter_speed_coefficient", in: 0...10, unit: "Hz per mm/s")
        let d = try f.number("dejitter_derivative_cutoff", in: 0.1...30, unit: "Hz")
        // The 1€ filter as published (0) to a slow drag's speed: a noisy panel's resting finger
        // reads as 20-60 mm/s.
        let rest = try f.number("dejitter_rest_speed", in: 0...200, unit: "mm/s")
        if k != nil || d != nil || rest != nil {
            guard var j = settings.dejitter else {
                let key = k != nil ? "dejitter_speed_coefficient" : d != nil ? "dejitter_derivative_cutoff" : "dejitter_rest_speed"
                guard f.table["dejitter_min_cutoff"] != nil else { throw f.fail(key, "set 'dejitter_min_cutoff' too: it turns the dejitter filter on") }
                throw f.fail(key, "'\(key)' tunes the dejitter filter, which 'dejitter_min_cutoff' = 0 turns off (\(place("dejitter_min_cutoff")))")
            }
            j.speedCoefficient = k ?? j.speedCoefficient
            j.derivativeCutoff = d ?? j.derivativeCutoff
            j.restSpeed = rest ?? j.restSpeed
            settings.dejitter = j
        }
        if try f.value("dead_zones") != nil {
            settings.deadZones = try deadZones(f)
            if let (w, h) = size, let problem = ContactFilterSettings.deadZoneProblem(settings.deadZones, width: w, height: h) {
                throw f.fail("dead_zones", problem)
            }
        }
        // From one report of a 200 Hz panel to about two of a 40 Hz one: every lift waits this
        // long, and a longer window merges an on-screen keyboard's double letters.
        if let w = try f.number("chatter_window", in: 0.005...0.05, unit: "s", offAtZero: true) {
            settings.chatterNs = w == 0 ? nil : Int64(w * 1e9)
        }
        if let d = try f.number("chatter_distance", in: 1...20, unit: "mm") {
            try needs(settings.chatterNs != nil, "chatter_distance", "chatter_window", "chatter")
            settings.chatterDistanceMM = d
        }
        // A frame of a 200 Hz panel to a tenth of a second (a deliberate tap is longer).
        if let g = try f.number("ghost_under", in: 0.005...0.1, unit: "s", offAtZero: true) {
            settings.ghostNs = g == 0 ? nil : Int64(g * 1e9)
        }
        if let m = try f.bool("ghost_on_mirror") {
            try needs(settings.ghostNs != nil, "ghost_on_mirror", "ghost_under", "ghost")
            settings.ghostOnMirror = m
        }
        // A second (a stuck contact ends before a user gives up) to an hour.
        if let s = try f.number("stuck_after", in: 1...3600, unit: "s", offAtZero: true) {
            settings.stuckAfterNs = s == 0 ? nil : Int64(s * 1e9)
        }
        // Any change of a unit (0) to a fingertip's width: a stuck contact's flicker, not a
        // resting finger's noise on the panels where `stuck_after` belongs.
        if let d = try f.number("stuck_distance", in: 0...10, unit: "mm") {
            try needs(settings.stuckAfterNs != nil, "stuck_distance", "stuck_after", "stuck")
            settings.stuckDistanceMM = d
        }
    }

    /// `dead_zones = [[x, y, width, height], ...]`, mm on the panel's own axes.
    private func deadZones(_ f: Scope) throws(ConfigError) -> [ContactFilterSettings.DeadZone] {
        guard case .array(let items)? = try f.value("dead_zones")?.kind else {
            throw f.fail("dead_zones", "'dead_zones' must be an array of [x, y, width, height] arrays (mm)")
        }
        if items.count > ConfigLimits.deadZones { throw f.fail("dead_zones", "at most \(ConfigLimits.deadZones) dead zones a panel, found \(items.count)") }
        var zones: [ContactFilterSettings.DeadZone] = []
        for item in items {
            guard case .array(let numbers) = item.kind, numbers.count == 4 else {
                throw f.fail("dead_zones", "each dead zone is [x, y, width, height] in mm, found \(item.typeName)")
            }
            var v: [Double] = []
            for n in numbers {
                guard let d = n.number, d.isFinite, (0...4_000).contains(d) else {
                    throw f.fail("dead_zones", "a dead zone's numbers are mm from 0 to 4000")
                }
                v.append(d)
            }
            guard v[2] > 0 && v[3] > 0 else { throw f.fail("dead_zones", "a dead zone's width and height must be more than 0 mm") }
            zones.append(.init(x: v[0], y: v[1], width: v[2], height: v[3]))
        }
        return zones
    }
}
