import GestureProtocol
import SystemCalls

/// `page`: a connection of the web bridge says which page it carries, and from then on counts
/// as that page's user (its share of connections and of client regions, its right to set
/// regions), not as the bridge's, which would otherwise pool every local user's pages under one
/// uid. Only the bridge speaks for pages: the client must run as `[daemon] bridge_user` (the web
/// unit's `User=`) or as the daemon's own user, because the kernel's socket tables say who owns
/// each end of a TCP connection but not which end connected, and any user can make another
/// user's process connect to a listener of theirs. Then the kernel (sock_diag) says who owns each
/// end of the page's connection: the bridge's end must be the asking client's own user's, the
/// page's end gives the page's user, and that user must be one who could open the daemon's
/// socket itself.
extension Daemon {
    /// Checks the introduction and takes it; the page's uid.
    func takePage(_ c: Client, page pageText: String, bridge bridgeText: String) throws -> UInt32 {
        guard c.page == nil else { throw RequestError(.forbidden, "this connection already carries a page") }
        if let why = notTheBridge(c.peer.uid) { throw RequestError(.forbidden, why) }
        guard let page = TCPEndpoint(pageText), let bridge = TCPEndpoint(bridgeText), page.family == bridge.family else {
            throw RequestError(.invalidField, "'page' and 'bridge' must be HOST:PORT of the same family, found '\(pageText)', '\(bridgeText)'")
        }
        switch TCPEndpoint.owner(local: bridge, remote: page) {
        case .success(let owner) where owner == c.peer.uid: break
        case .success(let owner):
            throw RequestError(.forbidden, "the connection \(bridge) ← \(page) is uid \(owner)'s, not this client's (uid \(c.peer.uid))")
        case .failure(let e): throw RequestError(.forbidden, "no connection \(bridge) ← \(page) on this machine (\(e))")
        }
        let uid: UInt32
        switch TCPEndpoint.owner(local: page, remote: bridge) {
        case .success(let owner): uid = owner
        case .failure(let e): throw RequestError(.forbidden, "the page's end \(page) is not on this machine (\(e))")
        }
        guard let user = UserIdentity.lookup(uid) else { throw RequestError(.forbidden, "uid \(uid) is not in the user database") }
        if let why = user.cannotConnect(to: base.daemon.socket) {
            throw RequestError(.forbidden, "\(why): a page is served only to those who may use the socket")
        }
        if let why = server.turnedAway(uid: uid, besides: c) { throw RequestError(.tooManyClients, why) }
        c.page = (uid, user.gid, page.description)
        log.info("\(c.label): takes its shares and rights from uid \(uid) (\(user.name))")
        return uid
    }

    /// Why `uid` may not speak for pages, or nil when it runs the bridge: the user named by
    /// `[daemon] bridge_user`, or the daemon's own (a bridge started by hand beside a daemon of
    /// the same user gains nothing it did not have).
    func notTheBridge(_ uid: UInt32) -> String? {
        if uid == Posix.effectiveUserID { return nil }
        let bridge = base.daemon.bridgeUser
        if !bridge.isEmpty, UserIdentity.lookup(uid)?.name == bridge { return nil }
        let named = bridge.isEmpty ? "no user ([daemon] bridge_user is \"\")" : "only '\(SafeText.escaped(bridge))' ([daemon] bridge_user)"
        return "a page is introduced by the web bridge alone: \(named) or the daemon's own user may send `page`, not uid \(uid)"
    }
}
