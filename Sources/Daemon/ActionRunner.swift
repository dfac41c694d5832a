import GestureConfig
import GestureEngine
import GestureProtocol
import Logging
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the `[[action]]`s gestures fire: key chords through the virtual keyboard (here, as only
/// the daemon may write /dev/uinput), commands through the action runner, a process of its own
/// (`RunnerLink`: the daemon's child, or touchgestured-actions.service under another user) that
/// counts, times out and kills each command's whole process tree. Nothing here blocks the loop:
/// a firing is one message to the runner, sent after the turn's client writes. Over the cap a
/// firing is skipped and logged, never queued.
final class ActionRunner {
    private let log: Logger
    var maxChildren: Int
    private var cooldowns = ActionCooldowns()
    private(set) var keyboard: VirtualKeyboard?
    let link: RunnerLink
    private var warnings = RepeatedWarning(what: "skipped or failed")

    private(set) var started = 0
    private(set) var skipped = 0
    private(set) var failed = 0

    init(loop: EventLoop, log: Logger, maxChildren: Int, runnerSocket: String?, verbose: Bool) {
        self.log = log
        self.maxChildren = maxChildren
        link = RunnerLink(loop: loop, log: log, socket: runnerSocket, verbose: verbose)
        link.onReply = { [unowned self] m in self.replied(m) }
    }

    /// Commands fired this turn, sent once the turn's lines are written (`startPending`).
    private var pending: [(action: Action, argv: [String], env: [String], firedAt: Int64)] = []
    /// `pending` is not empty: a plain flag, asked after every loop turn (a flag only ever
    /// loaded and stored needs no runtime exclusivity check; the array does).
    private var hasPending = false

    /// Commands running (until every process of theirs has ended) or about to start.
    var running: Int { link.inFlight + pending.count }

    /// A configuration (at start, at each reload): the virtual keyboard exists while some action
    /// presses keys, and survives a reload that keeps key actions.
    func configure(_ actions: [Action]) {
        if actions.contains(where: { if case .exec = $0.effect { true } else { false } }), let e = link.connect() {
            // Up before the first gesture: the runner's start is not paid by a firing.
            log.error("exec actions cannot run: \(e)")
        }
        var extra = Set<UInt16>()
        var needsKeys = false
        for a in actions {
            guard case .keys(let codes, _) = a.effect else { continue }
            needsKeys = true
            for c in codes where c >= 0x100 { extra.insert(c) }
        }
        guard needsKeys else {
            if keyboard != nil { log.info("no key action left: the virtual keyboard is removed") }
            keyboard = nil
            return
        }
        if let k = keyboard, extra.isSubset(of: k.keys) { return }
        do {
            keyboard = nil
            let k = try VirtualKeyboard(extraKeys: extra)
            keyboard = k
            log.info("virtual keyboard for key actions: \(k.devnode ?? "(node unknown)")")
        } catch {
            log.error("key actions cannot run: \(error) (the daemon needs write access to /dev/uinput; see docs/GUIDE.md, \"Actions\")")
        }
    }

    /// What a gesture line says of the event, for the command's environment.
    struct Context {
        var event: GestureEvent
        var gestureName: String
        var region: String?
        var device: UInt32
        /// Fired on idle or wake, not by a gesture.
        var moment: Action.Moment? = nil
    }

    /// `action` fired for `context`: run it unless it is cooling down or too many are running;
    /// a keyboard action is a `keyboard` line to every client that takes gesture lines.
    func fire(_ action: Action, _ context: Context, _ state: inout FrameState) {
        guard !cooldowns.isCooling(action, at: context.event.time) else {
            log.debug("action '\(action.name)' skipped: cooling down (\(action.cooldown))")
            return
        }
        // A command skipped for the limit below starts no cooldown: the next firing may run.
        var overLimit = false
        if case .exec = action.effect { overLimit = running >= maxChildren }
        if !overLimit { cooldowns.note(action, at: context.event.time) }
        switch action.effect {
        case .keys(let codes, _):
            guard let keyboard else {
                failed += 1
                log.warning("action '\(action.name)': no virtual keyboard, \(action) not pressed")
                return
            }
            do {
                try keyboard.press(codes)
                started += 1
                log.info("action '\(action.name)': pressed \(action)")
            } catch {
                failed += 1
                log.error("action '\(action.name)': \(error)")
            }
        case .exec(let argv):
            guard running < maxChildren else {
                skipped += 1
                if let more = warnings.note(at: monotonicNanoseconds()) {
                    log.warning("action '\(action.name)' skipped: \(running) actions running, the limit (max_action_children)\(more)")
                }
                return
            }
            pending.append((action, argv, Self.environment(context), monotonicNanoseconds()))
            hasPending = true
        case .keyboard(let command):
            var w = JSONLineWriter(capacity: 128)
            Messages.keyboard(
                &w, command: command.rawValue, action: action.name, time: context.event.time.seconds,
                device: context.moment == nil || context.moment == .wake ? context.device : nil)
            if state.fanout.broadcast(w.bytes) > 0 {
                started += 1
                log.info("action '\(action.name)': keyboard \(command.rawValue)")
            } else {
                failed += 1
                if let more = warnings.note(at: monotonicNanoseconds()) {
                    log.warning("action '\(action.name)': keyboard \(command.rawValue), but no client takes it (is touchgesturectl keyboard running?)\(more)")
                }
            }
        }
    }

    /// Sends the commands fired this turn to the runner. Called after the turn's client writes.
    func startPending() {
        guard hasPending else { return }
        hasPending = false
        for p in pending {
            let timeoutMs = Int(p.action.timeout.nanosecondsClamped / 1_000_000)
            let error = link.run(
                name: p.action.name, argv: p.argv, env: p.env, timeoutMs: timeoutMs, maxProcesses: maxChildren,
                firedAt: Int(p.firedAt / 1000))
            if let error {
                failed += 1
                if let more = warnings.note(at: monotonicNanoseconds()) { log.error("action '\(p.action.name)' not run: \(error)\(more)") }
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// What the runner said of a command (it logs the details itself).
    private func replied(_ m: RunnerMessage) {
        switch m {
        case .started(_, _, let us): started += 1; log.debug("an action started \(us) µs after its gesture")
        case .skipped: skipped += 1
        case .failed: failed += 1
        case .ended(_, let status, let signal, _): if status != 0 || signal != 0 { failed += 1 }
        case .run: log.warning("the action runner sent a request: ignored")
        }
    }

    /// A clean environment: a standard PATH and the gesture, nothing of the daemon's.
    static func environment(_ c: Context) -> [String] {
        let path = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        if let m = c.moment {
            return [path, "TOUCHGESTURED_EVENT=\(m.rawValue)"] + (m == .wake ? ["TOUCHGESTURED_DEVICE=\(c.device)"] : [])
        }
        let e = c.event
        var env = [
            path,
            "TOUCHGESTURED_EVENT=gesture",
            "TOUCHGESTURED_GESTURE=\(e.kind.rawValue)",
            "TOUCHGESTURED_NAME=\(c.gestureName)",
            "TOUCHGESTURED_PHASE=\(e.phase.rawValue)",
            "TOUCHGESTURED_REGION=\(c.region ?? EngineConfiguration.screenRegionName)",
            "TOUCHGESTURED_FINGERS=\(e.fingers)",
            "TOUCHGESTURED_X=\(Int(e.position.x.rounded()))",
            "TOUCHGESTURED_Y=\(Int(e.position.y.rounded()))",
            "TOUCHGESTURED_DEVICE=\(c.device)",
        ]
        env.append("TOUCHGESTURED_DIRECTION=\(e.direction?.rawValue ?? "")")
        env.append("TOUCHGESTURED_EDGE=\(e.edge?.rawValue ?? "")")
        return env
    }

    /// SIGCHLD: the daemon's only child is its action runner.
    func reap() { link.reap() }

    /// The daemon stops: the runner ends every command's tree; a runner of the daemon's own is
    /// waited for (a grace at most), so that nothing an action started outlives the daemon.
    func stopAll() { link.close(waitForChild: true) }
}
