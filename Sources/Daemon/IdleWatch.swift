import GestureConfig
import GestureEngine
import GestureProtocol
import Logging
import TouchInput

/// Touch to wake (`[idle] after`): a timer at the last touch (a frame with a contact the filters
/// show, or its lift) plus the idle time. When it fires, no touch came since and no finger rests
/// on a panel, the kiosk is idle: `on = "idle"` actions run once and clients get an `idle` line. The next read wakes it (`DeviceTable.asleep`): its touch is swallowed
/// (`WakeTouch`: no gesture, no line, nothing passed through), `on = "wake"` actions run, clients get a `wake`
/// line, and the timer starts again. No polling: one timer expiry per idle time at most.
final class IdleWatch {
    let timer: DeadlineTimer
    /// The idle time (ns); 0: never idle.
    var afterNs: Int64 = 0
    /// Since when the kiosk counts as touched: the start, the last wake, a reload.
    var since: Int64
    private(set) var idles = 0
    private(set) var wakes = 0
    /// The udev monitor of displays (DRM), while `[idle] display` has displays to watch.
    var displays: DisplayHotplug?
    /// What was last said of the displays (at start or a reload): said again only when it changes.
    var displayNote: String?
    /// A contact held idle off for ten idle times with no report, and the log said so.
    var heldSaid = false
    /// The wake actions of the configuration under which the kiosk went idle: the counterparts
    /// of its idle actions, run when a reload turns idle off (the new file may hold none).
    var wakeActions: [Action] = []

    init(now: Int64) throws(EventLoop.Failure) {
        timer = try DeadlineTimer()
        since = now
    }

    /// When the timer should fire next, given the newest frame: nil when idle is off.
    func due(lastFrame: Int64?) -> Int64? {
        guard afterNs > 0 else { return nil }
        return max(since, lastFrame ?? since) + afterNs
    }

    func countIdle() { idles += 1 }
    func countWake() { wakes += 1 }
}

extension Daemon {
    /// Watches for idle from the start (when `[idle] after` is set).
    func startIdleWatch(_ state: inout FrameState) throws {
        try loop.add(idle.timer.fd) { [unowned self] _, state in self.idleTimerFired(&state) }
        configureIdle(&state)
    }

    /// `[idle] after` from the configuration (at start and on reload): counted from now. Idle
    /// turned off while the kiosk is idle wakes it (clients' `wake` line, with no device; the new
    /// file's `on = "wake"` actions, or, where it has none, those of the file under which the
    /// kiosk went idle, the counterparts of the idle actions that ran): a dimmed screen would
    /// stay so.
    func configureIdle(_ state: inout FrameState) {
        idle.afterNs = Int64(base.idleAfter * 1e9)
        idle.since = monotonicNanoseconds()
        if idle.afterNs == 0 && state.devices.wake.asleep {
            state.devices.wake.asleep = false
            idle.countWake()
            log.info("wake: [idle] after is off now (a reload)")
            let wake = base.actions.contains { $0.on == .wake } ? nil : idle.wakeActions
            moment(.wake, device: nil, at: idle.since, &state, actions: wake)
        }
        state.devices.wake.display = watchedDisplay()
        armIdle(state)
    }

    /// `[idle] display`: the displays to read when a touch lands, or nil. In pass-through the
    /// compositor's idle tool lights the display on the touch it gets; swallowing that touch
    /// would leave the display dark, so there the daemon takes it only when an `on = "wake"`
    /// action can light the display.
    private func watchedDisplay() -> DisplayWatch? {
        guard base.displayWakes else { return nil }
        let watch = DisplayWatch(root: base.sysfsRoot)
        var notes: [(Logger.Level, String)] = []
        if watch.passedOver > 0 {
            notes.append((.notice, "display: \(watch.passedOver) connectors or backlights past the first \(DisplayWatch.most) of each are not read"))
        }
        defer { sayOnce(notes) }
        guard watch.sees else {
            notes.append((.info, "display: no display state under \(base.sysfsRoot)/class (drm, backlight): a touch on a dark display is not told apart"))
            return nil
        }
        if base.daemon.mode == .passthrough && !base.actions.contains(where: { $0.on == .wake }) {
            notes.append((
                .notice,
                "display: a touch on a dark display goes on to the compositor (whose idle tool lights the display on it): add an [[action]] on = \"wake\" that lights the display, and touchgestured swallows that touch"
            ))
            return nil
        }
        watchDisplayHotplug()
        return watch
    }

    /// The displays' notes, unless they are the ones said last (each reload read them again and
    /// said them again).
    private func sayOnce(_ notes: [(Logger.Level, String)]) {
        let said = notes.map(\.1).joined(separator: "\n")
        guard said != idle.displayNote else { return }
        idle.displayNote = said
        for (level, message) in notes { log.log(level: level, "\(message)") }
    }

    /// Lists the displays again when one is plugged or unplugged (once started, the monitor stays).
    private func watchDisplayHotplug() {
        guard idle.displays == nil, let monitor = DisplayHotplug() else { return }
        do {
            try loop.add(monitor.fd) { [unowned self] _, state in
                guard monitor.drain() else { return }
                state.devices.wake.display?.list()
                self.log.info("display: a display came or went: \(state.devices.wake.display?.connectors.count ?? 0) connectors listed")
            }
            idle.displays = monitor
        } catch {
            log.notice("display: no DRM hotplug (\(error)): displays are listed at start and on reload")
        }
    }

    private func armIdle(_ state: borrowing FrameState) {
        let due = state.devices.wake.asleep ? nil : idle.due(lastFrame: state.devices.lastTouchAt)
        if let e = idle.timer.arm(at: due) { log.error("idle timer: \(e)") }
    }

    private func idleTimerFired(_ state: inout FrameState) {
        idle.timer.acknowledge()
        guard let due = idle.due(lastFrame: state.devices.lastTouchAt), !state.devices.wake.asleep else { return }
        let now = monotonicNanoseconds()
        guard now >= due else { return armIdle(state) }
        // A finger resting on the glass (the kernel sends nothing while it holds still): in use.
        // Its lift is a touch that starts the idle time again; until then a look every idle time.
        // A contact the panel holds down for good (a phantom, a hung controller) holds idle off
        // too, as a finger would (the touch that woke the kiosk under it would take it for part
        // of itself). Said once an episode, after ten idle times.
        if state.devices.touched {
            let quiet = now - (state.devices.lastFrameAt ?? idle.since)
            if quiet >= 10 * idle.afterNs && !idle.heldSaid {
                idle.heldSaid = true
                log.notice("idle: a contact has been down with no report for \(quiet / 1_000_000_000) s: the kiosk does not go idle under it (a stuck contact? [device.filters] stuck_after ends one)")
            }
            if let e = idle.timer.arm(at: now + idle.afterNs) { log.error("idle timer: \(e)") }
            return
        }
        idle.heldSaid = false
        idle.wakeActions = base.actions.filter { $0.on == .wake }
        state.devices.wake.asleep = true
        idle.countIdle()
        log.info("idle: no touch for \(base.idleAfter) s")
        moment(.idle, device: nil, at: now, &state)
    }

    /// A touch on device `id` woke the kiosk (DeviceOwner).
    func woke(by id: UInt32, inTheDark: Bool, _ state: inout FrameState) {
        let now = monotonicNanoseconds()
        idle.countWake()
        idle.since = now
        let name = state.devices.index(of: id).map { " (\(state.devices.all[$0].source.description.name))" } ?? ""
        log.info("wake: a touch on device \(id)\(name)\(inTheDark ? " on a dark display" : "") (that touch is swallowed)")
        moment(.wake, device: id, at: now, &state)
        armIdle(state)
    }

    /// Runs the actions `on` the moment (`actions`, or the configuration's), and tells the clients.
    private func moment(_ m: Action.Moment, device: UInt32?, at now: Int64, _ state: inout FrameState, actions list: [Action]? = nil) {
        for a in list ?? base.actions where a.on == m {
            var event = GestureEvent(kind: .tap, phase: .recognized, time: Timestamp(nanoseconds: now), position: .zero)
            event.gesture = -1
            actions.fire(a, .init(event: event, gestureName: m.rawValue, region: nil, device: device ?? 0, moment: m), &state)
        }
        writer.reset()
        Messages.moment(&writer, wake: m == .wake, time: Double(now) / 1e9, device: device)
        state.fanout.broadcast(writer.bytes)
        writer.reset()
    }
}
