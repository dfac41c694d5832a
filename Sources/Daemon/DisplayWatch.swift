import SystemCalls

/// Whether the kiosk's displays are dark, as the kernel tells it under sysfs, whoever darkened
/// them (the compositor's idle tool, a timer, a dim action): DRM connectors (`class/drm/cardN-*`:
/// `status`, `enabled`, `dpms`) and backlights (`class/backlight/*`: `bl_power`, `brightness`).
/// The folders are listed at start, on reload and on a DRM hotplug (`DisplayHotplug`), at most
/// `most` of each kind; their state is read fresh when a touch lands after a pause (`[idle]
/// display`), since a DPMS or backlight change raises no event. Never polled.
///
/// A display is taken for dark only once it has been seen lit: a connector nothing ever drove
/// (a machine whose compositor has not started, a headless one, a panel's connector no display
/// hangs on) reads as off from the start, and taking every touch there for a wake would swallow
/// the first touch of every stroke.
struct DisplayWatch {
    let root: String
    /// The connectors' and backlights' folders, found at start and on reload.
    private(set) var connectors: [String] = []
    private(set) var backlights: [String] = []
    /// The display was lit at the start or at a touch since.
    private(set) var seenLit = false

    /// How long a panel must have been quiet before a touch landing on it is checked: touches
    /// closer than this belong to one interaction, and no idle tool darkens a display that fast
    /// (swayidle's and GNOME's timeouts are tens of seconds and more). So a kiosk in use reads
    /// sysfs only at the first touch after a pause, not at every stroke.
    static let quietNanoseconds: Int64 = 2_000_000_000

    /// The connectors, and the backlights, read at most: a kiosk drives one to four displays,
    /// and a check must cost a touch a few reads, not thousands (a sysfs of 5,000 connectors
    /// took 70-120 ms a touch). The first in name order are read; the rest are counted.
    static let most = 16
    /// Connectors and backlights found past `most`, not read.
    private(set) var passedOver = 0

    init(root: String) {
        self.root = root
        list()
        seenLit = !readsDark
    }

    /// Lists the connectors and backlights again (a DRM hotplug: a display plugged or unplugged).
    mutating func list() {
        let drm = Self.folders(root + "/class/drm") { $0.hasPrefix("card") && $0.contains("-") }
        let lights = Self.folders(root + "/class/backlight") { !$0.hasPrefix(".") }
        connectors = Array(drm.prefix(Self.most))
        backlights = Array(lights.prefix(Self.most))
        passedOver = drm.count - connectors.count + lights.count - backlights.count
    }

    /// Something to read: without a connector or a backlight the display counts as lit.
    var sees: Bool { !connectors.isEmpty || !backlights.isEmpty }

    /// The display is dark now, having been seen lit (a touch's check: a lit reading is
    /// remembered).
    mutating func isDark() -> Bool {
        let dark = readsDark
        if !dark { seenLit = true }
        return dark && seenLit
    }

    /// Every connected display is off (its connector disabled or in a DPMS state other than
    /// On), or every backlight is off (`bl_power` not 0, or brightness 0). A display whose state
    /// cannot be read counts as lit: a touch is never swallowed on a guess.
    private var readsDark: Bool {
        var connected = 0, litConnectors = 0
        for c in connectors where read(c + "/status") == "connected" {
            connected += 1
            let enabled = read(c + "/enabled") ?? "enabled"
            let dpms = read(c + "/dpms") ?? "On"
            if enabled != "disabled" && dpms == "On" { litConnectors += 1 }
        }
        if connected > 0 && litConnectors == 0 { return true }
        guard !backlights.isEmpty else { return false }
        for b in backlights {
            let power = read(b + "/bl_power") ?? "0"
            let brightness = read(b + "/brightness") ?? "1"
            if power == "0" && brightness != "0" { return false }
        }
        return true
    }

    /// A sysfs attribute's text without its newline; nil when it cannot be read.
    private func read(_ path: String) -> String? {
        guard let bytes = try? readRegularFile(path, limit: 64) else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }

    private static func folders(_ path: String, _ keep: (String) -> Bool) -> [String] {
        guard case .success(let names) = Posix.entries(of: path) else { return [] }
        return names.filter(keep).sorted().map { path + "/" + $0 }
    }
}
