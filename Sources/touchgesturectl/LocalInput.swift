import ArgumentParser
import GestureConfig
import GestureEngine
import Pipeline
import SystemCalls
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's configuration file where the service reads it.
let defaultDaemonConfig = "/etc/touchgestured/touchgestured.toml"

/// The daemon's state folder under its unit (`StateDirectory=`): a calibration a client saved.
let defaultDaemonState = "/var/lib/touchgestured"

/// The daemon's configuration as it reads it (the file and its drop-ins, and with `state` the
/// calibration its clients saved there, as the service reads it); the built-in one when the file
/// does not exist. A file that does not load, or that cannot be looked at, is an error (its
/// file, line, reason); a saved calibration that does not load is left out, as the daemon
/// leaves it. Also what was read, for the reader.
func daemonConfiguration(_ path: String, state: String? = nil) throws -> (configuration: Configuration, read: String) {
    switch Posix.status(path) {
    case .failure(let e) where e.errno == .noSuchFileOrDirectory:
        return (.standard, "the built-in configuration (\(path) does not exist)")
    case .failure(let e):
        throw fail("\(path): \(e)")
    case .success:
        break
    }
    let saved = state.map { $0 + "/calibration.toml" }
    if let saved, case .success = Posix.status(saved, followingLinks: false), let c = try? ConfigLoader.load(path: path, calibrations: saved) {
        return (c, "\(path), its drop-ins and \(saved)")
    }
    do { return (try ConfigLoader.load(path: path), "\(path) and its drop-ins") } catch { throw fail(error.description) }
}

/// `devices --local`: what touchgestured would take on this machine, and why, and each taken
/// panel's size as the daemon would use it under `config` (`Configuration.geometry(of:)`).
func listLocalDevices(config: Configuration, read: String) throws {
    printLine("configuration: \(read)")
    let nodes = Discovery.nodes()
    if nodes.isEmpty { printLine("no input devices in /dev/input") }
    for node in nodes {
        let device: EvdevDevice
        do {
            device = try EvdevDevice(path: node.path)
        } catch {
            printLine("\(node.path)  cannot open: \(error)")
            continue
        }
        let d = device.description
        let verdict = Discovery.classify(node, d, excluded: { config.ignoreReason(path: $0.path, $1) })
        let ids = d.vendorProduct
        switch verdict {
        case .skipped(let why):
            printLine("\(node.path)  \(d.name)  \(ids)  skipped: \(why)")
        case .taken(let why):
            printLine("\(node.path)  \(d.name)  \(ids)  taken: \(why)")
            if let axes = d.positionAxes {
                printLine("    \(d.touchKind?.rawValue ?? "?"), \(d.slotCount) slot(s); x \(axes.x.minimum)...\(axes.x.maximum) res \(axes.x.resolution), y \(axes.y.minimum)...\(axes.y.maximum) res \(axes.y.resolution)")
                printLine("    " + panelGeometryLine(node, d, axes, config))
            }
        }
    }
}

/// A taken panel's size and calibration as the daemon would use them, and where they came from.
private func panelGeometryLine(_ node: InputNode, _ d: DeviceDescription, _ axes: (x: AbsAxis, y: AbsAxis), _ config: Configuration) -> String {
    let g = config.geometry(of: d, path: node.path, systemSizeMM: node.sizeMM, systemCalibration: node.calibration)
    let s = ScreenGeometry(x: axes.x, y: axes.y, configuration: g)
    let match = config.panelMatch(path: node.path, name: d.name, vendor: d.vendor, product: d.product)
    let source: String
    switch s.sizeSource {
    case .configuration where g.sizeIsThePanels: source = "[[panel]] match = \"\(match ?? "?")\""
    case .configuration where config.geometry.widthMM == nil: source = "udev ID_INPUT_WIDTH_MM/HEIGHT_MM"
    case .configuration: source = "[device] width_mm/height_mm"
    default: source = s.sizeSource.rawValue
    }
    let calibration = g.calibration == [1, 0, 0, 0, 1, 0] ? "" : "; calibration " + g.calibration.map { "\($0)" }.joined(separator: " ")
    return "size \(Int(s.sizeMM.width.rounded())) × \(Int(s.sizeMM.height.rounded())) mm (\(source))" + calibration
}

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record an input node as an evemu recording (description and events) that replay and --replay read.")

    @Argument(help: "The node, e.g. /dev/input/event5.")
    var node: String

    @Option(name: .shortAndLong, help: "Output file (default: standard output).")
    var output: String?

    @Option(help: "Stop after this many seconds, 0.1 to 86400 (default: at Ctrl-C).")
    var duration: Double?

    @Flag(help: "Write the kernel's timestamps as they are (CLOCK_MONOTONIC) instead of from 0 (latency measurements).")
    var absoluteTimes = false

    func validate() throws {
        if let d = duration, !(0.1...86_400).contains(d) { throw ValidationError("--duration is 0.1 to 86400 s") }
    }

    func run() throws {
        let device: EvdevDevice
        do { device = try EvdevDevice(path: node) } catch { throw fail("\(error)") }
        let signals: Descriptor
        do { signals = try Posix.signalDescriptor().get() } catch { throw fail("\(error)") }
        var events: [InputEvent] = []
        let end = duration.map { Posix.monotonicNanoseconds() + Int64($0 * 1e9) }
        loop: while true {
            let timeout = end.map { Int32(max(0, ($0 - Posix.monotonicNanoseconds()) / 1_000_000)) } ?? -1
            if let end, Posix.monotonicNanoseconds() >= end { break }
            let ready = try? Posix.poll([device.fd, signals.raw], events: Int16(POLLIN), timeoutMs: timeout).get()
            if let ready, ready[1] != 0 { break }
            do {
                let r = try device.read(deliver: { batch in
                    if batch.resynced {
                        // SYN_DROPPED and a SYN_REPORT that closes the dropped frame (a reader
                        // drops events up to the next report), so the state frame that follows
                        // is replayed, not dropped.
                        let t = events.last?.time ?? .zero
                        events.append(InputEvent(time: t, type: Evdev.EV_SYN, code: Evdev.SYN_DROPPED, value: 0))
                        events.append(InputEvent(time: t, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0))
                    }
                    events.append(contentsOf: batch.decoded)
                })
                if r == .removed { break loop }
            } catch {
                throw fail("\(error)")
            }
        }
        let text = Evemu.format(Recording(description: device.description, events: events), absoluteTimes: absoluteTimes)
        if let output {
            do { try writeTextFile(output, text) } catch { throw fail("\(error)") }
            writeOutput(2, Array("\(events.count) events from \(node) written to \(output)\n".utf8))
        } else {
            writeOutput(1, Array(text.utf8))
        }
    }
}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a virtual touchscreen through /dev/uinput from a recording's description and play its events: test an app with no hand on the glass.")

    @Flag(help: "Play into the kernel through /dev/uinput (the only way there is; the flag says so).")
    var uinput = false

    @Option(help: "Device description (evemu .desc) for a recording that carries only events.")
    var device: String?

    @Option(help: "Speed factor, 0.001 to 1000 (2 = twice as fast).")
    var speed: Double = 1

    @Option(help: "Seconds to wait after creating the device before playing (readers open it; 0-3600).")
    var settle: Double = 0.5

    @Option(help: "Write the CLOCK_MONOTONIC time (s) taken just before each frame's SYN_REPORT write to this file, one a line.")
    var writeTimes: String?

    @Option(help: "After --settle, wait until this file exists before playing (a script creates it once its readers are ready).")
    var waitFor: String?

    @Option(help: "Seconds to keep the device after the last event, before it is removed (0-86400).")
    var hold: Double = 0.1

    @Argument(help: "The evemu recording.")
    var recording: String

    func validate() throws {
        guard uinput else { throw ValidationError("play needs --uinput") }
        guard speed >= 0.001 && speed <= 1000 else { throw ValidationError("--speed must be from 0.001 to 1000") }
        guard (0...3600).contains(settle), (0...86_400).contains(hold) else { throw ValidationError("--settle is 0 to 3600 s, --hold 0 to 86400 s") }
    }

    func run() throws {
        let (rec, description) = try loadRecording(recording, device: device)
        let dev: UInputDevice
        // Stamped before the request: a reader can open the node before the creating call returns
        // here, so a stamp taken after it could come after the reader's pick-up.
        let created = Double(Posix.monotonicNanoseconds()) / 1e9
        // A place of its own (`phys`): a mirror of it is /dev/input/touchgestured/touchgesturectl-play.
        do { dev = try UInputDevice(description, phys: "touchgesturectl/play") } catch { throw fail("\(error) (is the uinput module loaded, and /dev/uinput writable?)") }
        writeOutput(2, Array("playing \(recording) as \(dev.devnode ?? "a virtual device") (created at \(created) s, CLOCK_MONOTONIC)\n".utf8))
        sleepFor(settle)
        if let waitFor {
            while Posix.access(waitFor, F_OK) != nil { sleepFor(0.01) }
        }
        let start = Posix.monotonicNanoseconds()
        let first = rec.events.first?.time.nanoseconds ?? 0
        var times: [Int64] = []
        if writeTimes != nil { times.reserveCapacity(rec.events.count) }
        for e in rec.events {
            let due = start + Int64(Double(e.time.nanoseconds - first) / speed)
            let wait = due - Posix.monotonicNanoseconds()
            if wait > 0 { sleepFor(Double(wait) / 1e9) }
            if writeTimes != nil && e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT { times.append(Posix.monotonicNanoseconds()) }
            do { try dev.write(e) } catch { throw fail("\(error)") }
        }
        sleepFor(hold)
        if let writeTimes {
            do { try writeTextFile(writeTimes, times.map { formatSeconds($0) + "\n" }.joined()) } catch { throw fail(error.description) }
        }
    }
}

func sleepFor(_ seconds: Double) {
    guard seconds > 0 else { return }
    Posix.sleep(seconds: seconds)
}

/// CLOCK_MONOTONIC nanoseconds as seconds with 6 decimals, like the protocol's `time`.
func formatSeconds(_ ns: Int64) -> String {
    let us = ns / 1000
    let frac = String(us % 1_000_000)
    return "\(us / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
}
