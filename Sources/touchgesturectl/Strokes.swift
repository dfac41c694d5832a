import ArgumentParser
import Synchronization
import GestureConfig
import GestureEngine
import GestureProtocol
import SystemCalls
import TouchFrames

/// `touchgesturectl strokes`: shape templates learned from recordings, and recordings tested
/// against them (docs/CONFIG.md, "Strokes").
struct Strokes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Learn stroke shapes from recordings, and test recordings against them.",
        subcommands: [Learn.self, Test.self, StrokeTrace.self])

    struct Learn: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a shape's templates to a template file, one from each recording (its largest stroke).",
            discussion: """
                The file holds [[stroke]] tables; it is created if missing, and the templates already in it are kept \
                (NAME's too: more drawings make a better shape; --replace drops NAME's first). Name it in the configuration with \
                [strokes] include = ["FILE"], or write it as a drop-in (touchgestured.d/strokes.toml).
                """)

        @Option(help: "The shape's name (what a stroke line's \"shape\" and an [[action]]'s shape say).")
        var name: String

        @Option(name: .shortAndLong, help: "The template file to add to (created if missing; its templates and comments kept, but --replace writes it anew).")
        var output: String

        @Flag(help: "Match this shape at any angle (else turned at most stroke_rotation_tolerance).")
        var rotationInvariant = false

        @Flag(help: "Match this shape drawn either way round (a circle clockwise or not).")
        var eitherDirection = false

        @Flag(help: "Drop NAME's templates already in the file before adding these.")
        var replace = false

        @OptionGroup var input: StrokeInput

        @Argument(help: "evemu recordings, each of one drawing of the shape (live ones from `touchgesturectl record`).")
        var recordings: [String]

        func run() throws {
            if let why = ShapeName.problem(name) { throw fail("--name: \(why)") }
            let configuration = try loadConfiguration(input.config)
            var learned: [StrokeTemplate] = []
            for path in recordings {
                guard let stroke = try input.largestStroke(path, configuration) else {
                    throw fail("\(path): no stroke in the recording (no finger moved)")
                }
                let t = input.thresholds(configuration)
                let seconds = Double(max(0, stroke.end.nanoseconds - stroke.start.nanoseconds)) / 1e9
                if seconds > t.strokeMaxDuration.secondsDouble {
                    writeOutput(2, Array("\(SafeText.escaped(path)): warning: the drawing took \(format3(seconds)) s; a stroke slower than stroke_max_duration (\(format3(t.strokeMaxDuration.secondsDouble)) s) fails: draw it faster, or raise it\n".utf8))
                }
                if stroke.size < t.strokeMinSize.value {
                    throw fail("\(path): the stroke is \(wholeText(stroke.size)) mm across, less than stroke_min_size (\(wholeText(t.strokeMinSize.value)) mm)")
                }
                guard let template = StrokeTemplate(name: name, path: stroke.path, rotationInvariant: rotationInvariant, eitherDirection: eitherDirection) else {
                    throw fail("\(path): the stroke has no length")
                }
                learned.append(template)
            }
            var kept: [StrokeTemplate] = []
            var mode: UInt32 = 0o644
            var text: String?
            if let st = try? Posix.status(output, followingLinks: false).get() {
                // Replaced, never written through: anything but a regular file is refused before it is read.
                guard st.isRegular else { throw fail("\(output) is \(st.kindName), not a template file: write to a regular file") }
                do { kept = try StrokeFile.read(output) } catch { throw fail(error.description) }
                text = try? readTextFile(output)
                mode = st.permissions & 0o777  // a file kept private stays so
            }
            // Added after what the file holds, its comments kept; written anew where NAME's go.
            if replace && kept.contains(where: { $0.name == name }) {
                kept.removeAll { $0.name == name }
                text = nil
            }
            let all = kept + learned
            guard all.count <= ConfigLimits.strokes else { throw fail("\(output) would hold \(all.count) templates; \(ConfigLimits.strokes) at most") }
            let written = text.flatMap { StrokeFile.text($0, holding: kept.count, adding: learned) } ?? StrokeFile.text(all)
            if let e = Posix.replaceFile(output, with: Array(written.utf8), mode: mode) { throw fail(e.description) }
            let shapes = Set(all.map(\.name)).count
            writeOutput(1, Array("\(output): \(learned.count) template(s) of '\(name)' learned; \(all.count) template(s) of \(shapes) shape(s) in the file\n".utf8))
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each recording's best shape and its score (its largest stroke), as the daemon would match it.",
            discussion: """
                A stroke is a shape when it took at most stroke_max_duration, is at least stroke_min_size across, more like its best template than like a \
                straight line or an arc (a pan or a swipe), and scores stroke_min_score or more ([thresholds] of --config, \
                or its first stroke gesture's). With --json, one line per recording: {"recording","name","score"}, name null \
                when nothing matched (then "reason" says why).
                """)

        @Option(help: "The template file (the built-in circle too when there is no template, or --config's strokes name it).")
        var templates: String?

        @Flag(help: "One JSON line per recording.")
        var json = false

        @OptionGroup var input: StrokeInput

        @Argument(help: "evemu recordings.")
        var recordings: [String]

        func run() throws {
            let configuration = try loadConfiguration(input.config)
            let matcher = try input.matcher(templates, configuration)
            let t = input.thresholds(configuration)
            var unreadable = false
            for path in recordings {
                // A recording that cannot be read is a line of its own; the others are still tested.
                let verdict: Verdict
                do {
                    verdict = Verdict(try input.largestStroke(path, configuration, quiet: true), matcher, t)
                } catch let e as StrokeInput.Unreadable {
                    unreadable = true
                    verdict = Verdict(unreadable: e.reason)
                }
                var w = JSONLineWriter(capacity: 256)
                if json {
                    w.beginObject()
                    w.field("recording", path)
                    w.key("name")
                    if let n = verdict.name { w.string(n) } else { w.raw("null") }
                    w.key("score")
                    if let s = verdict.score { w.fixed(s, decimals: 3) } else { w.raw("null") }
                    if let r = verdict.reason { w.field("reason", r) }
                    w.endObject()
                    w.endLine()
                    writeOutput(1, w.bytes)
                } else {
                    let score = verdict.score.map { " (score \(format3($0)))" } ?? ""
                    let what = verdict.name.map { "\($0)\(score)" } ?? "no shape: \(verdict.reason ?? "?")\(score)"
                    // The reason may quote the recording: nothing in it steers the terminal.
                    writeOutput(1, Array("\(SafeText.escaped(path)): \(SafeText.escaped(what))\n".utf8))
                }
            }
            if unreadable { throw ExitCode.failure }
        }
    }
}

/// What `strokes test` says of one recording.
struct Verdict {
    var name: String?
    var score: Double?
    var reason: String?
    var match: StrokeMatch?
    var vector: [Double]?

    init(unreadable reason: String) { self.reason = "cannot be read: \(reason)" }

    init(_ stroke: StrokePaths.Stroke?, _ matcher: StrokeMatcher, _ t: Thresholds) {
        guard let stroke else {
            reason = "no stroke (no finger moved)"
            return
        }
        let seconds = Double(max(0, stroke.end.nanoseconds - stroke.start.nanoseconds)) / 1e9
        guard seconds <= t.strokeMaxDuration.secondsDouble else {
            reason = "too slow (\(format3(seconds)) s; stroke_max_duration is \(format3(t.strokeMaxDuration.secondsDouble)) s)"
            return
        }
        guard stroke.size >= t.strokeMinSize.value else {
            reason = "too small (\(wholeText(stroke.size)) mm across; stroke_min_size is \(wholeText(t.strokeMinSize.value)) mm)"
            return
        }
        guard let v = StrokeShape.normalized(stroke.path), let m = matcher.match(v.span) else {
            reason = "no template to match"
            return
        }
        (vector, match, score) = (v, m, m.score)
        if m.score < t.strokeMinScore {
            reason = "best '\(m.name)' scores less than stroke_min_score (\(format3(t.strokeMinScore)))"
        } else if m.ordinaryScore >= m.score {
            reason = "more like a line, an arc or a scroll out and back (a pan, a swipe) than like '\(m.name)'"
        } else {
            name = m.name
        }
    }
}

/// The options strokes' commands share: how recordings are read.
struct StrokeInput: ParsableArguments {
    @Option(help: "Configuration file (TOML): the panel's geometry and filters, the stroke thresholds, its [[stroke]] templates.")
    var config: String?

    @Option(help: "Device description (evemu .desc) for recordings that carry only events.")
    var device: String?

    /// The recording's largest stroke (by the box its path fits in), as the daemon would see it:
    /// through the panel's geometry and filters.
    /// `quiet`: a recording that cannot be read throws `Unreadable` instead of ending the command.
    func largestStroke(_ path: String, _ configuration: Configuration, quiet: Bool = false) throws -> StrokePaths.Stroke? {
        do {
            return try stroke(path, configuration)
        } catch {
            if quiet { throw error }
            throw fail(namingOnce(path, error.reason))
        }
    }

    struct Unreadable: Error {
        var reason: String
    }

    private func stroke(_ path: String, _ configuration: Configuration) throws(Unreadable) -> StrokePaths.Stroke? {
        let recording: Recording
        let description: DeviceDescription
        do {
            var described: DeviceDescription?
            if let device {
                guard let d = try Evemu.parse(try readTextFile(device), file: device).description else {
                    throw Unreadable(reason: "\(device): no device description (N:, A: lines)")
                }
                described = d
            }
            let r = try Evemu.parse(try readTextFile(path), file: path, describedAs: described)
            warnIfUnterminated(r, path)
            guard let d = r.description else { throw Unreadable(reason: "no device description; pass --device DESC (an evemu .desc file)") }
            (recording, description) = (r, d)
        } catch let e as Unreadable {
            throw e
        } catch let e as RecordingError {
            throw Unreadable(reason: e.description)
        } catch let e as SystemCallError {
            throw Unreadable(reason: e.description)
        } catch {
            throw Unreadable(reason: "\(error)")
        }
        let applied = configuration.applied(toPath: "replay:\(path)", name: description.name, vendor: description.vendor, product: description.product)
        guard var decoder = FrameDecoder(description: description, geometry: applied.geometry) else {
            throw Unreadable(reason: "the recording's device is no touchscreen (no multitouch axes)")
        }
        if decoder.geometry.sizeSource.isGuess { Self.warnOfGuessedSize(description.name) }
        var strokes = StrokePaths()
        var best: StrokePaths.Stroke?
        for e in recording.eventsLiftedAtEnd(as: description) {
            guard let frame = decoder.feed(e), let s = strokes.feed(frame) else { continue }
            if s.size > best?.size ?? -1 { best = s }
        }
        return best
    }

    static let warnedOfGuessedSize = Atomic<Bool>(false)

    /// Once a run: a panel of no size draws its shapes on a guessed 16:9 one (squashed, if it is not).
    static func warnOfGuessedSize(_ panel: String) {
        guard !warnedOfGuessedSize.exchange(true, ordering: .relaxed) else { return }
        writeOutput(2, Array("warning: '\(SafeText.escaped(panel))' reports no size (or an implausible one): shapes are measured on a guessed 15.6-inch 16:9 panel; give its size ([device] width_mm, height_mm) in --config if it is not\n".utf8))
    }

    /// The thresholds strokes are matched with: the configuration's first stroke gesture's, or
    /// its `[thresholds]` (what every gesture starts from).
    func thresholds(_ c: Configuration) -> Thresholds {
        let gestures = c.engine.regions.flatMap(\.gestures)
        return (gestures.first { $0.kind == .stroke } ?? gestures.first)?.thresholds ?? .standard
    }

    /// A matcher of `file`'s templates and the configuration's, with the built-in shapes as the
    /// daemon would have them (`CompiledConfiguration.strokeTemplates`).
    func matcher(_ file: String?, _ c: Configuration) throws -> StrokeMatcher {
        var templates = c.engine.strokes
        if let file {
            do { templates += try StrokeFile.read(file) } catch { throw fail(error.description) }
        }
        let compiled = CompiledConfiguration(EngineConfiguration(screen: c.engine.screen, regions: c.engine.regions, strokes: templates))
        return StrokeMatcher(templates: compiled.strokeTemplates, tolerance: thresholds(c).strokeRotationTolerance)
    }
}

/// `path: reason`, with the path said once where the reason (a reader's error: "x.events:3:
/// ...", or "cannot be read: x.events: ...") names it already.
func namingOnce(_ path: String, _ reason: String) -> String {
    if reason.hasPrefix(path + ":") { return reason }
    let unread = "cannot be read: \(path):"
    if reason.hasPrefix(unread) { return "\(path):" + reason.dropFirst(unread.count) }
    return "\(path): \(reason)"
}
