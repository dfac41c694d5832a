import GestureEngine

/// The strip under the trace's picture: each recognizer's state over time, its failures with why,
/// time ticks, sequence starts, and the reasons a row had no room for.
extension TraceSVG {
    /// The strip: each recognizer's state over time, with time ticks and sequence starts.
    static func drawStrip(_ trace: TraceRecording, _ rows: [Int], _ notes: [String], _ l: Layout, _ svg: inout Canvas) {
        let bottom = l.stripTop + Double(rows.count) * rowHeight
        svg.text(margin, l.stripTitleTop, "Recognizers over time", size: 13, weight: "bold")
        legend(&svg, x: margin + 170, y: l.stripTitleTop)
        let step = tickStep(Double(l.span) / 1e9)
        var tick = 0.0
        while tick * 1e9 <= Double(l.span) + 1 {
            let x = l.x0 + tick * 1e9 / Double(l.span) * (l.x1 - l.x0)
            svg.line(x, l.stripTop - 6, x, bottom, stroke: "#dddddd")
            svg.text(x - 10, l.stripTop - 10, format(tick, step < 0.1 ? 2 : 1) + " s", size: 10, fill: "#666")
            tick += step
        }
        // Sequence starts; labels of sequences that start together side by side.
        var labelX = -Double.infinity
        for (i, s) in trace.sequences.enumerated() {
            let x = l.tx(s.start)
            svg.line(x, l.stripTop - 4, x, bottom, stroke: color(ofSequence: i), dash: "2 3")
            labelX = max(x + 2, labelX)
            // "s1": sequence 1 (replay's "#1" numbers gestures).
            svg.text(labelX, bottom + 14, "s\(i + 1)", size: 10, fill: color(ofSequence: i))
            labelX += 14 + 6 * Double(String(i + 1).count)
        }
        for (r, g) in rows.enumerated() { drawRow(trace, g, y: l.stripTop + Double(r) * rowHeight, shaded: r % 2 == 0, notes, l, &svg) }
        guard !notes.isEmpty else { return }
        svg.text(margin, bottom + 34, "Why, where a row has no room for it:", size: 10, fill: "#b00020", weight: "bold")
        for (i, line) in noteLines(notes).enumerated() { svg.text(margin, bottom + 48 + Double(i) * 14, line, size: 10, fill: "#b00020") }
    }

    /// The reasons a row has no room for beside their failure's cross (before its next mark), each
    /// once, numbered in order of first appearance: the row shows "(n)", the list under the strip
    /// the reason (nothing is cut short).
    static func stripNotes(_ trace: TraceRecording, _ rows: [Int], _ l: Layout) -> [String] {
        var notes: [String] = []
        for g in rows {
            let ts = trace.transitions.filter { $0.gesture == g }
            for (i, t) in ts.enumerated() where Category(t.to.description) == .failed {
                let why = t.reason.map { trace.why($0) } ?? "failed"
                if !fits(why, room: room(after: i, ts, l)) && !notes.contains(why) { notes.append(why) }
            }
        }
        return notes
    }

    /// The notes as lines of the list: "(1) next tap too late;  (2) too few fingers; ...", none
    /// broken across lines.
    static func noteLines(_ notes: [String]) -> [String] {
        let chars = Int((width - 2 * margin) / 5.8)
        var lines: [String] = []
        var line = ""
        for (i, note) in notes.enumerated() {
            let item = "(\(i + 1)) \(note)"
            if !line.isEmpty && line.count + 3 + item.count > chars {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : ";  ") + item
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// The room after transition `i` of a row, to its next mark (or the strip's end).
    static func room(after i: Int, _ ts: [Transition], _ l: Layout) -> Double {
        (i + 1 < ts.count ? l.tx(ts[i + 1].time) : l.x1) - l.tx(ts[i].time) - 8
    }

    /// One recognizer's row: its states as segments, failures with why, its events as marks.
    static func drawRow(_ trace: TraceRecording, _ g: Int, y: Double, shaded: Bool, _ notes: [String], _ l: Layout, _ svg: inout Canvas) {
        if shaded { svg.rect(margin, y, width - 2 * margin, rowHeight, fill: "#fafafa", stroke: nil) }
        svg.text(margin + 4, y + 14, trace.name(g), size: 12)
        let ts = trace.transitions.filter { $0.gesture == g }
        let rel = { (t: Timestamp) in format(Double(t.nanoseconds &- trace.start.nanoseconds) / 1e9, 3) }
        for (i, t) in ts.enumerated() {
            let category = Category(t.to.description)
            let next = i + 1 < ts.count ? ts[i + 1].time : trace.end
            if let fill = category.fill {
                svg.rect(l.tx(t.time), y + 4, max(l.tx(next) - l.tx(t.time), 1.5), rowHeight - 8, fill: fill, stroke: nil,
                    title: "\(trace.name(g)) \(t.to) \(rel(t.time))–\(rel(next)) s")
            }
            if category == .failed {
                let why = t.reason.map { trace.why($0) } ?? "failed"
                svg.cross(l.tx(t.time), y + rowHeight / 2, 4, stroke: "#b00020", title: "\(trace.name(g)) failed: \(why)")
                // The reason if it fits before this row's next mark, else its number in the notes.
                let room = room(after: i, ts, l)
                if fits(why, room: room) {
                    svg.text(l.tx(t.time) + 6, y + 14, why, size: 10, fill: "#b00020")
                } else if let n = notes.firstIndex(of: why), fits("(\(n + 1))", room: room) {
                    svg.text(l.tx(t.time) + 6, y + 14, "(\(n + 1))", size: 10, fill: "#b00020")
                }
            }
        }
        for e in trace.events where e.gesture == g {
            let x = l.tx(e.time), cy = y + rowHeight / 2
            switch e.phase {
            case .began: svg.triangle(x, cy, 5, fill: "#1b5e20")
            case .recognized: svg.circle(x, cy, 4.5, fill: "#1b5e20", title: "\(trace.name(g)) recognized")
            case .ended: svg.rect(x - 3.5, cy - 3.5, 7, 7, fill: "#1b5e20", stroke: nil)
            case .cancelled: svg.cross(x, cy, 5, stroke: "#000000", title: "\(trace.name(g)) cancelled")
            case .changed: break
            }
        }
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

    /// A tick every 1, 2 or 5 × 10^k s, so that at most 12 ticks cover `seconds` (a recording
    /// that spans years gets a dozen ticks, not millions).
    static func tickStep(_ seconds: Double) -> Double {
        for s in [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600] where seconds / s <= 12 { return s }
        var step = 1000.0
        while seconds / step > 12 && step < 1e300 {
            for k in [2.0, 2.5, 2.0] where seconds / step > 12 { step *= k }
        }
        return step
    }

    /// Whether `text` at the strip's size fits in `room` px.
    static func fits(_ text: String, room: Double) -> Bool { Double(text.count) * 5.6 <= room }
}
