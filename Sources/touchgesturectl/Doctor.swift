import ArgumentParser
import GestureEngine
import GestureProtocol
import PanelDoctor
import SystemCalls
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a touch panel: its report rate, resting noise, bounces, ghosts, stuck and phantom contacts, and the [[panel]] settings it needs.",
        discussion: """
            Live, it reads the panel (NODE, or the one touchscreen there is) for --duration seconds while it asks \
            you to rest a finger, tap and swipe; the panel is grabbed meanwhile (your touches reach no app). A \
            panel the touchgestured service holds cannot be read beside it: stop the service first. With \
            --recording it reads an evemu recording instead (touchgesturectl record).
            """)

    // Where the touches come from: a live panel, or a recording.
    @Argument(help: "The panel's node, e.g. /dev/input/event5 (live; default: the only touchscreen).") var node: String?
    @Option(help: "Read this evemu recording (or libinput record file) instead of a live panel.") var recording: String?
    @Option(help: "Device description (evemu .desc) for a recording that carries only events.") var device: String?
    @Option(help: "Seconds to read a live panel (10-600).") var duration: Double = 35
    @Option(help: "Write what was read live as an evemu recording (to read again with --recording).") var save: String?

    // The glass's size (a panel without an axis resolution), and the output's form.
    @Option(name: .customLong("width-mm"), help: "The glass's width in mm (over the panel's axis resolution, which may be missing or wrong).") var widthMM: Double?
    @Option(name: .customLong("height-mm"), help: "The glass's height in mm.") var heightMM: Double?
    @Flag(help: "Print the findings as one JSON object (report_rate_hz, noise_mm, ... and the settings).") var json = false

    func validate() throws {
        guard recording != nil || (10...600).contains(duration) else { throw ValidationError("--duration must be 10-600 s") }
        for (name, v) in [("--width-mm", widthMM), ("--height-mm", heightMM)] {
            if let v, !(10...4000).contains(v) { throw ValidationError("\(name) must be 10-4000 mm (as [device] width_mm and height_mm)") }
        }
        if (widthMM == nil) != (heightMM == nil) { throw ValidationError("give --width-mm and --height-mm together") }
        if recording != nil && node != nil { throw ValidationError("give a NODE or --recording, not both") }
        if recording != nil && save != nil { throw ValidationError("--save writes a live read: not with --recording") }
        if device != nil && recording == nil { throw ValidationError("--device describes a --recording") }
    }

    func run() throws {
        let (events, description): ([InputEvent], DeviceDescription)
        if let recording {
            let (r, d) = try loadRecording(recording, device: device)
            (events, description) = (r.events, d)
        } else {
            (events, description) = try readLive()
        }
        guard let tracks = PanelTracks(description: description, events: events, widthMM: widthMM, heightMM: heightMM) else {
            // Named by the file it came from (a recording), or the device's name (live).
            let source = recording.map { "\($0) (\(SafeText.escaped(description.name)))" } ?? SafeText.escaped(description.name)
            throw fail("\(source): not a touchscreen (no position axes: no ABS_MT_POSITION_X/Y or ABS_X/Y line)")
        }
        let report = DoctorReport(tracks)
        if json {
            var w = JSONLineWriter()
            w.value(report.json)
            w.endLine()
            writeOutput(1, w.bytes)
        } else {
            writeOutput(1, Array(report.text.utf8))
        }
    }

    /// The panel read live while the user is asked to rest a finger, tap, swipe, then keep off.
    func readLive() throws -> ([InputEvent], DeviceDescription) {
        let path = try node ?? onlyTouchscreen()
        let panel: EvdevDevice
        do { panel = try EvdevDevice(path: path) } catch {
            // A file given where a node goes (ENOTTY: no evdev ioctl on it): a recording, likely.
            let recording = error.errno == .inappropriateIOCTLForDevice ? "; \(path) is no input device node (a recording is read with --recording FILE)" : ""
            throw fail("\(error)\(recording)")
        }
        guard panel.description.touchKind != nil else { throw fail("\(path) (\(SafeText.escaped(panel.description.name))) is no touchscreen") }
        do {
            try panel.grab(true)
        } catch {
            if error.errno == .resourceBusy {
                throw fail(
                    "\(path) is held by another reader (the touchgestured service grabs its panels): stop it (sudo systemctl stop touchgestured), run the doctor, then start it again"
                )
            }
            throw fail("\(error)")
        }
        let signals: Descriptor
        do { signals = try Posix.signalDescriptor().get() } catch { throw fail("\(error)") }
        let steps: [(at: Double, say: String)] = [
            (0, "Rest one finger on the middle of the screen and hold it still (5 s)."),
            (5, "Lift it. Tap anywhere, ten times, at your own pace (8 s)."),
            (13, "Swipe across the screen, edge to edge, in every direction (10 s)."),
            (23, "Hands off the screen until the end: ghosts and phantoms show now."),
        ]
        let start = Posix.monotonicNanoseconds(), end = start + Int64(duration * 1e9)
        var events: [InputEvent] = []
        var said = 0
        say("Reading \(path) (\(SafeText.escaped(panel.description.name))) for \(Int(duration)) s; your touches reach no app meanwhile.")
        while Posix.monotonicNanoseconds() < end {
            let elapsed = Double(Posix.monotonicNanoseconds() - start) / 1e9
            while said < steps.count && steps[said].at <= elapsed && steps[said].at < duration {
                say("[\(Int(steps[said].at)) s] " + steps[said].say)
                said += 1
            }
            let next = said < steps.count ? start + Int64(steps[said].at * 1e9) : end
            let timeout = Int32(max(0, min(next, end) - Posix.monotonicNanoseconds()) / 1_000_000)
            let ready = try? Posix.poll([panel.fd, signals.raw], events: Int16(POLLIN), timeoutMs: timeout).get()
            if let ready, ready[1] != 0 { break }
            do {
                if try panel.read(deliver: { batch in
                    if batch.resynced {
                        let t = events.last?.time ?? .zero
                        events.append(InputEvent(time: t, type: Evdev.EV_SYN, code: Evdev.SYN_DROPPED, value: 0))
                        events.append(InputEvent(time: t, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0))
                    }
                    events.append(contentsOf: batch.decoded)
                }) == .removed {
                    say("\(path) went away")
                    break
                }
            } catch {
                throw fail("\(error)")
            }
        }
        say("Done: \(events.count) events.")
        if let save {
            // Replaced whole, never through a link (the doctor runs as root).
            if let e = Posix.replaceFile(save, with: Array(Evemu.format(Recording(description: panel.description, events: events)).utf8)) {
                throw fail("\(e)")
            }
            say("Written to \(save) (touchgesturectl doctor --recording \(save)).")
        }
        return (events, panel.description)
    }

    /// The one touchscreen the daemon would take here (a mirror skipped); a failure naming them
    /// when there are several, or none.
    func onlyTouchscreen() throws -> String {
        let found = Discovery.nodes().filter { node in
            guard let d = try? EvdevDevice(path: node.path).description else { return false }
            if case .taken = Discovery.classify(node, d, excluded: { _, _ in nil }) { return true }
            return false
        }
        guard found.count == 1, let only = found.first else {
            throw fail(found.isEmpty ? "no touchscreen found (touchgesturectl devices --local says why)" : "several touchscreens: name one (\(found.map(\.path).joined(separator: ", ")))")
        }
        return only.path
    }

    func say(_ s: String) { writeOutput(2, Array((s + "\n").utf8)) }
}
