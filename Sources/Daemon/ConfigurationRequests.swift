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
        guard let path = options.configPath else {
            throw RequestError(.reloadRefused, "the daemon runs its built-in configuration (no --config file): there is nothing to reload")
        }
        log.notice("\(c.label): asks for a reload")
        reload(&state)
        if let e = lastReloadError { throw RequestError(.reloadRefused, "the configuration was refused, the old one stays: \(e)") }
        return path
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
}
