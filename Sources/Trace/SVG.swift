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

    public static func render(_ trace: TraceRecording) -> String {
        var svg = Canvas()
        // A tenth more after the last mark leaves room for its label.
        let span = max((trace.end.nanoseconds - trace.start.nanoseconds) * 11 / 10, 1_000_000)

        // Screen area, scaled to the width (and to at most 640 px high for portrait screens).
        let k = min((width - 2 * margin) / max(trace.screen.width, 1), 640 / max(trace.screen.height, 1))
        let screenTop = 48.0
        func sx(_ x: Double) -> Double { margin + (x - trace.screen.x) * k }
        func sy(_ y: Double) -> Double { screenTop + (y - trace.screen.y) * k }
        let screenBottom = sy(trace.screen.y + trace.screen.height)

        // Decisions, laid out first to know the height.
        let decisions = decisionLines(trace)
        let decisionsTop = screenBottom + 36
        let stripTitleTop = decisionsTop + Double(decisions.count) * 16 + 28
        let rows = rowsOf(trace)
        let stripTop = stripTitleTop + 34
        let height = stripTop + Double(rows.count) * rowHeight + 44

        svg.open(width: width, height: height)
        svg.text(
            margin, 24,
            "touchgestured trace: \(trace.device), \(format(Double(trace.end.nanoseconds - trace.start.nanoseconds) / 1e9, 3)) s, \(trace.sequences.count) sequence(s), \(Set(trace.events.map(\.id)).count) gesture(s)",
            size: 15, weight: "bold")
        svg.text(
            margin, 40,
            "screen \(Int(trace.screen.width))×\(Int(trace.screen.height)) px; dots on paths every 50 ms; ● touch-down ○ lift",
            size: 11, fill: "#555")

        // Screen and regions.
        svg.rect(sx(trace.screen.x), sy(trace.screen.y), trace.screen.width * k, trace.screen.height * k, fill: "#f7f7f7", stroke: "#888")
        for r in trace.regions.sorted(by: { $0.depth < $1.depth }) {
            let shade = ["#eef3fa", "#e3ecf7", "#d8e5f4", "#cddef1"][min(r.depth, 3)]
            svg.rect(sx(r.rect.x), sy(r.rect.y), r.rect.width * k, r.rect.height * k, fill: shade, stroke: "#7a8ca5", dash: "6 4")
            svg.text(sx(r.rect.x) + 4, sy(r.rect.y) + 14, r.name, size: 12, fill: "#4a5a70")
        }

        // Contact paths, with a dot every 50 ms so speed shows.
        for (i, p) in trace.paths.enumerated() {
            let color = p.isPalm ? "#999999" : palette[i % palette.count]
            let points = p.points.map { (sx($0.position.x), sy($0.position.y)) }
            svg.polyline(points, stroke: color, width: 2, dash: p.isPalm ? "3 3" : nil)
            var bucket = Int64.min
            for q in p.points {
                let b = (q.time.nanoseconds - trace.start.nanoseconds) / 50_000_000
                if b != bucket {
                    bucket = b
                    svg.circle(sx(q.position.x), sy(q.position.y), 2.6, fill: color)
                }
            }
            if let first = points.first { svg.circle(first.0, first.1, 4.5, fill: color, title: "contact \(i + 1) down") }
            if let last = points.last { svg.circle(last.0, last.1, 4.5, fill: "#ffffff", stroke: color, title: "contact \(i + 1) up") }
        }

        // Gesture labels where each gesture ended (or was recognized), kept from overlapping.
        var placed: [(Double, Double, Double, Double)] = []
        for id in orderedIDs(trace) {
            let events = trace.events.filter { $0.id == id }
            guard let last = events.last, let first = events.first else { continue }
            let text = label(trace, first: first, last: last)
            let w = Double(text.count) * 6.6 + 8
            var x = sx(last.position.x) + 8
            if x + w > width - margin { x = sx(last.position.x) - 8 - w }
            var y = max(sy(last.position.y) - 10, screenTop + 14)
            for _ in 0..<30 where placed.contains(where: { overlaps($0, (x, y - 12, w, 16)) }) { y += 16 }
            placed.append((x, y - 12, w, 16))
            let color = last.phase == .cancelled ? "#b00020" : "#111111"
            svg.diamond(sx(last.position.x), sy(last.position.y), 5, fill: color)
            svg.rect(x - 3, y - 12, w, 16, fill: "#ffffffd9", stroke: nil)
            svg.text(x, y, text, size: 12, fill: color, weight: "bold")
        }

        // Decisions per sequence.
        svg.text(margin, decisionsTop - 12, "Decisions (winners, then each loser and why it failed)", size: 13, weight: "bold")
        for (i, line) in decisions.enumerated() {
            svg.text(margin + (line.indent ? 16 : 0), decisionsTop + 4 + Double(i) * 16, line.text, size: 12, fill: line.color)
        }

        // The strip: each recognizer's state over time.
        let x0 = margin + labelColumn, x1 = width - margin
        func tx(_ t: Timestamp) -> Double {
            x0 + Double(min(max(t.nanoseconds - trace.start.nanoseconds, 0), span)) / Double(span) * (x1 - x0)
        }
        svg.text(margin, stripTitleTop, "Recognizers over time", size: 13, weight: "bold")
        legend(&svg, x: margin + 170, y: stripTitleTop)
        // Time ticks.
        let step = tickStep(Double(span) / 1e9)
        var tick = 0.0
        while tick * 1e9 <= Double(span) + 1 {
            let x = x0 + tick * 1e9 / Double(span) * (x1 - x0)
            svg.line(x, stripTop - 6, x, stripTop + Double(rows.count) * rowHeight, stroke: "#dddddd")
            svg.text(x - 10, stripTop - 10, format(tick, step < 0.1 ? 2 : 1) + " s", size: 10, fill: "#666")
            tick += step
        }
        // Sequence starts.
        for (i, s) in trace.sequences.enumerated() {
            let x = tx(s.start)
            svg.line(x, stripTop - 4, x, stripTop + Double(rows.count) * rowHeight, stroke: "#999999", dash: "2 3")
            svg.text(x + 2, stripTop + Double(rows.count) * rowHeight + 14, "#\(i + 1)", size: 10, fill: "#666")
        }
        for (r, g) in rows.enumerated() {
            let y = stripTop + Double(r) * rowHeight
            if r % 2 == 0 { svg.rect(margin, y, width - 2 * margin, rowHeight, fill: "#fafafa", stroke: nil) }
            svg.text(margin + 4, y + 14, trace.name(g), size: 12)
            let ts = trace.transitions.filter { $0.gesture == g }
            for (i, t) in ts.enumerated() {
                let category = Category(t.to.description)
                let next = i + 1 < ts.count ? ts[i + 1].time : trace.end
                if let fill = category.fill {
                    svg.rect(tx(t.time), y + 4, max(tx(next) - tx(t.time), 1.5), rowHeight - 8, fill: fill, stroke: nil,
                        title: "\(trace.name(g)) \(t.to) \(format(Double(t.time.nanoseconds - trace.start.nanoseconds) / 1e9, 3))–\(format(Double(next.nanoseconds - trace.start.nanoseconds) / 1e9, 3)) s")
                }
                if category == .failed {
                    let why = t.reason.map { trace.why($0) } ?? "failed"
                    svg.cross(tx(t.time), y + rowHeight / 2, 4, stroke: "#b00020", title: "\(trace.name(g)) failed: \(why)")
                    // The reason, if it fits before this row's next mark.
                    let room = (i + 1 < ts.count ? tx(ts[i + 1].time) : x1) - tx(t.time) - 8
                    let fitting = fit(why, room: room)
                    if !fitting.isEmpty { svg.text(tx(t.time) + 6, y + 14, fitting, size: 10, fill: "#b00020") }
                }
            }
            for e in trace.events where e.gesture == g {
                let x = tx(e.time), cy = y + rowHeight / 2
                switch e.phase {
                case .began: svg.triangle(x, cy, 5, fill: "#1b5e20")
                case .recognized: svg.circle(x, cy, 4.5, fill: "#1b5e20", title: "\(trace.name(g)) recognized")
                case .ended: svg.rect(x - 3.5, cy - 3.5, 7, 7, fill: "#1b5e20", stroke: nil)
                case .cancelled: svg.cross(x, cy, 5, stroke: "#000000", title: "\(trace.name(g)) cancelled")
                case .changed: break
                }
            }
        }
        svg.close()
        return svg.out
    }

    static func legend(_ svg: inout Canvas, x: Double, y: Double) {
        var cx = x
        for (fill, text) in [("#c9d6e8", "possible"), ("#f2c14e", "ready, waiting for the arena"), ("#5cb85c", "active")] {
            svg.rect(cx, y - 10, 14, 10, fill: fill, stroke: nil)
            svg.text(cx + 18, y, text, size: 11, fill: "#444")
            cx += 18 + Double(text.count) * 6.2 + 14
        }
        svg.triangle(cx + 5, y - 5, 5, fill: "#1b5e20")
        svg.text(cx + 14, y, "began", size: 11, fill: "#444")
        cx += 56
        svg.circle(cx + 5, y - 5, 4.5, fill: "#1b5e20")
        svg.text(cx + 14, y, "recognized", size: 11, fill: "#444")
        cx += 82
        svg.rect(cx + 1.5, y - 8.5, 7, 7, fill: "#1b5e20", stroke: nil)
        svg.text(cx + 14, y, "ended", size: 11, fill: "#444")
        cx += 56
        svg.cross(cx + 5, y - 5, 4, stroke: "#b00020")
        svg.text(cx + 14, y, "failed (why)", size: 11, fill: "#444")
        cx += 90
        svg.cross(cx + 5, y - 5, 4, stroke: "#000000")
        svg.text(cx + 14, y, "cancelled", size: 11, fill: "#444")
    }

    /// Gesture ids in order of first appearance.
    static func orderedIDs(_ trace: TraceRecording) -> [UInt64] {
        var seen = Set<UInt64>()
        var out: [UInt64] = []
        for e in trace.events where seen.insert(e.id).inserted { out.append(e.id) }
        return out
    }

    /// "pan ended · 4 fingers", "double_tap ×2", "swipe left · 1 finger".
    static func label(_ trace: TraceRecording, first: GestureEvent, last: GestureEvent) -> String {
        let name = trace.name(last.gesture)
        let fingers = "\(last.fingers) finger" + (last.fingers == 1 ? "" : "s")
        switch last.kind {
        case .tap: return "\(name)\(last.count > 1 ? " ×\(last.count)" : "") · \(fingers)"
        case .swipe: return "\(name) \(last.direction?.rawValue ?? "") · \(fingers)"
        case .pinch: return "\(name) \(last.phase.rawValue) · scale \(format(last.scale, 2)), \(format(last.rotation, 0))°"
        case .edgeSwipe: return "\(name) from \(last.edge?.rawValue ?? "?") \(last.phase.rawValue) · \(fingers)"
        case .pan:
            let rest = last.target.map { " → rests at (\(format($0.x, 0)), \(format($0.y, 0)))" } ?? ""
            return "\(name) \(last.phase.rawValue) · \(fingers)\(rest)"
        case .longPress: return "\(name) \(last.phase.rawValue) · \(fingers)"
        }
    }

    struct Line {
        var text: String
        var indent: Bool
        var color: String
    }

    /// Per sequence: where and when it started, who won, who lost and why.
    static func decisionLines(_ trace: TraceRecording) -> [Line] {
        var lines: [Line] = []
        for (i, s) in trace.sequences.enumerated() {
            let rel = { (t: Timestamp) in format(Double(t.nanoseconds - trace.start.nanoseconds) / 1e9, 3) }
            lines.append(Line(text: "#\(i + 1)  \(rel(s.start)) s at (\(format(s.origin.x, 0)), \(format(s.origin.y, 0)))", indent: false, color: "#111"))
            var won: [String] = []
            for e in trace.events where trace.sequence(at: e.time) == i && (e.phase == .began || e.phase == .recognized) {
                won.append("\(trace.name(e.gesture)) \(e.phase.rawValue) at \(rel(e.time)) s")
            }
            var cancelled: [String] = []
            for e in trace.events where trace.sequence(at: e.time) == i && e.phase == .cancelled {
                cancelled.append(trace.name(e.gesture))
            }
            var lost: [String] = []
            for t in trace.transitions where trace.sequence(at: t.time) == i && t.to == .failed {
                let why = t.reason.map { trace.why($0) } ?? "failed"
                let cancel = cancelled.contains(trace.name(t.gesture)) ? "cancelled, " : ""
                lost.append("\(trace.name(t.gesture)): \(cancel)\(why)")
            }
            for chunk in wrap("won: " + (won.isEmpty ? "nothing" : won.joined(separator: "; ")), 150) {
                lines.append(Line(text: chunk, indent: true, color: "#1b5e20"))
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

    static func overlaps(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double)) -> Bool {
        a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
    }

    static func tickStep(_ seconds: Double) -> Double {
        for s in [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300] where seconds / s <= 12 { return s }
        return 600
    }

    static func fit(_ text: String, room: Double) -> String {
        let chars = Int(room / 5.6)
        if chars >= text.count { return text }
        if chars < 6 { return "" }
        return String(text.prefix(chars - 1)) + "…"
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

/// Fixed decimals without Foundation (deterministic).
func format(_ v: Double, _ decimals: Int) -> String {
    guard v.isFinite else { return "0" }
    var p = 1.0
    for _ in 0..<decimals { p *= 10 }
    let m = Int64((v * p).rounded())
    let sign = m < 0 ? "-" : ""
    let a = m.magnitude
    let whole = a / UInt64(p)
    guard decimals > 0 else { return sign + String(whole) }
    let frac = String(a % UInt64(p))
    return sign + String(whole) + "." + String(repeating: "0", count: decimals - frac.count) + frac
}

extension String {
    func trimmingCharacters() -> String { String(self.drop { $0 == " " }) }
}

/// A tiny SVG writer: elements appended as text, numbers with one decimal.
struct Canvas {
    var out = ""

    mutating func open(width: Double, height: Double) {
        out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"#ffffff\"/>\n"
    }

    mutating func close() { out += "</svg>\n" }

    func n(_ v: Double) -> String { format(v, 1) }

    static func escape(_ s: String) -> String {
        var r = ""
        for c in s {
            switch c {
            case "&": r += "&amp;"
            case "<": r += "&lt;"
            case ">": r += "&gt;"
            case "\"": r += "&quot;"
            default: r.append(c)
            }
        }
        return r
    }

    private func titled(_ element: String, _ title: String?) -> String {
        guard let title else { return element + "/>\n" }
        return element + "><title>\(Self.escape(title))</title></\(element.split(separator: " ")[0].dropFirst())>\n"
    }

    mutating func rect(
        _ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, stroke: String?, dash: String? = nil,
        title: String? = nil
    ) {
        var e = "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(w))\" height=\"\(n(h))\" fill=\"\(fill)\""
        if let stroke { e += " stroke=\"\(stroke)\"" }
        if let dash { e += " stroke-dasharray=\"\(dash)\"" }
        out += titled(e, title)
    }

    mutating func circle(_ x: Double, _ y: Double, _ r: Double, fill: String, stroke: String? = nil, title: String? = nil) {
        var e = "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(r))\" fill=\"\(fill)\""
        if let stroke { e += " stroke=\"\(stroke)\" stroke-width=\"2\"" }
        out += titled(e, title)
    }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, dash: String? = nil) {
        var e = "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\""
        if let dash { e += " stroke-dasharray=\"\(dash)\"" }
        out += e + "/>\n"
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String, width: Double, dash: String? = nil) {
        guard points.count > 1 else { return }
        var e = "<polyline points=\"" + points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
        e += "\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\" stroke-linejoin=\"round\" stroke-linecap=\"round\""
        if let dash { e += " stroke-dasharray=\"\(dash)\"" }
        out += e + "/>\n"
    }

    mutating func text(_ x: Double, _ y: Double, _ s: String, size: Double, fill: String = "#222", weight: String? = nil) {
        var e = "<text x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\" fill=\"\(fill)\""
        if let weight { e += " font-weight=\"\(weight)\"" }
        out += e + ">\(Self.escape(s))</text>\n"
    }

    mutating func diamond(_ x: Double, _ y: Double, _ r: Double, fill: String) {
        out += "<polygon points=\"\(n(x)),\(n(y - r)) \(n(x + r)),\(n(y)) \(n(x)),\(n(y + r)) \(n(x - r)),\(n(y))\" fill=\"\(fill)\"/>\n"
    }

    mutating func triangle(_ x: Double, _ y: Double, _ r: Double, fill: String) {
        out += "<polygon points=\"\(n(x - r)),\(n(y + r)) \(n(x + r)),\(n(y + r)) \(n(x)),\(n(y - r))\" fill=\"\(fill)\"/>\n"
    }

    mutating func cross(_ x: Double, _ y: Double, _ r: Double, stroke: String, title: String? = nil) {
        let e = "<path d=\"M\(n(x - r)) \(n(y - r)) L\(n(x + r)) \(n(y + r)) M\(n(x - r)) \(n(y + r)) L\(n(x + r)) \(n(y - r))\" stroke=\"\(stroke)\" stroke-width=\"2\" fill=\"none\""
        out += titled(e, title)
    }
}
