import ArgumentParser
import Daemon
import GestureConfig
import GestureEngine
import GestureProtocol
import Logging
import Pipeline
import PointerEmulation
import SystemCalls
import TouchFrames
import Trace

#if canImport(Glibc)
    import Glibc
#endif

@main
struct TouchGestureCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touchgesturectl",
        abstract: "Tools for touchgestured, the touchscreen gesture daemon.",
        version: packageVersion,
        subcommands: [
            Replay.self, TraceCommand.self, Monitor.self, Ping.self, Stats.self, Devices.self, Regions.self,
            Record.self, Play.self, Calibrate.self, Doctor.self,
            CheckConfig.self, Diagrams.self, Import.self, Metrics.self, Strokes.self, Keyboard.self,
        ]
    )

    /// A peer that goes away (a daemon stopped, a pipe to `head`) fails a write with EPIPE
    /// instead of ending the process with SIGPIPE.
    static func main() {
        Posix.ignoreBrokenPipes()
        main(nil)
    }
}

/// Logs to stderr, one line per message, in a form the journal keeps readable.
func makeLogger(verbose: Bool) -> Logger {
    LoggingSystem.bootstrap { label in
        var h = StreamLogHandler.standardError(label: label)
        h.logLevel = verbose ? .trace : .notice
        return h
    }
    return Logger(label: "touchgesturectl")
}

func fail(_ message: String) -> ExitCode {
    // A reason may quote the file or the daemon: one line, nothing that steers the terminal.
    writeOutput(2, Array("touchgesturectl: \(SafeText.escaped(message))\n".utf8))
    return ExitCode.failure
}

/// Loads `--config FILE`, or the built-in default.
func loadConfiguration(_ path: String?) throws -> Configuration {
    guard let path else { return .standard }
    do {
        return try ConfigLoader.load(path: path)
    } catch {
        throw fail(error.description)
    }
}

/// Says so on stderr when `recording` ends without a newline after its last event (`path` may
/// have been cut inside it).
func warnIfUnterminated(_ recording: Recording, _ path: String) {
    guard let warning = recording.unterminatedWarning else { return }
    writeOutput(2, Array("warning: \(SafeText.escaped(path)):\(warning)\n".utf8))
}

/// Reads a recording, taking its description from `--device` when it has none of its own.
func loadRecording(_ path: String, device: String?) throws -> (Recording, DeviceDescription) {
    do {
        if let device {
            let desc = try Evemu.parse(try readTextFile(device), file: device)
            guard let d = desc.description else { throw fail("\(device): no device description (N:, A: lines)") }
            // The recording read as that panel (what it is: its lift at the end, its slots).
            let described = try Evemu.parse(try readTextFile(path), file: path, describedAs: d)
            warnIfUnterminated(described, path)
            return (described, d)
        }
        let recording = try Evemu.parse(try readTextFile(path), file: path)
        warnIfUnterminated(recording, path)
        guard let d = recording.description else {
            throw fail("\(path): the recording has no device description; pass --device DESC (an evemu .desc file)")
        }
        return (recording, d)
    } catch let e as RecordingError {
        throw fail(e.description)
    } catch let e as SystemCallError {
        throw fail(e.description)
    }
}

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay evemu recordings (or libinput record files) through the frame decoder and gesture engine; print one JSON line per gesture event (and per pointer op of an emulate = \"pointer\" region).",
        discussion: """
            The recording's own timestamps are the clock: deadlines (long press, double-tap window) fire \
            between events at their exact time. The output is deterministic. Lines follow docs/PROTOCOL.md. \
            Touch to wake ([idle]) is the daemon's: a touch after a pause is not swallowed here (run \
            `touchgestured --replay FILE` and `touchgesturectl monitor` to see it).
            """
    )

    @Option(name: .long, help: "Configuration file (TOML); the built-in default without it.")
    var config: String?

    @Option(name: .long, help: "Device description (evemu .desc) for recordings that carry only events.")
    var device: String?

    @Flag(name: .shortAndLong, help: "Log every recognizer transition to stderr.")
    var verbose = false

    @Flag(help: "Print a human-readable line per gesture instead of JSON ('changed' events are left out).")
    var pretty = false

    @Flag(help: "Print only the [[action]]s the gestures would fire, one JSON line each (type \"action\"), running nothing.")
    var actions = false

    @Option(
        help: """
            Write what the virtual touchscreen would show the compositor in pass-through mode (the panel's filters, the \
            touches system gestures take or hold, calibration and rotation) to this file as an evemu recording, each \
            event at its input's time (- for stdout), instead of the gesture lines. One recording.
            """)
    var mirror: String?

    @Argument(help: "evemu recordings (.events), replayed one after another, each from a fresh engine.")
    var recordings: [String]

    func validate() throws {
        if mirror != nil && recordings.count != 1 { throw ValidationError("--mirror takes one recording") }
        if mirror != nil && (pretty || actions) { throw ValidationError("--mirror writes a recording: --pretty and --actions are for gesture lines") }
        if pretty && actions { throw ValidationError("--actions prints the actions as JSON lines, --pretty the gestures for people: give one") }
    }

    func run() throws {
        let log = makeLogger(verbose: verbose)
        let configuration = try loadConfiguration(config)
        if let mirror { return try replayMirror(configuration, to: mirror, log: log) }
        for path in recordings {
            let (recording, description) = try loadRecording(path, device: device)
            var pipeline: DevicePipeline
            do {
                let applied = configuration.applied(toPath: "replay:\(path)", name: description.name, vendor: description.vendor, product: description.product)
                pipeline = try DevicePipeline(description: description, configuration: applied)
            } catch {
                throw fail("\(path): \(error)")
            }
            // As the daemon logs it when such a panel opens: its size is known only now.
            if let problem = pipeline.decoder.deadZoneProblem { log.notice("\(path): \(problem)") }
            var out = PipelineOutput(wants: .init(gestureLines: !pretty || actions, transitions: verbose, pointerLines: !actions))
            var cooldowns = ActionCooldowns()
            var actionLines = JSONLineWriter()
            /// Prints what the pipeline made so far: transitions to the log, lines to stdout.
            func drain() {
                for t in out.transitions {
                    log.trace("\(pipeline.gestureName(t.gesture))#\(t.gesture) \(t.from) --\(t.input)--> \(t.to)\(t.reason.map { " (\($0))" } ?? "")", metadata: ["time": "\(t.time.seconds)"])
                }
                if actions {
                    actionLines.reset()
                    ActionLine.encode(out, cooldowns: &cooldowns, into: &actionLines)
                    if !actionLines.bytes.isEmpty { writeOutput(1, actionLines.bytes) }
                } else if pretty {
                    for e in out.events where e.phase != .changed {
                        writeOutput(1, Array(prettyLine(e, name: pipeline.gestureName(e.gesture), shape: pipeline.engine.configuration.shapeName(of: e)).utf8))
                    }
                    // The pointer's lines (the only lines made here), after the gestures that made them.
                    for line in out.lines.split(separator: 0x0A) {
                        if let v = try? parseJSON(line), let text = prettyLine(v) { writeOutput(1, Array(text.utf8)) }
                    }
                } else if !out.lines.isEmpty {
                    writeOutput(1, out.lines)
                }
                out.removeAll()
            }
            // Read once: the flags are property wrappers, costly to read per event.
            let drainsEachEvent = pretty || verbose || actions
            for e in recording.eventsLiftedAtEnd {
                pipeline.feed(e, into: &out)
                if drainsEachEvent || out.lines.count > 1 << 16 { drain() }
            }
            pipeline.finishReplay(into: &out)
            drain()
            if pipeline.decoder.droppedCount > 0 {
                log.notice("\(path): \(pipeline.decoder.droppedCount) SYN_DROPPED in the recording; sequences cancelled there")
            }
        }
    }
}

extension Replay {
    /// `--mirror`: the daemon's own route on the recording, the virtual touchscreen's writes kept.
    func replayMirror(_ configuration: Configuration, to file: String, log: Logger) throws {
        let path = recordings[0]
        // Never onto an input: the recording, the device description, the configuration.
        if file != "-", case .success(let out) = Posix.status(file) {
            for input in [path, device, config].compactMap({ $0 }) {
                if case .success(let s) = Posix.status(input), s.identity == out.identity {
                    throw fail("--mirror \(file) is \(input), an input of this replay: it would be overwritten; name another file")
                }
            }
        }
        let (recording, description) = try loadRecording(path, device: device)
        var replay: MirrorReplay
        do {
            replay = try MirrorReplay(description: description, configuration: configuration, path: "replay:\(path)")
        } catch {
            throw fail("\(path): \(error)")
        }
        if let problem = replay.deadZoneProblem { log.notice("\(path): \(problem)") }
        replay.play(recording.eventsLiftedAtEnd)
        let text = Evemu.format(Recording(description: replay.described, events: replay.events), absoluteTimes: true)
        if file == "-" {
            writeOutput(1, Array(text.utf8))
        } else {
            do { try writeTextFile(file, text) } catch { throw fail(error.description) }
        }
    }
}

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a configuration file; print FILE:LINE: reason and exit 1 when it would be refused."
    )

    @Argument(help: "The configuration file.")
    var file: String

    func run() throws {
        let c = try loadConfiguration(file)
        let compiled = CompiledConfiguration(c.engine)
        for n in c.notices { writeOutput(2, Array("warning: \(SafeText.escaped(n))\n".utf8)) }
        // The daemon refuses to start with a socket group this machine lacks. A file checked
        // before install (the group comes with the package's sysusers.d) is not wrong, so this
        // is a warning, on stderr, with the line.
        if let g = c.daemon.group, Posix.groupID(named: g) == nil {
            writeOutput(2, Array("\(file):\(c.daemon.groupLine ?? 1): warning: group '\(g)' does not exist on this machine; the daemon will refuse to start here until it does (systemd-sysusers creates it on install)\n".utf8))
        }
        // A pointer region's touches reach the app as touches too unless the panel is taken.
        if let p = c.pointerRegions.first, c.daemon.mode == .observe {
            writeOutput(2, Array("\(file):\(p.line): warning: region '\(p.name)' emulates a pointer but [device] mode is \"observe\": the app sees its touches as well as the pointer; set mode = \"passthrough\" (the pointer regions' touches are the pointer's, the rest pass on) or \"grab\"\n".utf8))
        }
        var out = "\(file): ok: \(compiled.regions.count) region(s), \(compiled.gestures.count) gesture(s)\n"
        for r in compiled.regions {
            let parent = r.parent.map { " inside '\(compiled.regions[$0].name)'" } ?? ""
            out += "  region '\(r.name)'\(parent): \(r.gestures.map { compiled.gestures[$0].spec.name }.joined(separator: ", "))\n"
        }
        for p in c.pointerRegions {
            let region = compiled.regions.first { $0.name == p.name }
            let roles = Set(region?.gestures.compactMap { PointerRole(compiled.gestures[$0].spec) } ?? [])
            out += "  pointer in '\(p.name)': \(p.summary(roles: roles))\n"
        }
        if compiled.gestures.contains(where: { $0.spec.kind == .stroke }) {
            let shapes = compiled.shapeNames.map { name in
                let n = c.engine.strokes.count { $0.name == name }
                return n == 0 ? "\(name) (built in)" : "\(name) (\(n) template\(n == 1 ? "" : "s"))"
            }
            out += "  shapes: \(shapes.joined(separator: ", "))\n"
        }
        if c.idleAfter > 0 { out += "  idle after \(format(seconds: c.idleAfter)) s without a touch\n" }
        for a in c.actions {
            let region = a.region.map { " in '\($0)'" } ?? ""
            let when = a.on.map { "\($0.rawValue)" } ?? "\(a.gesture)\(region) (\(a.phase.rawValue))"
            out += "  action '\(a.name)': \(a.kind) \(a) on \(when)\n"
        }
        // Exec arguments and names are the file's: nothing in them may steer the terminal.
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).map { SafeText.escaped(String($0)) }
        writeOutput(1, Array(lines.joined(separator: "\n").utf8))
    }
}

func format(seconds: Double) -> String { seconds == seconds.rounded() ? wholeText(seconds) : String(seconds) }

struct Diagrams: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the recognizers' state diagrams (Mermaid), generated from their transition tables."
    )

    func run() throws {
        writeOutput(1, Array(StateDiagrams.document().utf8))
    }
}

struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Draw a recording with what the engine recognized: paths, regions, gestures, the arena's decisions, each recognizer's state over time.",
        discussion: """
            Writes an SVG, or a PNG when OUT ends in .png or --png is given (rendered by rsvg-convert, \
            from Debian's librsvg2-bin). Uses the same replay path as `replay`. Deterministic.
            """
    )

    @Option(name: .long, help: "Configuration file (TOML); the built-in default without it.")
    var config: String?

    @Option(name: .long, help: "Device description (evemu .desc) for recordings that carry only events.")
    var device: String?

    @Option(name: .shortAndLong, help: "Output file (.svg or .png).")
    var output: String

    @Flag(help: "Write a PNG, whatever the output's name but OUT.svg (a name ending in .png chooses it too).")
    var png = false

    @Argument(help: "The evemu recording.")
    var recording: String

    func run() throws {
        // The format is the name's: an SVG written to x.gif would be read as a broken GIF.
        let lower = output.lowercased()
        let wantsPNG = png || lower.hasSuffix(".png")
        guard lower.hasSuffix(".svg") || lower.hasSuffix(".png") || png else {
            throw fail("\(output): trace writes an SVG (OUT.svg) or a PNG (OUT.png, or any name with --png); other formats are not made")
        }
        if png && lower.hasSuffix(".svg") { throw fail("\(output): --png writes a PNG; name it OUT.png") }
        let configuration = try loadConfiguration(config)
        let (rec, description) = try loadRecording(recording, device: device)
        let trace: TraceRecording
        do {
            let applied = configuration.applied(toPath: "replay:\(recording)", name: description.name, vendor: description.vendor, product: description.product)
            trace = try TraceRecording.record(rec, description: description, configuration: applied)
        } catch {
            throw fail("\(recording): \(error)")
        }
        // As `replay` and the daemon say it: the panel's size is known only now.
        if let problem = trace.deadZoneProblem { makeLogger(verbose: false).notice("\(recording): \(problem)") }
        let svg = TraceSVG.render(trace)
        do {
            if !wantsPNG {
                try writeTextFile(output, svg)
                return
            }
            let temporary = output + ".svg.tmp"
            try writeTextFile(temporary, svg)
            defer { _ = Posix.unlink(temporary) }
            // Drawn beside the output, then renamed over it: a failure leaves a file of that name as it was.
            // (Made here first, a regular file of ours: a link planted at its name is refused,
            // not written through by rsvg-convert.)
            let drawn = output + ".png.tmp"
            try Posix.replaceFile(drawn, with: []).map { throw $0 }
            defer { _ = Posix.unlink(drawn) }
            guard let status = runProgram(["rsvg-convert", "--format=png", "--background-color=white", "-o", drawn, temporary]) else {
                throw fail("rsvg-convert is not installed (apt-get install librsvg2-bin), or write the SVG with -o OUT.svg")
            }
            guard status == 0 else {
                throw fail(
                    "rsvg-convert failed with status \(status) (a PNG is at most 32,767 px tall, about 500 touches: write a long recording's trace as an SVG with -o OUT.svg)")
            }
            if let e = Posix.rename(drawn, to: output) { throw e }
        } catch let e as SystemCallError {
            throw fail(e.description)
        }
    }
}
