import GestureProtocol
import SystemCalls

/// `page`: a connection of the web bridge says which page it carries, and from then on counts
/// as that page's user (its share of connections and of client regions, its right to set
/// regions), not as the bridge's, which would otherwise pool every local user's pages under one
/// uid. Nothing is taken on the bridge's word: the kernel (sock_diag) says who owns each end of
/// the page's TCP connection. The bridge's end must be the asking client's own user's, the
/// page's end gives the page's user, and that user must be one who could open the daemon's
/// socket itself.
extension Daemon {
    /// Checks the introduction and takes it; the page's uid.
    func takePage(_ c: Client, page pageText: String, bridge bridgeText: String) throws -> UInt32 {
        guard c.page == nil else { throw RequestError(.forbidden, "this connection already carries a page") }
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
}
