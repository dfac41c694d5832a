import TouchFrames

/// The configuration's two small tables: `[screen]` (its size) and `[idle]` (touch to wake).
extension Loader {
    /// `[screen]`: the screen's size in whole pixels.
    func readScreen(_ top: Scope, into geometry: inout GeometryConfiguration) throws(ConfigError) {
        guard let screen = try top.subtable("screen") else { return }
        try screen.checkKeys(["width", "height"])
        for key in ["width", "height"] {
            guard let v = try screen.number(key, atLeast: 1, atMost: 65536) else { continue }
            // The screen's pixels, as the daemon reports them (`hello`): whole ones.
            guard v == v.rounded() else { throw screen.fail(key, "'\(key)' is a whole number of pixels, found \(v)") }
            if key == "width" { geometry.screenWidth = v } else { geometry.screenHeight = v }
        }
    }

    /// `[idle]`: touch to wake.
    func readIdle(_ top: Scope, into c: inout Configuration) throws(ConfigError) {
        guard let idle = try top.subtable("idle") else { return }
        try idle.checkKeys(["after", "display", "sysfs"])
        // Half a second at least, longer than a tap: a shorter one would take nearly every
        // touch for a wake (and one under a nanosecond would round to "never").
        c.idleAfter = try idle.number("after", in: 0.5...604_800, unit: "s", offAtZero: true) ?? 0
        c.displayWakes = try idle.bool("display") ?? c.displayWakes
        if let root = try idle.string("sysfs") {
            guard root.hasPrefix("/"), root.utf8.count <= 4096, !root.utf8.contains(0) else {
                throw idle.fail("sysfs", "'sysfs' must be an absolute path (the folder holding class/drm and class/backlight)")
            }
            c.sysfsRoot = root
        }
    }
}
