import GestureEngine

/// Draws a `TraceRecording` as an SVG: the screen with its regions, every contact's path and the gestures
/// recognized where they happened; the arena's decisions per sequence (winners, and each loser
/// with why it failed); and a strip with each recognizer's state over time, so deadlines and
/// require-failure waits can be seen. Deterministic: the same trace gives the same bytes.
public enum TraceSVG {
    static let width = 1200.0
    static let margin = 24.0
    static let labelColumn = 190.0
    static let rowHeight = 20.0
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f"]

    /// What a recognizer state means in the picture.
    enum Category {
        case idle, possible, waiting, active, done, failed
        init(_ state: String) {
            switch state {
            case "idle": self = .idle
            case "ready", "readyLifted": self = .waiting
            case "active": self = .active
            case "recognized", "ended": self = .done
            case "failed": self = .failed
            default: self = .possible
            }
        }
        var fill: String? {
            switch self {
            case .possible: return "#c9d6e8"
            case .waiting: return "#f2c14e"
            case .active: return "#5cb85c"
            case .idle, .done, .failed: return nil
            }
        }
    }

    /// Where things go: the screen's scale and place, and the tops of the parts below it.
    struct Layout {
        var k: Double
        var screen: PixelRect
        let screenTop = 48.0
        var decisionsTop = 0.0
        var stripTitleTop = 0.0
        var stripTop = 0.0
        var height = 0.0
        /// The time axis: from the trace's start over `span` ns, between x0 and x1.
        var start: Int64
        var span: Int64
        var x0 = margin + labelColumn
        var x1 = width - margin

        func sx(_ x: Double) -> Double { margin + (x - screen.x) * k }
        func sy(_ y: Double) -> Double { screenTop + (y - screen.y) * k }
        func tx(_ t: Timestamp) -> Double {
            x0 + Double(min(max(t.nanoseconds &- start, 0), span)) / Double(span) * (x1 - x0)
        }
    }

    /// The colour of the sequence at `index` (grey for a contact in no sequence).
    static func color(ofSequence index: Int?) -> String { index.map { palette[$0 % palette.count] } ?? "#7f7f7f" }

    public static func render(_ trace: TraceRecording) -> String {
        var svg = Canvas()
        // Screen area, scaled to the width (and to at most 640 px high for portrait screens);
        // a tenth more time after the last mark leaves room for its label.
        var l = Layout(
            k: min((width - 2 * margin) / max(trace.screen.width, 1), 640 / max(trace.screen.height, 1)),
            screen: trace.screen, start: trace.start.nanoseconds,
            span: max((trace.end.nanoseconds &- trace.start.nanoseconds) / 10 &* 11, 1_000_000))
        // Decisions, laid out first to know the height.
        let decisions = decisionLines(trace)
        let rows = rowsOf(trace)
        l.decisionsTop = l.sy(trace.screen.y + trace.screen.height) + 36
        l.stripTitleTop = l.decisionsTop + Double(decisions.count) * 16 + 28
        l.stripTop = l.stripTitleTop + 34
        let notes = stripNotes(trace, rows, l)
        l.height = l.stripTop + Double(rows.count) * rowHeight + 44 + (notes.isEmpty ? 0 : 24 + Double(noteLines(notes).count) * 14)

        svg.open(width: width, height: l.height)
        svg.text(
            margin, 24,
            "touchgestured trace: \(trace.device), \(format(Double(trace.end.nanoseconds &- trace.start.nanoseconds) / 1e9, 3)) s, \(trace.sequences.count) sequence(s), \(Set(trace.events.map(\.id)).count) gesture(s)",
            size: 15, weight: "bold")
        svg.text(
            margin, 40,
            "screen \(Int(trace.screen.width))×\(Int(trace.screen.height)) px; each sequence in its colour; dots on paths every 50 ms; ● touch-down ○ lift"
                + (trace.rawPaths.isEmpty ? "" : "; grey: the panel's raw contacts, before its filters (\(trace.rawPaths.count) against \(trace.paths.count) filtered)"),
            size: 11, fill: "#555")
        drawScreen(trace, l, &svg)
        drawPaths(trace, l, &svg)
        drawLabels(trace, l, &svg)
        svg.text(margin, l.decisionsTop - 12, "Decisions per sequence (winners, then each loser and why it failed)", size: 13, weight: "bold")
        for (i, line) in decisions.enumerated() {
            let y = l.decisionsTop + 4 + Double(i) * 16
            if let swatch = line.swatch { svg.rect(margin, y - 9, 10, 10, fill: swatch, stroke: nil) }
            svg.text(margin + (line.indent ? 16 : 14), y, line.text, size: 12, fill: line.color)
        }
        drawStrip(trace, rows, notes, l, &svg)
        svg.close()
        return svg.out
    }

    /// The screen and its regions, the deeper ones darker.
    static func drawScreen(_ trace: TraceRecording, _ l: Layout, _ svg: inout Canvas) {
        svg.rect(l.sx(trace.screen.x), l.sy(trace.screen.y), trace.screen.width * l.k, trace.screen.height * l.k, fill: "#f7f7f7", stroke: "#888")
        for r in trace.regions.sorted(by: { $0.depth < $1.depth }) {
            let shade = ["#eef3fa", "#e3ecf7", "#d8e5f4", "#cddef1"][min(r.depth, 3)]
            svg.rect(l.sx(r.rect.x), l.sy(r.rect.y), r.rect.width * l.k, r.rect.height * l.k, fill: shade, stroke: "#7a8ca5", dash: "6 4")
            svg.text(l.sx(r.rect.x) + 4, l.sy(r.rect.y) + 14, r.name, size: 12, fill: "#4a5a70")
        }
    }

    /// Contact paths in the colour of their (innermost) sequence, with a dot every 50 ms so speed
    /// shows; palms grey and dashed.
    static func drawPaths(_ trace: TraceRecording, _ l: Layout, _ svg: inout Canvas) {
        // Beneath them, the panel's own paths when filters changed them: thin, grey, a dot a
        // frame (for a path of at most 400 frames: the picture stays small for a long recording).
        for p in trace.rawPaths {
            let points = p.points.map { (l.sx($0.position.x), l.sy($0.position.y)) }
            svg.polyline(points, stroke: "#b0b0b0", width: 1, dash: nil)
            if points.count <= 400 { for q in points { svg.circle(q.0, q.1, 1.2, fill: "#b0b0b0") } }
        }
        for (i, p) in trace.paths.enumerated() {
            let color = p.isPalm ? "#999999" : color(ofSequence: p.sequence)
            let points = p.points.map { (l.sx($0.position.x), l.sy($0.position.y)) }
            svg.polyline(points, stroke: color, width: 2, dash: p.isPalm ? "3 3" : nil)
            var bucket = Int64.min
            for q in p.points {
                let b = (q.time.nanoseconds &- trace.start.nanoseconds) / 50_000_000
                if b != bucket {
                    bucket = b
                    svg.circle(l.sx(q.position.x), l.sy(q.position.y), 2.6, fill: color)
                }
            }
            let which = p.sequence.map { " (sequence \($0 + 1))" } ?? ""
            if let first = points.first { svg.circle(first.0, first.1, 4.5, fill: color, title: "contact \(i + 1) down\(which)") }
            if let last = points.last { svg.circle(last.0, last.1, 4.5, fill: "#ffffff", stroke: color, title: "contact \(i + 1) up") }
        }
    }

    struct Line {
        var text: String
        var indent: Bool
        var color: String
        /// A sequence's colour, before its heading.
        var swatch: String? = nil
    }

    /// Per sequence: its region, where and when it started, who won, who lost and why.
    static func decisionLines(_ trace: TraceRecording) -> [Line] {
        var lines: [Line] = []
        let rel = { (t: Timestamp) in format(Double(t.nanoseconds &- trace.start.nanoseconds) / 1e9, 3) }
        // Each sequence's events and failures, found once (not a pass over all of them a sequence).
        let eventsOf = Dictionary(grouping: trace.events, by: \.sequence)
        let failuresOf = Dictionary(grouping: trace.transitions.filter { $0.to == .failed }, by: \.sequence)
        for (i, s) in trace.sequences.enumerated() {
            let fingers = "\(s.contacts.count) contact" + (s.contacts.count == 1 ? "" : "s")
            lines.append(
                Line(text: "sequence \(i + 1): \(s.region), \(rel(s.start)) s at (\(format(s.origin.x, 0)), \(format(s.origin.y, 0))), \(fingers)",
                    indent: false, color: "#111", swatch: color(ofSequence: i)))
            var won: [String] = []
            var chained: [String] = []
            var cancelled: [String] = []
            // An enclosing region's pan loses to the stroke's own and still has lines: a chain's.
            let failures = failuresOf[s.id] ?? []
            let failed = Set(failures.map(\.gesture))
            for e in eventsOf[s.id] ?? [] {
                let said = "\(trace.name(e.gesture)) \(e.phase.rawValue) at \(rel(e.time)) s"
                if e.phase == .began && e.consumed != nil && failed.contains(e.gesture) {
                    chained.append(said)
                } else if e.phase == .began || e.phase == .recognized {
                    won.append(said)
                }
                if e.phase == .cancelled { cancelled.append(trace.name(e.gesture)) }
            }
            var lost: [String] = []
            for t in failures {
                let why = t.reason.map { trace.why($0) } ?? "failed"
                let cancel = cancelled.contains(trace.name(t.gesture)) ? "cancelled, " : ""
                lost.append("\(trace.name(t.gesture)): \(cancel)\(why)")
            }
            for chunk in wrap("won: " + (won.isEmpty ? "nothing" : won.joined(separator: "; ")), 150) {
                lines.append(Line(text: chunk, indent: true, color: "#1b5e20"))
            }
            if !chained.isEmpty {
                let text = "moved by a chain: " + chained.joined(separator: "; ") + " (the stroke's pan shares its motion with it)"
                for chunk in wrap(text, 150) { lines.append(Line(text: chunk, indent: true, color: "#0d47a1")) }
            }
            if !lost.isEmpty {
                for chunk in wrap("lost: " + lost.joined(separator: "; "), 150) {
                    lines.append(Line(text: chunk, indent: true, color: "#b00020"))
                }
            }
        }
        return lines
    }

    /// Gestures with anything to show, in configuration order.
    static func rowsOf(_ trace: TraceRecording) -> [Int] {
        let active = Set(trace.transitions.map(\.gesture))
        return trace.gestures.indices.filter { active.contains($0) }
    }

    static func wrap(_ text: String, _ limit: Int) -> [String] {
        var out: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.count + word.count + 1 > limit && !line.isEmpty {
                out.append(line)
                line = "    "
            }
            line += (line.isEmpty || line == "    " ? "" : " ") + word
        }
        if !line.trimmingCharacters().isEmpty { out.append(line) }
        return out
    }
}
