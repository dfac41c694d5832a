import GestureProtocol
import TouchFrames

/// What the doctor makes of a diagnosis: notes an admin reads, and the `[[panel]]` settings to
/// paste into the configuration (each filter set only where the panel showed its need).
public struct PanelAdvice: Sendable {
    public var notes: [String] = []
    /// A panel's dead zones at most (`dead_zones`), and the sizes a panel's `width_mm` and
    /// `height_mm` take (mm): what the configuration accepts.
    static let mostDeadZones = 16
    static let sizes = 10.0...4000.0

    /// `[panel.filters]` keys and values, in the order they are printed, each with its reason.
    public var filters: [(key: String, value: String, why: String)] = []
    /// The size to set (`width_mm`, `height_mm`) when the panel reports none.
    public var needsSize = false

    public init(_ t: PanelTracks, _ d: PanelDiagnosis) {
        sizeNotes(t)
        let fuzz = d.fuzzMM
        if let rate = d.reportRateHz {
            if rate < 50 { notes.append("reports \(Self.fmt(rate, 0)) times a second while a finger moves: under 50 Hz, fast swipes look jerky") }
        } else {
            notes.append("no report rate: no finger moved long enough (swipe across the screen)")
        }
        if let noise = d.noiseMM {
            let verdict = noise >= 0.3 ? "a resting finger jitters: the dejitter filter holds it still" : "quiet at rest: no dejitter needed"
            notes.append("resting noise \(Self.fmt(noise, 2)) mm (x \(Self.fmt(d.noiseXMM ?? 0, 2)), y \(Self.fmt(d.noiseYMM ?? 0, 2))) over \(Self.fmt(d.restSeconds, 1)) s of resting contacts (each finger's counted), the kernel's fuzz \(Self.fmt(fuzz, 2)) mm: \(verdict)")
            if noise >= 0.3 {
                let speed = Self.restSpeed(noise: noise, rate: d.reportRateHz ?? 60)
                let rate = d.reportRateHz == nil ? " at an assumed 60 Hz (no rate measured)" : ""
                let upTo = speed >= 200 ? "over" : "up to"
                filters.append(("dejitter_min_cutoff", "0.5", "resting noise \(Self.fmt(noise, 2)) mm"))
                filters.append(("dejitter_rest_speed", Self.fmt(speed, 0), "that noise reads as \(upTo) \(Self.fmt(speed, 0)) mm/s to the filter\(rate)"))
                // With a rest speed holding the rest, the cutoff may rise faster past it: half the
                // lag on a swipe, and less of it read as speed where a drag stops (docs/CONFIG.md).
                filters.append(("dejitter_speed_coefficient", "0.1", "past the rest speed the filter follows the finger closely"))
            }
            if noise >= 1 {
                notes.append("with this much noise a resting finger's first position may be a millimetre off: widen the gestures' slops in [thresholds] (tap_slop, pan_slop, long_press_tolerance = 4, as examples/noisy-panel.toml does)")
            }
        } else {
            notes.append("no resting noise measured: no finger rested still for 300 ms, or nine reports on a slower panel (rest one on the glass for 3 s)")
        }
        if let longest = d.chatters.map(\.gapSeconds).max() {
            // The longest gap seen plus a report interval, in 5 ms steps, within the key's range.
            let interval = 1 / (d.reportRateHz ?? 60)
            let window = min(PanelDiagnosis.chatterMaxGap, max(0.005, Self.stepUp(longest + interval)))
            notes.append("\(d.chatters.count) bounce(s): a lift and a landing again within \(Self.ms(longest)) and \(Self.fmt(d.chatters.map(\.distanceMM).max() ?? 0, 1)) mm (a double tap to the app)")
            filters.append(("chatter_window", Self.fmt(window, 3), "\(d.chatters.count) bounce(s), the longest \(Self.ms(longest)) apart"))
            // A bounce lands where the finger was give or take the panel's noise: 2 mm and 3.5
            // resting noises, in whole mm, where that is past the default 5 (at ±1.5 mm, one
            // bounce in eight landed past 5 mm and made a tap two).
            let reach = (2 + 3.5 * (d.noiseMM ?? 0)).rounded(.up)
            if reach > 5 {
                filters.append(("chatter_distance", Self.fmt(min(20, reach), 0), "a bounce lands within \(Self.fmt(min(20, reach), 0)) mm on a panel this noisy"))
            }
        }
        if let longest = d.ghosts.max() { ghostAdvice(d, longest: longest) }
        stuckNotes(d, quiet: (d.noiseMM ?? 0) <= max(fuzz, PanelDiagnosis.stuckDistance / 2.5))
        // Phantoms on the panel (one past its axes is no place for a zone), the most frequent
        // first, as many as a panel's dead zones may be.
        let placed = d.phantoms.filter { $0.xMM >= 0 && $0.yMM >= 0 && $0.xMM <= t.sizeMM.width && $0.yMM <= t.sizeMM.height }
        for p in d.phantoms {
            notes.append("a phantom touch every \(Self.fmt(p.periodSeconds, 3)) s at (\(Self.fmt(p.xMM, 1)), \(Self.fmt(p.yMM, 1))) mm, \(p.count) times")
        }
        // A 10 mm square about each (as printed, to 0.1 mm), none the configuration would refuse:
        // together they must leave some of a small panel uncovered.
        var fitting: [ContactFilterSettings.DeadZone] = []
        for p in placed.sorted(by: { $0.count > $1.count }) where fitting.count < Self.mostDeadZones {
            let x = (min(3990, max(0, p.xMM - 5)) * 10).rounded() / 10, y = (min(3990, max(0, p.yMM - 5)) * 10).rounded() / 10
            let zone = ContactFilterSettings.DeadZone(x: x, y: y, width: 10, height: 10)
            guard ContactFilterSettings.deadZoneProblem(fitting + [zone], width: t.sizeMM.width, height: t.sizeMM.height) == nil else {
                notes.append("no dead zone suggested for the phantom at (\(Self.fmt(p.xMM, 1)), \(Self.fmt(p.yMM, 1))) mm: with it the zones would cover this whole panel")
                continue
            }
            fitting.append(zone)
        }
        let zones = fitting.map { "[\(Self.fmt($0.x, 1)), \(Self.fmt($0.y, 1)), 10, 10]" }
        if !zones.isEmpty {
            filters.append(("dead_zones", "[" + zones.joined(separator: ", ") + "]", "where the phantom lands (no real touch there is seen either)"))
        }
        if d.touches > 0 {
            notes.append("touches covered \(Self.percent(d.rangeUsed.x)) of the X axis and \(Self.percent(d.rangeUsed.y)) of the Y axis (swipe to every edge to check the whole range)")
        }
        if d.outOfRange { notes.append("the panel reported positions outside its axes' range: calibrate it (touchgesturectl calibrate)") }
        if t.dropped > 0 { notes.append("\(t.dropped) SYN_DROPPED: events were lost (the reader fell behind)") }
    }

    /// `ghost_under` past the longest ghost seen. With `chatter_window` too, above two report
    /// intervals and room for a late one (a slow panel's one-frame blink is then no bounce),
    /// but never past `quickestTap`: a deliberate tap that short would be lost (at 30 Hz, two
    /// reports are 67 ms); there the note says what is left.
    private mutating func ghostAdvice(_ d: PanelDiagnosis, longest: Double) {
        let seen = min(PanelDiagnosis.ghostMaxDuration + 0.01, max(0.005, Self.stepUp(longest + 0.005)))
        let two = Self.stepUp(2 / (d.reportRateHz ?? 60) + 0.01)
        let chatter = filters.contains { $0.key == "chatter_window" }
        let under = chatter ? max(seen, min(two, Self.quickestTap)) : seen
        notes.append("\(d.ghosts.count) ghost contact(s) shorter than \(Self.ms(PanelDiagnosis.ghostMaxDuration)) (the longest \(Self.ms(longest))): taps nobody made")
        filters.append(("ghost_under", Self.fmt(under, 3), "\(d.ghosts.count) ghost(s), the longest \(Self.ms(longest))"))
        if chatter && two > under {
            notes.append("ghost_under stays at \(Self.ms(under)), under a quick tap: at \(Self.fmt(d.reportRateHz ?? 60, 0)) Hz two reports take \(Self.ms(two)), so a ghost that blinks twice within chatter_window may count as a touch; ghost_under = \(Self.fmt(two, 3)) stops that, and loses every tap shorter than \(Self.ms(two))")
        }
    }

    /// A deliberate quick tap (s): `ghost_under` is never suggested past it.
    static let quickestTap = 0.05

    private mutating func sizeNotes(_ t: PanelTracks) {
        let (w, h) = t.sizeMM
        let inches = (w * w + h * h).squareRoot() / 25.4
        switch t.sizeSource {
        case .resolution:
            // A size the daemon takes, but few touchscreens have: the glass is worth measuring.
            let usual = inches >= 2.5 && inches <= 110 && max(w, h) / min(w, h) <= 4
            notes.append("size \(Self.fmt(w, 0)) × \(Self.fmt(h, 0)) mm (\(Self.fmt(inches, 1))\") from the axes' resolution: \(usual ? "plausible" : "unusual for a touchscreen: if the glass is not that size, set width_mm and height_mm in its [[panel]] (they win over the resolution)")")
            needsSize = !usual
        case .implausibleResolution:
            let rw = t.x.lengthInMillimeters ?? 0, rh = t.y.lengthInMillimeters ?? 0
            notes.append("the axes' resolution gives \(Self.fmt(rw, 0)) × \(Self.fmt(rh, 0)) mm, no touchscreen's size: millimetres here assume a 15.6\" panel (\(Self.fmt(w, 0)) × \(Self.fmt(h, 0)) mm); measure the glass and give --width-mm and --height-mm, and set width_mm and height_mm in its [[panel]] (they win over the resolution)")
            needsSize = true
        case .configuration:
            notes.append("size \(Self.fmt(w, 0)) × \(Self.fmt(h, 0)) mm (\(Self.fmt(inches, 1))\"), as given")
        case .fallback:
            notes.append("the panel reports no resolution: millimetres here assume a 15.6\" panel (\(Self.fmt(w, 0)) × \(Self.fmt(h, 0)) mm); measure the glass and give --width-mm and --height-mm, and set width_mm and height_mm")
            needsSize = true
        }
    }

    private mutating func stuckNotes(_ d: PanelDiagnosis, quiet: Bool) {
        guard let longest = d.stuck.map(\.silentSeconds).max() else { return }
        for s in d.stuck {
            notes.append("a contact still (within \(Self.fmt(PanelDiagnosis.stuckDistance, 1)) mm) for \(Self.fmt(s.silentSeconds, 1)) s at (\(Self.fmt(s.xMM, 1)), \(Self.fmt(s.yMM, 1))) mm while down: stuck, or a finger held very still")
        }
        if quiet {
            notes.append("stuck_after is not suggested: at rest this panel is quiet (noise under its fuzz, or under \(Self.fmt(PanelDiagnosis.stuckDistance / 2.5, 1)) mm), so a finger held still would look stuck and be ended")
        } else {
            let after = min(3600, max(PanelDiagnosis.stuckSilence, (longest / 2).rounded(.down)))
            filters.append(("stuck_after", Self.fmt(after, 0), "a contact still for \(Self.fmt(longest, 1)) s on a panel whose resting finger always moves"))
        }
    }

    /// The settings to paste, as TOML.
    public func settings(_ t: PanelTracks) -> String {
        // The name in a comment, with nothing a comment may not hold (a device names itself).
        let name = String(t.description.name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
        var out = "[[panel]]\nmatch = \"\(t.description.vendorProduct)\"  # \(name)\n"
        // The size the millimetres here were worked out on: a guess to measure, or the one given
        // (--width-mm: the daemon must use it too, or the dead zones and distances shift).
        if needsSize || t.sizeSource == .configuration {
            let (w, h) = (min(Self.sizes.upperBound, max(Self.sizes.lowerBound, t.sizeMM.width)), min(Self.sizes.upperBound, max(Self.sizes.lowerBound, t.sizeMM.height)))
            let why = t.sizeSource == .configuration ? "as given" : "measure the glass"
            out += "width_mm = \(Self.fmt(w, t.sizeSource == .configuration ? 1 : 0))  # \(why)\nheight_mm = \(Self.fmt(h, t.sizeSource == .configuration ? 1 : 0))\n"
        }
        if filters.isEmpty { return out + "# no filter needed\n" }
        out += "[panel.filters]\n"
        for f in filters { out += "\(f.key) = \(f.value)  # \(f.why)\n" }
        return out
    }

    /// `v` with `decimals` digits after the point (0: none), rounded half away from zero.
    static func fmt(_ v: Double, _ decimals: Int) -> String {
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        guard v.isFinite, abs(v) * Double(scale) < 1e15 else { return "0" }
        let n = Int((v * Double(scale)).rounded())
        let whole = String(abs(n) / scale), sign = n < 0 ? "-" : ""
        guard decimals > 0 else { return sign + whole }
        let frac = String(abs(n) % scale)
        return sign + whole + "." + String(repeating: "0", count: decimals - frac.count) + frac
    }

    static func ms(_ seconds: Double) -> String { fmt(seconds * 1000, 0) + " ms" }
    static func percent(_ f: Double) -> String { fmt(f * 100, 0) + " %" }
    /// Up to the next 5 ms.
    static func stepUp(_ seconds: Double) -> Double { (seconds / 0.005).rounded(.up) * 0.005 }

    /// The speed (mm/s) the dejitter filter reads from a resting finger's noise (`noise` mm
    /// along each axis) at `rate` Hz: its speed estimate along an axis spreads by the noise over
    /// a report interval, smoothed at the 1 Hz derivative cutoff; the two axes' together stay
    /// under 2.45 spreads 95 % of the time. In 5 mm/s steps, within the key's range.
    public static func restSpeed(noise: Double, rate: Double) -> Double {
        let dt = 1 / min(max(rate, 10), 1000)
        let a = 1 / (1 + 1 / (2 * Double.pi * dt))
        let spread = noise / dt * (a / (2 - a)).squareRoot()
        return min(200, max(5, (2.45 * spread / 5).rounded(.up) * 5))
    }
}
