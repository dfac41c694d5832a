import ArgumentParser
import GestureConfig
import GestureEngine
import SystemCalls
import Trace

/// `touchgesturectl strokes trace`: a picture of a recording's stroke over the template it
/// matched best, turned as the matcher turned it.
struct StrokeTrace: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Draw a recording's stroke (blue, its start a dot) over its best template (grey), as an SVG.")

    @Option(help: "The template file (the built-in circle too when there is no template, or --config's strokes name it).")
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
        guard let v = verdict.vector, let m = verdict.match else { throw fail(namingOnce(recording, verdict.reason ?? "no stroke")) }
        // Turned onto the template; drawn in its own order (its dot where the finger landed).
        let (angle, _) = matcher.alignment(of: m.template, with: v)
        let (c, s) = (cosine(angle), sine(angle))
        var path: [StrokePoint] = []
        for i in 0..<StrokeShape.pointCount {
            let (x, y) = (v[2 * i], v[2 * i + 1])
            path.append(StrokePoint(x: x * c - y * s, y: x * s + y * c))
        }
        let t = matcher.templates[m.template].vector
        let template = (0..<StrokeShape.pointCount).map { StrokePoint(x: t[2 * $0], y: t[2 * $0 + 1]) }
        let title = verdict.name.map { "\($0) · score \(format3(m.score))" }
            ?? "no shape (\(verdict.reason ?? "?")) · best \(m.name) \(format3(m.score))"
        do { try writeTextFile(output, StrokeSVG.render(path: path, template: template, title: title)) } catch { throw fail(error.description) }
    }
}

#if canImport(Glibc)
    import Glibc
    private func cosine(_ x: Double) -> Double { Glibc.cos(x) }
    private func sine(_ x: Double) -> Double { Glibc.sin(x) }
#endif
