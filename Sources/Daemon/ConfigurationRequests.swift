import GestureEngine
import GestureProtocol
import SystemCalls

/// Requests that change the configuration the daemon runs (`reload`; `calibrate` with `save`):
/// they need the rights the socket's mode gives its group, whoever else the mode lets connect.
extension Daemon {
    /// `reload`: the configuration read again, as SIGHUP does, for a client with those rights
    /// (touchgesturectl calibrate asks this way: a client signals no process it cannot vouch
    /// for). The file reloaded, or why not.
    func reload(asking c: Client, _ state: inout FrameState) throws -> String {
        try checkMayChangeConfiguration(c, "reloading the configuration")
        guard options.configPath != nil || options.calibrationFile != nil else {
            throw RequestError(.reloadRefused, "the daemon runs its built-in configuration (no --config file, no state folder): there is nothing to reload")
        }
        try takeChangeTurn(.reloadRefused)
        log.notice("\(c.label): asks for a reload")
        reload(&state)
        if let e = lastReloadError { throw RequestError(.reloadRefused, "the configuration was refused, the old one stays: \(e)") }
        return options.configPath ?? "built-in"
    }

    /// How often clients may change the configuration: a reload of the largest configuration
    /// takes about 0.1 s of the loop, so one a second keeps a client that asks without pause
    /// (a group member's loop of requests) to a tenth of it, far from the watchdog.
    static let changeSpacingNanoseconds: Int64 = 1_000_000_000

    /// Refuses (with `code`) a change sooner than `changeSpacingNanoseconds` after the last
    /// client's; else takes its turn.
    func takeChangeTurn(_ code: ErrorCode) throws {
        let now = monotonicNanoseconds()
        if let last = lastClientChange, now - last < Self.changeSpacingNanoseconds {
            let wait = (Self.changeSpacingNanoseconds - (now - last)) / 1_000_000 + 1
            throw RequestError(code, "clients change the configuration once a second at most: ask again in \(wait) ms")
        }
        lastClientChange = now
    }

    /// The client's user (a page's own, for a page of the web bridge) must be root or a member
    /// of the group that owns the stream socket.
    func checkMayChangeConfiguration(_ c: Client, _ what: String) throws {
        if c.uid == 0 { return }
        guard case .success(let socket) = Posix.status(base.daemon.socket) else {
            throw RequestError(.forbidden, "the socket's group cannot be read: \(what) is for root alone")
        }
        guard let user = UserIdentity.lookup(c.uid), user.gid == socket.gid || user.groups.contains(socket.gid) else {
            throw RequestError(.forbidden, "\(what) needs the socket's group (gid \(socket.gid)) or root; uid \(c.uid) is not in it")
        }
    }

    /// A reload changed the screen the `hello` gave: every client that takes gesture or touch
    /// lines is told (`screen`), since their positions are in the new one from now on.
    func tellScreen(_ screen: PixelRect, _ state: inout FrameState) {
        writer.reset()
        Messages.screen(&writer, screen, time: Double(monotonicNanoseconds()) / 1e9)
        state.fanout.broadcast(writer.bytes, orTouches: true)
        writer.reset()
    }
}
