import ArgumentParser
import GestureConfig
import GestureEngine
import SystemCalls

/// `touchgesturectl strokes trace`: a picture of a recording's stroke over the template it
/// matched best, turned as the matcher turned it.
struct StrokeTrace: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Draw a recording's stroke (blue, its start a dot) over its best template (grey), as an SVG.")

    @Option(help: "The template file (the built-in shapes are matched too).")
    var templates: String?

    @Option(name: .shortAndLong, help: "The SVG to write (OUT.svg).")
    var output: String

    @OptionGroup var input: StrokeInput

    @Argument(help: "The evemu recording.")
    var recording: String

    func run() throws {
        guard output.lowercased().hasSuffix(".svg") else { throw fail("\(output): strokes trace writes an SVG (OUT.svg)") }
        let configuration = try loadConfiguration(input.config)
        let matcher = try input.matcher(templates, configuration)
        let verdict = Verdict(try input.largestStroke(recording, configuration), matcher, input.thresholds(configuration))
        guard let v = verdict.vector, let m = verdict.match else { throw fail("\(recording): \(verdict.reason ?? "no stroke")") }
        let (angle, reversed) = matcher.alignment(of: m.template, with: v)
        let (c, s) = (cosine(angle), sine(angle))
        var path: [StrokePoint] = []
        for i in 0..<StrokeShape.pointCount {
            let (x, y) = (v[2 * i], v[2 * i + 1])
            path.append(StrokePoint(x: x * c - y * s, y: x * s + y * c))
        }
        if reversed { path.reverse() }
        let t = matcher.templates[m.template].vector
        let template = (0..<StrokeShape.pointCount).map { StrokePoint(x: t[2 * $0], y: t[2 * $0 + 1]) }
        let title = verdict.name.map { "\($0) · score \(format3(m.score))" }
            ?? "no shape (\(verdict.reason ?? "?")) · best \(m.name) \(format3(m.score))"
        do { try writeTextFile(output, Self.svg(path: path, template: template, title: title)) } catch { throw fail(error.description) }
    }

    /// Both paths in a 480 × 480 picture, fitted with a margin, and the title above them.
    static func svg(path: [StrokePoint], template: [StrokePoint], title: String) -> String {
        let all = path + template
        let extent = all.reduce(0.0) { max($0, abs($1.x), abs($1.y)) }
        let scale = extent > 0 ? 200 / extent : 1
        func line(_ ps: [StrokePoint], _ style: String) -> String {
            let points = ps.map { "\(wholeText(240 + $0.x * scale)),\(wholeText(260 + $0.y * scale))" }.joined(separator: " ")
            return "<polyline points=\"\(points)\" fill=\"none\" \(style)/>\n"
        }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"480\" height=\"500\" viewBox=\"0 0 480 500\">\n"
        out += "<rect width=\"480\" height=\"500\" fill=\"white\"/>\n"
        out += "<text x=\"12\" y=\"24\" font-family=\"sans-serif\" font-size=\"16\">\(escaped(title))</text>\n"
        out += line(template, "stroke=\"#999\" stroke-width=\"6\" stroke-linejoin=\"round\"")
        out += line(path, "stroke=\"#1565c0\" stroke-width=\"2.5\" stroke-linejoin=\"round\"")
        if let p = path.first {
            out += "<circle cx=\"\(wholeText(240 + p.x * scale))\" cy=\"\(wholeText(260 + p.y * scale))\" r=\"5\" fill=\"#1565c0\"/>\n"
        }
        return out + "</svg>\n"
    }

    static func escaped(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }
}

#if canImport(Glibc)
    import Glibc
    private func cosine(_ x: Double) -> Double { Glibc.cos(x) }
    private func sine(_ x: Double) -> Double { Glibc.sin(x) }
#endif
