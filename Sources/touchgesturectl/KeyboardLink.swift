import GestureProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// `touchgesturectl keyboard`'s loop: the daemon's connection (made again when it goes), the
/// signals, the keyboard's exit. It trusts no server: a line only shows or hides its own
/// keyboard, a send that waits over 2 s drops the connection, what it prints is escaped.
struct KeyboardLink {
    let socket: String
    private var keyboard: KeyboardProcess
    let region: String
    let heights: (portrait: Int, landscape: Int)
    private var connection: Connection?
    private var screen: (width: Double, height: Double)?
    private var shown = false
    /// Hidden because a reload dropped its area: shown again if the reload's `screen` line
    /// follows (the area moved with the screen; the old one lay off the new screen).
    private var hiddenByReload = false
    private var retryAt: Int64 = 0
    private var retrySeconds = 1
    /// The daemon is out of reach (said once until it is back).
    private var away = false

    /// A send that waits longer (a server that stopped reading) drops the connection.
    static let sendTimeoutMs = 2000

    init(socket: String, keyboard: KeyboardProcess, region: String, heights: (portrait: Int, landscape: Int)) {
        (self.socket, self.keyboard, self.region, self.heights) = (socket, keyboard, region, heights)
    }

    static func nameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64, !name.contains("/") else { return "1 to 64 bytes, no '/'" }
        guard !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            return "no control character"
        }
        return nil
    }

    /// Until the keyboard exits (its exit code, or 128 + its signal) or a stop signal (0).
    mutating func run(signals: Int32, exits: Int32) -> Int32 {
        connect()
        while true {
            var fds = [signals, exits]
            if let c = connection { fds.append(c.fd) }
            let wait = connection == nil ? Int32(max(0, (retryAt - Posix.monotonicNanoseconds()) / 1_000_000) + 1) : -1
            guard case .success(let ready) = Posix.poll(fds, events: Int16(POLLIN), timeoutMs: wait) else { continue }
            if ready[1] != 0 {
                let code = keyboard.exitCode()
                say("touchgesturectl keyboard: the keyboard exited (status \(code)); its area is no longer excluded")
                return code
            }
            if ready[0] != 0, let code = takeSignals(signals) { return code }
            if fds.count == 3, ready[2] != 0 { readDaemon() }
            if connection == nil && Posix.monotonicNanoseconds() >= retryAt { connect() }
        }
    }

    // MARK: - The keyboard

    private mutating func show() {
        hiddenByReload = false
        guard !shown else { return }
        shown = true
        keyboard.show()
        sendRegion()
    }

    private mutating func hide() {
        hiddenByReload = false
        guard shown else { return }
        shown = false
        keyboard.hide()
        send(#"{"op":"clear_regions","id":4}"#)
    }

    /// The signals that came: hide, show, toggle, or stop (the keyboard is ended first).
    private mutating func takeSignals(_ fd: Int32) -> Int32? {
        while let s = Posix.nextSignal(fd) {
            switch s {
            case SIGUSR1: hide()
            case SIGUSR2: show()
            case Posix.firstRealTimeSignal: if shown { hide() } else { show() }
            case SIGTERM, SIGINT, SIGHUP:
                keyboard.stop()
                return 0
            default: break
            }
        }
        return nil
    }

    // MARK: - The daemon

    private mutating func connect() {
        let timeout = Self.sendTimeoutMs
        guard
            let c = (try? Connection(SocketPaths.requests(besides: socket), quiet: true, sendTimeoutMs: timeout))
                ?? (try? Connection(socket, quiet: true, sendTimeoutMs: timeout))
        else { return lost("cannot reach the daemon at \(socket)") }
        connection = c
        (screen, hiddenByReload) = (nil, false)
        // No gesture lines, but the lines every gesture subscriber gets (keyboard, idle, wake).
        send(#"{"op":"subscribe","id":1,"gestures":[]}"#)
        send(#"{"op":"get_config","id":2}"#)
    }

    /// The connection is gone (or was never made): another try later, later each time (1 s to
    /// 10 s) until a connection answers; said once.
    private mutating func lost(_ why: String) {
        connection = nil
        if !away { say("touchgesturectl keyboard: \(why); connecting again") }
        away = true
        retryAt = Posix.monotonicNanoseconds() + Int64(retrySeconds) * 1_000_000_000
        retrySeconds = min(retrySeconds * 2, 10)
    }

    private mutating func send(_ line: String) {
        guard let c = connection, !c.trySend(line) else { return }
        lost("the daemon did not take a request within \(Self.sendTimeoutMs) ms")
    }

    private mutating func readDaemon() {
        guard let c = connection else { return }
        repeat {
            guard let line = c.readLine(until: Posix.monotonicNanoseconds() + 100_000_000) else {
                if !c.timedOut { lost("the daemon closed the connection") }
                return
            }
            take(line)
        } while connection != nil && c.hasBufferedLine
    }

    private mutating func take(_ line: String) {
        guard let v = try? parseJSON(Array(line.utf8)), case .string(let type)? = v["type"] else { return }
        // A drop's `screen` line is the very next line of the same reload; after any other, the
        // keyboard stays hidden until asked again.
        let reshow = hiddenByReload
        hiddenByReload = false
        switch type {
        case "keyboard":
            switch v["keyboard"] {
            case .string("show")?: show()
            case .string("hide")?: hide()
            case .string("toggle")?: if shown { hide() } else { show() }
            default: break
            }
        case "reply" where v["id"] == .number(2):
            if away { say("touchgesturectl keyboard: connected to \(socket)") }
            (away, retrySeconds) = (false, 1)  // the connection answers: the back-off starts again from 1 s
            takeScreen(v)
        // A reload changed the screen: the keyboard's area follows it (shown again where the
        // reload dropped it off the new screen; refused again, hidden again).
        case "screen":
            takeScreen(v)
            if reshow { show() }
        case "error":
            let message = { if case .string(let m)? = v["message"] { String(m.prefix(1024)) } else { "error" } }()
            say("touchgesturectl keyboard: the daemon refused: \(SafeText.escaped(message))")
            // Its area would stay gestures under a keyboard shown: hidden until asked again.
            let refused = v["id"] == .number(3) || v["code"] == .string("regions_dropped")
            if refused && shown {
                say("touchgesturectl keyboard: the keyboard is hidden (its area could not be excluded)")
                hide()
                hiddenByReload = v["code"] == .string("regions_dropped")
            }
        default: break
        }
    }

    /// The screen of `get_config`'s answer or of a `screen` line; the area excluded again over
    /// a keyboard shown.
    private mutating func takeScreen(_ v: JSONValue) {
        guard case .object(let s)? = v["screen"], case .number(let w)? = s.first(where: { $0.0 == "width" })?.1,
            case .number(let h)? = s.first(where: { $0.0 == "height" })?.1, w >= 1, h >= 1, w <= 1e6, h <= 1e6
        else { return say("touchgesturectl keyboard: the daemon's answer has no screen size; no area is excluded") }
        screen = (w, h)
        if shown { sendRegion() }
    }

    /// The excluded region over the keyboard's area (along the bottom edge), this connection's
    /// only region.
    private mutating func sendRegion() {
        guard connection != nil, let screen else { return }
        let h = min(Double(screen.width > screen.height ? heights.landscape : heights.portrait), screen.height)
        let rect: [JSONValue] = [0, screen.height - h, screen.width, h].map { .number($0) }
        let r: JSONValue = .object([("name", .string(region)), ("rect", .array(rect)), ("exclude", .bool(true))])
        send(jsonText(.object([("op", .string("set_regions")), ("id", .number(3)), ("regions", .array([r]))])))
    }
}
