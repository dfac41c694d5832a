import GestureProtocol
import TouchFrames

/// The doctor's whole finding on one panel, as text for an admin or as JSON (`--json`).
public struct DoctorReport: Sendable {
    public let tracks: PanelTracks
    public let diagnosis: PanelDiagnosis
    public let advice: PanelAdvice

    public init(_ tracks: PanelTracks) {
        self.tracks = tracks
        diagnosis = PanelDiagnosis(tracks)
        advice = PanelAdvice(tracks, diagnosis)
    }

    var kind: String {
        let d = tracks.description
        return d.isProtocolA ? "multitouch protocol A" : d.touchKind?.rawValue ?? "unknown"
    }

    public var text: String {
        let d = tracks.description, g = diagnosis
        let f = PanelAdvice.fmt
        var out = "\(SafeText.escaped(d.name)) (\(d.vendorProduct)): \(kind), \(d.slotCount) slot(s), \(g.touches) touch(es) in \(f(Double(tracks.span) / 1e9, 1)) s\n"
        out += "  report rate    " + (g.reportRateHz.map { "\(f($0, 0)) Hz" } ?? "not measured") + "\n"
        out += "  resting noise  " + (g.noiseMM.map { "\(f($0, 2)) mm (the kernel's fuzz \(f(g.fuzzMM, 2)) mm)" } ?? "not measured") + "\n"
        out += "  bounces \(g.chatters.count), ghosts \(g.ghosts.count), stuck \(g.stuck.count), phantoms \(g.phantoms.count)\n\n"
        // Nothing measured: no settings, which would read as a panel found sound.
        guard g.touches > 0 else {
            return out + "No touch was read: nothing to measure, no settings to suggest. Read the panel again while a finger rests, taps and swipes.\n"
        }
        for n in advice.notes { out += "- \(n)\n" }
        out += "\nSettings for this panel (a drop-in such as /etc/touchgestured/touchgestured.d/50-panel.toml; check them with\n"
        out += "touchgesturectl replay --config FILE --mirror OUT RECORDING):\n\n"
        return out + advice.settings(tracks)
    }

    public var json: JSONValue {
        let d = tracks.description, g = diagnosis
        func num(_ v: Double?) -> JSONValue { v.map { .number(($0 * 1000).rounded() / 1000) } ?? .null }
        return .object([
            ("device", .object([("name", .string(d.name)), ("id", .string(d.vendorProduct)), ("kind", .string(kind)), ("slots", .number(Double(d.slotCount)))])),
            ("size_mm", .object([("width", num(tracks.sizeMM.width)), ("height", num(tracks.sizeMM.height)), ("source", .string(tracks.sizeSource.rawValue))])),
            ("duration_s", num(Double(tracks.span) / 1e9)),
            ("touches", .number(Double(g.touches))),
            ("report_rate_hz", num(g.reportRateHz)),
            ("noise_mm", num(g.noiseMM)), ("noise_x_mm", num(g.noiseXMM)), ("noise_y_mm", num(g.noiseYMM)),
            ("rest_s", num(g.restSeconds)), ("fuzz_mm", num(g.fuzzMM)),
            ("chatter", .array(g.chatters.map { .object([("gap_s", num($0.gapSeconds)), ("distance_mm", num($0.distanceMM))]) })),
            ("ghosts", .array(g.ghosts.map { .object([("duration_s", num($0))]) })),
            ("stuck", .array(g.stuck.map { .object([("silent_s", num($0.silentSeconds)), ("x_mm", num($0.xMM)), ("y_mm", num($0.yMM))]) })),
            ("phantoms", .array(g.phantoms.map { .object([("x_mm", num($0.xMM)), ("y_mm", num($0.yMM)), ("period_s", num($0.periodSeconds)), ("count", .number(Double($0.count)))]) })),
            ("range_used", .object([("x", num(g.rangeUsed.x)), ("y", num(g.rangeUsed.y))])),
            ("out_of_range", .bool(g.outOfRange)),
            ("dropped", .number(Double(tracks.dropped))),
            ("notes", .array(advice.notes.map { .string($0) })),
            ("settings", .string(advice.settings(tracks))),
        ])
    }
}
