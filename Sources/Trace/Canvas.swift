import GestureEngine

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
