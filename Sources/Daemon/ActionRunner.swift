import CLinux
import GestureConfig
import GestureEngine
import Logging
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the `[[action]]`s gestures fire: key chords through the virtual keyboard, commands as
/// children. Nothing here blocks the loop: a command is started with posix_spawn and reaped when
/// SIGCHLD comes through the signalfd; its output is read from a non-blocking pipe into the log;
/// one timerfd enforces every child's timeout (SIGTERM to its process group, SIGKILL 2 s later).
/// Over `max_action_children` running, a firing is skipped and logged, never queued.
final class ActionRunner {
    private let loop: EventLoop
    private let log: Logger
    var maxChildren: Int
    private var cooldowns = ActionCooldowns()
    private(set) var keyboard: VirtualKeyboard?
    private var children: [Child] = []
    private let timer: DeadlineTimer
    private var skips = RepeatedWarning(what: "skipped")
    /// SIGTERM first; SIGKILL this long after.
    static let killGrace: Int64 = 2_000_000_000
    /// Bytes of a child's output kept per line in the log.
    static let maxLogLine = 1024

    private(set) var started = 0
    private(set) var skipped = 0
    private(set) var failed = 0

    final class Child {
        let pid: Int32
        let action: Action
        let startedAt: Int64
        var termAt: Int64
        var killAt: Int64?
        init(pid: Int32, action: Action, startedAt: Int64) {
            self.pid = pid
            self.action = action
            self.startedAt = startedAt
            termAt = startedAt + action.timeout.nanosecondsClamped
        }
    }

    init(loop: EventLoop, log: Logger, maxChildren: Int) throws {
        self.loop = loop
        self.log = log
        self.maxChildren = maxChildren
        timer = try DeadlineTimer()
        try loop.add(timer.fd) { [unowned self] _ in
            self.timer.acknowledge()
            self.enforceTimeouts()
        }
    }

    /// Commands fired this turn, started once the turn's lines are written (`startPending`).
    private var pending: [(action: Action, argv: [String], env: [String])] = []

    /// Commands running or about to start.
    var running: Int { children.count + pending.count }

    /// A configuration (at start, at each reload): the virtual keyboard exists while some action
    /// presses keys, and survives a reload that keeps key actions.
    func configure(_ actions: [Action]) {
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
            log.error("key actions cannot run: \(error) (the daemon needs write access to /dev/uinput; see README, Actions)")
        }
    }

    /// What a gesture line says of the event, for the command's environment.
    struct Context {
        var event: GestureEvent
        var gestureName: String
        var region: String?
        var device: UInt32
    }

    /// `action` fired for `context`: run it unless it is cooling down or too many are running.
    func fire(_ action: Action, _ context: Context) {
        guard cooldowns.admit(action, at: context.event.time) else {
            log.debug("action '\(action.name)' skipped: cooling down (\(action.cooldown))")
            return
        }
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
                if let more = skips.note(at: monotonicNanoseconds()) {
                    log.warning("action '\(action.name)' skipped: \(children.count) actions running, the limit (max_action_children)\(more)")
                }
                return
            }
            pending.append((action, argv, Self.environment(context)))
        }
    }

    /// Starts the commands fired this turn. Called after the turn's client writes, so that
    /// spawning (the daemon waits while the child execs) never delays a gesture line.
    func startPending() {
        guard !pending.isEmpty else { return }
        for p in pending { spawn(p.action, p.argv, p.env) }
        pending.removeAll(keepingCapacity: true)
    }

    /// A clean environment: a standard PATH and the gesture, nothing of the daemon's.
    static func environment(_ c: Context) -> [String] {
        let e = c.event
        var env = [
            "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
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

    private func spawn(_ action: Action, _ argv: [String], _ env: [String]) {
        var fds: [Int32] = [-1, -1]
        guard cl_output_pipe(&fds) == 0 else {
            failed += 1
            log.error("action '\(action.name)': pipe: \(String(cString: strerror(errno)))")
            return
        }
        var pid: pid_t = 0
        let rc = withCStrings(argv) { cargv in
            withCStrings(env) { cenv in cl_spawn(argv[0], cargv, cenv, fds[1], &pid) }
        }
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            failed += 1
            log.error("action '\(action.name)': cannot start \(argv[0]): \(String(cString: strerror(rc)))")
            return
        }
        started += 1
        let child = Child(pid: pid, action: action, startedAt: monotonicNanoseconds())
        children.append(child)
        log.info("action '\(action.name)' started: \(argv.joined(separator: " ")) (pid \(pid))")
        watchOutput(fds[0], name: action.name, pid: pid)
        armTimer()
    }

    /// The child's stdout and stderr, line by line into the log, until it closes them.
    private func watchOutput(_ fd: Int32, name: String, pid: Int32) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let logLine = { [log] (bytes: ArraySlice<UInt8>) in
            let text = String(decoding: bytes.prefix(Self.maxLogLine), as: UTF8.self)
            log.info("action '\(name)' (pid \(pid)): \(text)")
        }
        do {
            try loop.add(fd) { [unowned self] _ in
                // At most 64 KiB a wake-up: a chatty child cannot hold the loop.
                for _ in 0..<16 {
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
                    if n <= 0 {
                        if !pending.isEmpty { logLine(pending[...]) }
                        if let e = self.loop.remove(fd) { self.log.debug("action '\(name)': \(e)") }
                        close(fd)
                        return
                    }
                    pending += buffer[0..<n]
                    while let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        logLine(pending[..<nl])
                        pending.removeSubrange(...nl)
                    }
                    if pending.count > Self.maxLogLine {
                        logLine(pending[...])
                        pending.removeAll()
                    }
                }
            }
        } catch {
            log.warning("action '\(name)': its output is not read: \(error)")
            close(fd)
        }
    }

    /// SIGCHLD: every child that ended is reaped and its end logged.
    func reap() {
        while true {
            var code: Int32 = 0
            var sig: Int32 = 0
            let pid = cl_reap(&code, &sig)
            guard pid > 0 else { break }
            guard let i = children.firstIndex(where: { $0.pid == pid }) else { continue }
            let c = children.remove(at: i)
            let ms = (monotonicNanoseconds() - c.startedAt) / 1_000_000
            if sig != 0 {
                failed += 1
                log.warning("action '\(c.action.name)' (pid \(pid)) killed by signal \(sig) after \(ms) ms")
            } else if code != 0 {
                failed += 1
                log.warning("action '\(c.action.name)' (pid \(pid)) exited with status \(code) after \(ms) ms")
            } else {
                log.info("action '\(c.action.name)' (pid \(pid)) exited with status 0 after \(ms) ms")
            }
        }
        armTimer()
    }

    private func enforceTimeouts() {
        let now = monotonicNanoseconds()
        for c in children {
            if let killAt = c.killAt {
                if now >= killAt {
                    log.warning("action '\(c.action.name)' (pid \(c.pid)) still running \(Self.killGrace / 1_000_000_000) s after SIGTERM: SIGKILL")
                    kill(-c.pid, SIGKILL)
                    c.killAt = .max
                }
            } else if now >= c.termAt {
                log.warning("action '\(c.action.name)' (pid \(c.pid)) timed out after \(c.action.timeout): SIGTERM")
                kill(-c.pid, SIGTERM)
                c.killAt = now + Self.killGrace
            }
        }
        armTimer()
    }

    private func armTimer() {
        var next: Int64?
        for c in children {
            let due = c.killAt ?? c.termAt
            guard due != .max else { continue }
            if next == nil || due < next! { next = due }
        }
        if let e = timer.arm(at: next) { log.error("action timeout timer: \(e)") }
    }

    /// The daemon stops: running commands get SIGTERM (they are not waited for).
    func stopAll() {
        for c in children { kill(-c.pid, SIGTERM) }
    }
}

/// argv/envp for C: NUL-terminated copies, valid during `body`.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for p in pointers { free(p) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
