import ArgumentParser
import GestureConfig
import GestureEngine
import GestureProtocol
import SystemCalls
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// `touchgesturectl calibrate`: the installer touches the screen's corners (or targets a page
/// draws), the matrix is fitted and saved as a drop-in the daemon reads after its own file, and
/// the daemon reloads: touch lands where the finger is on every compositor (the mirror carries
/// it), with no compositor support.
struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Calibrate a touch panel: touch the screen's four corners; the fitted matrix is saved as a drop-in and applied by a reload.",
        discussion: """
            Touches come from the daemon (its touch lines carry each finger's place on the panel's own axes), or, \
            with --node, from the panel itself (no daemon running, or one in observe mode). The fit is least \
            squares over the touches; each touch's distance from its target after the fit is shown in px and mm, \
            and a fit with a touch further than --max-error is refused with the reason. The result is written to \
            the drop-in folder (calibration.toml in touchgestured.d beside --config, /etc/touchgestured/touchgestured.toml by \
            default: never where a server says) as a [[panel]] with the panel's match, never into the admin's own file, \
            checked with the daemon's own loader first; then the daemon is asked to reload (the `reload` request, which \
            needs root or the socket's group; no signal is sent to any process). The \
            equivalent udev rule (LIBINPUT_CALIBRATION_MATRIX) is printed for mode = "observe", where the \
            compositor reads the panel itself.
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: "The daemon's device id to calibrate (see `touchgesturectl devices`); needed when it reads more than one panel.")
    var device: Int?

    @Option(help: "Read this panel's node directly (/dev/input/eventN) instead of the daemon.")
    var node: String?

    @Option(help: "The daemon's configuration (the panel's output and rotation; the drop-in goes beside it). Default: /etc/touchgestured/touchgestured.toml.")
    var config: String?

    @Option(help: "Where to write the result (default: calibration.toml in the drop-in folder beside --config).")
    var write: String?

    @Option(help: "Targets this percent of the screen in from its corners (0: the corners themselves), for targets drawn or marked on the glass.")
    var inset: Double = 0

    @Option(help: "The largest distance (mm) a touch may be from its target after the fit.")
    var maxError: Double = CalibrationFit.defaultLimitMM

    @Option(help: "Seconds to wait for each touch.")
    var timeout: Double = 60

    @Flag(help: "Show the fit and what would be written; write nothing, reload nothing.")
    var dryRun = false

    @Flag(help: "Write the drop-in, but do not ask the daemon to reload.")
    var noReload = false

    func validate() throws {
        guard (0...40).contains(inset) else { throw ValidationError("--inset must be from 0 to 40 (percent)") }
        guard (0.5...100).contains(maxError) else { throw ValidationError("--max-error must be from 0.5 to 100 (mm)") }
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be from 1 to 3600 (s)") }
    }

    func run() throws {
        // Only the file this tool was told of: what a server says is shown, never followed.
        let configPath = config ?? Self.defaultConfig
        let fileConfig = try configuration(configPath)
        var panel = try node.map { try openPanel($0, config: fileConfig) } ?? daemonPanel()
        if panel.daemon != nil, let said = panel.daemonConfig, said != configPath {
            say("Note: the daemon says it read \(SafeText.escaped(said)); this tool reads and writes beside \(configPath) (--config FILE for another).")
        } else if panel.daemon != nil && panel.daemonConfig == nil {
            say("Note: the daemon runs its built-in configuration (no --config file), which reads no drop-in: the result is for a daemon started with \(configPath).")
        }
        let geometry = fileConfig.geometry(path: panel.node, name: panel.name, vendor: panel.vendor, product: panel.product)
        let screen = panel.screen ?? geometry.screen
        let output = geometry.output.flatMap { $0.clipped(to: screen) } ?? screen
        let targets = CalibrationFit.targets(output: output, inset: inset / 100)
        say("Calibrating \(SafeText.escaped(panel.name)) (\(SafeText.escaped(panel.node))), shown on \(describe(output))\(geometry.rotation != 0 ? ", rotation \(geometry.rotation)" : "").")
        say(inset == 0 ? "Touch each corner of the screen with one finger, as close to the corner as you can." : "Touch each target with one finger.")
        var points: [CalibrationFit.Point] = []
        for (i, t) in targets.enumerated() {
            let name = CalibrationFit.targetNames[i]
            say("  \(i + 1)/\(targets.count): the \(name) \(inset == 0 ? "corner" : "target") (\(Int(t.x.rounded())), \(Int(t.y.rounded())))")
            let deadline = Posix.monotonicNanoseconds() + Int64(timeout * 1e9)
            guard let p = try panel.touches.next(deadline: deadline, onSkip: { say("    \($0)") }) else {
                let hint = node != nil ? " (is the panel grabbed by a running daemon? then calibrate without --node)" : ""
                throw fail("no touch within \(Int(timeout)) s\(hint)")
            }
            points.append(CalibrationFit.Point(u: p.u, v: p.v, target: t))
        }
        let fit: CalibrationFit
        do {
            let size = panel.sizeMM ?? geometry.defaultSize
            let taken = try CalibrationFit.corners(points, output: output, rotation: geometry.rotation, sizeMM: size, limitMM: maxError)
            if taken.swapped { say("(The last two touches fit as bottom right, then bottom left: taken in that order.)") }
            fit = taken.fit
        } catch {
            throw fail("calibration refused: \(error)")
        }
        report(fit)
        try save(fit, panel: panel, config: fileConfig, path: configPath, rotation: geometry.rotation)
    }

    static let defaultConfig = defaultDaemonConfig

    private func configuration(_ path: String) throws -> Configuration { try daemonConfiguration(path).configuration }

    private func report(_ fit: CalibrationFit) {
        for (i, (px, mm)) in zip(fit.residualPixels, fit.residualMillimeters).enumerated() {
            say("  touch \(i + 1): \(calibrationNumber((px * 10).rounded() / 10)) px, \(calibrationNumber((mm * 100).rounded() / 100)) mm from its target")
        }
        say("Fit: largest error \(calibrationNumber((fit.worstMillimeters * 100).rounded() / 100)) mm (\(calibrationNumber((fit.worstPixels * 10).rounded() / 10)) px), rms \(calibrationNumber((fit.rmsMillimeters * 100).rounded() / 100)) mm.")
        say("calibration = [\(fit.matrix.map(calibrationNumber).joined(separator: ", "))]")
    }

    private func save(_ fit: CalibrationFit, panel: CalibrationPanel, config c: Configuration, path config: String, rotation: Int) throws {
        let match = CalibrationFile.match(for: c, node: panel.node, name: panel.name, vendor: panel.vendor, product: panel.product)
        let path = write ?? ConfigLoader.dropInFolder(of: config) + "/calibration.toml"
        var file: CalibrationFile
        do { file = try CalibrationFile(readingFrom: path) } catch {
            throw fail("\(error): move it away, or write elsewhere with --write FILE")
        }
        // The whole configuration must load with the new file in place (when there is one).
        let within: (config: String, calibrations: String?)? = (try? Posix.status(config).get()) != nil ? (config, nil) : nil
        let identity = CalibrationFile.PanelIdentity(node: panel.node, name: panel.name, vendor: panel.vendor, product: panel.product)
        let note = "\(panel.name): largest error \(calibrationNumber((fit.worstMillimeters * 100).rounded() / 100)) mm over \(fit.residualPixels.count) touches"
        file.set(match, fit.matrix, note: note)
        say("")
        say("For mode = \"observe\" (the compositor reads the panel itself), the same as a udev rule, e.g. /etc/udev/rules.d/99-touch-calibration.rules\(rotation != 0 ? " (it includes the rotation: remove `rotation` from the configuration if you use it instead)" : ""):")
        say("  " + udevRule(name: panel.name, matrix: CalibrationFit.libinputMatrix(fit.matrix, rotation: rotation)))
        if dryRun {
            say("")
            say("--dry-run: \(path) would be:")
            do { writeOutput(1, try file.checkedBytes(for: path, entry: (match, identity), within: within)) } catch { throw fail(error.description) }
            return
        }
        do { try file.write(to: path, entry: (match, identity), within: within) } catch {
            // Only a file that could not be written is a matter of rights.
            let hint = error.description.hasPrefix("cannot ") ? " (run as root, or --write FILE, or --dry-run to print it)" : ""
            throw fail(error.description + hint)
        }
        say("")
        say("Wrote \(path) ([[panel]] match = \(SafeText.escaped(tomlString(match)))).")
        guard !noReload else { return say("Reload the daemon to apply it: systemctl reload touchgestured") }
        guard let daemon = panel.daemon else { return say("No daemon was asked; it applies the file when it starts or reloads (systemctl reload touchgestured).") }
        say(reload(daemon, config: config))
    }

    /// Asks the daemon at the other end of `connection` to reload (the `reload` request, checked
    /// by the daemon as a save is): no signal to a pid a server names, whoever answers there.
    private func reload(_ c: Connection, config: String) -> String {
        let by = "reload it: systemctl reload touchgestured"
        guard let v = try? c.answer(#"{"op":"reload","id":4}"#, id: 4) else { return "The daemon did not answer; \(by)" }
        let message = v.text("message", limit: 2048) ?? ""
        switch (v.text("type"), v.text("code")) {
        case ("reply", _):
            guard case .string(let source)? = v["source"], source == config else {
                return "The daemon reloaded \(v.text("source") ?? "its configuration"), not \(config): the file written applies to a daemon started with --config \(config)."
            }
            return "Applied: the daemon reloaded \(v.text("source") ?? config)."
        case (_, "forbidden"): return "The daemon does not let this user reload it (\(message)); \(by)"
        case (_, "reload_refused"): return "The daemon refused the configuration, its old one stays: \(message)"
        case (_, "unknown_op"): return "The daemon is older than this tool (no reload request); \(by)"
        default: return "The daemon did not reload (\(message)); \(by)"
        }
    }

    private func describe(_ r: PixelRect) -> String {
        "\(Int(r.width)) × \(Int(r.height)) px at (\(Int(r.x)), \(Int(r.y)))"
    }

    /// The panel at `path`, read directly; its size as the daemon would take it under `config`
    /// (a `[[panel]]`'s over the axes' resolution, udev's where the axes give none).
    private func openPanel(_ path: String, config: Configuration) throws -> CalibrationPanel {
        let device: EvdevDevice
        do { device = try EvdevDevice(path: path) } catch { throw fail("\(error)") }
        let d = device.description
        // The node as discovery names it (/dev/input/eventN), also when given through a link
        // (/dev/input/by-id/...): the same device number.
        let number = (try? Posix.status(path).get())?.deviceNumber
        let node = Discovery.nodes().first { $0.path == path || (number != nil && (try? Posix.status($0.path).get())?.deviceNumber == number) }
        let g = config.geometry(of: d, path: node?.path ?? path, systemSizeMM: node?.sizeMM, systemCalibration: node?.calibration)
        let size = d.positionAxes.map { ScreenGeometry(x: $0.x, y: $0.y, configuration: g) }
        return CalibrationPanel(
            node: path, name: d.name, vendor: d.vendor, product: d.product,
            sizeMM: size?.sizeMM, screen: nil, daemon: nil, touches: try PanelTouches(device))
    }

    private func daemonPanel() throws -> CalibrationPanel {
        let c = try Connection(connection.path)
        guard let hello = c.readLine(until: Connection.deadline(in: Connection.answerSeconds)), let v = try? parseJSON(Array(hello.utf8)),
            case .array(var devices)? = v["devices"]
        else {
            throw fail("no hello from the daemon at \(connection.path)")
        }
        if devices.isEmpty {
            say("The daemon reads no touch panel yet: waiting \(Int(timeout)) s for one.")
            devices = [try awaitDevice(c)]
        }
        let chosen: JSONValue
        if let device {
            guard let d = devices.first(where: { $0["id"] == .number(Double(device)) }) else {
                throw fail("the daemon reads no device \(device) (touchgesturectl devices)")
            }
            chosen = d
        } else {
            guard devices.count == 1 else {
                throw fail(devices.isEmpty ? "the daemon reads no touch panel" : "the daemon reads \(devices.count) panels: choose one with --device ID (touchgesturectl devices)")
            }
            chosen = devices[0]
        }
        // The file the daemon read, where its drop-ins are (`source`: a path, or "built-in").
        var source: String?
        if let reply = try? c.call(#"{"op":"get_config","id":3}"#, id: 3), case .string(let s)? = reply["source"], s != "built-in" {
            source = s
        }
        var panel = try CalibrationPanel(daemonDevice: chosen, hello: v, connection: c)
        panel.daemonConfig = source
        return panel
    }
}

extension Calibrate {
    /// The first device the daemon adds (its `device` line), within `--timeout`.
    fileprivate func awaitDevice(_ c: Connection) throws -> JSONValue {
        let deadline = Posix.monotonicNanoseconds() + Int64(timeout * 1e9)
        while true {
            guard let line = c.readLine(until: deadline) else {
                throw fail(c.timedOut ? "no touch panel came within \(Int(timeout)) s" : "the daemon closed the connection")
            }
            guard line.hasPrefix(#"{"type":"device""#), let v = try? parseJSON(Array(line.utf8)),
                v["action"] == .string("added"), let d = v["device"]
            else { continue }
            return d
        }
    }
}

func say(_ s: String) { writeOutput(2, Array((s + "\n").utf8)) }
