import NIOHTTP1

/// Whether a request is served, and whether a WebSocket handshake is let in: decided once, by
/// the upgrade, which either takes the page's slot there and then or keeps the refusal for the
/// HTTP answer that says why. (Deciding twice raced: a slot freed between the two turned a 503
/// into a 400.) Every request, plain or upgrading, first passes the peer's check (only those who
/// may open the daemon's socket: `PeerGate`) and the `Host` check (a page of another site that
/// renamed itself to 127.0.0.1 by DNS, "DNS rebinding", names its own host).
struct Admission: Sendable {
    let origins: OriginPolicy
    let hosts: HostPolicy
    let slots: ConnectionSlots

    /// A request turned away: its head and the answer it gets.
    struct Declined: Sendable {
        let head: HTTPRequestHead
        let status: HTTPResponseStatus
        let why: String
        /// Headers the answer carries besides (426: the version this bridge speaks).
        var headers: [(String, String)] = []

        init(head: HTTPRequestHead, status: HTTPResponseStatus, why: String, headers: [(String, String)] = []) {
            (self.head, self.status, self.why, self.headers) = (head, status, why, headers)
        }

        init(_ head: HTTPRequestHead, _ r: Refusal) {
            self.init(head: head, status: HTTPResponseStatus(statusCode: r.status), why: r.why, headers: r.headers.map { ($0.name, $0.value) })
        }
    }

    enum Decision: Sendable {
        /// Let in, holding its slot from the handshake on.
        case welcome(ConnectionSlot)
        case refused(Declined)
        /// Not the endpoint: plain HTTP.
        case notEndpoint
    }

    /// Why a request of `peer` is not served at all (403), or nil.
    func gate(_ head: HTTPRequestHead, peer: PeerGate.Peer) -> Declined? {
        if case .refused(let why, _) = peer { return Declined(head: head, status: .forbidden, why: why) }
        if let refusal = hosts.refusal(Self.plain(head)) { return Declined(head, refusal) }
        return nil
    }

    /// The decision for a handshake (any request NIO's upgrader saw: one with `Upgrade:
    /// websocket`); a welcome takes one of the slots.
    func admit(_ head: HTTPRequestHead, peer: PeerGate.Peer) -> Decision {
        if let declined = gate(head, peer: peer) { return .refused(declined) }
        guard StaticFiles.path(head.uri) == BridgeSettings.endpoint else { return .notEndpoint }
        if let declined = handshakeRefusal(head) { return .refused(declined) }
        if let (status, why) = originRefusal(head) { return .refused(Declined(head: head, status: status, why: why)) }
        switch slots.claim(for: peer.uid) {
        case .success(let slot): return .welcome(slot)
        case .failure(let refusal): return .refused(Declined(head: head, status: .serviceUnavailable, why: message(refusal)))
        }
    }

    /// The answer to an upgrade NIO turned down before asking (its key or version): the gate's
    /// refusal, the handshake's fault on the endpoint, or nil for a file (served as asked).
    func failedUpgrade(_ head: HTTPRequestHead, peer: PeerGate.Peer) -> Declined? {
        if let declined = gate(head, peer: peer) { return declined }
        guard StaticFiles.path(head.uri) == BridgeSettings.endpoint else { return nil }
        return handshakeRefusal(head) ?? Declined(head: head, status: .badRequest, why: "a malformed WebSocket handshake")
    }

    /// Why a plain (not upgrading) request to the endpoint may not open it, or what it lacks.
    func plainRefusal(_ head: HTTPRequestHead, peer: PeerGate.Peer) -> Declined {
        if let declined = gate(head, peer: peer) { return declined }
        if let (status, why) = originRefusal(head) { return Declined(head: head, status: status, why: why) }
        return Declined(
            head: head, status: .upgradeRequired,
            why: "\(BridgeSettings.endpoint) is a WebSocket endpoint: open it with new WebSocket(url)",
            headers: [("Upgrade", "websocket"), ("Connection", "Upgrade")])
    }

    /// RFC 6455's handshake rules (`HandshakeRules`) on NIO's head.
    func handshakeRefusal(_ head: HTTPRequestHead) -> Declined? {
        HandshakeRules.refusal(Self.plain(head)).map { Declined(head, $0) }
    }

    static func isKey(_ key: String) -> Bool { HandshakeRules.isKey(key) }

    /// The request's `Origin` when it is one the endpoint lets in (the page may then read the
    /// site's files across origins), or nil (none, several, or not allowed).
    func allowedOrigin(_ head: HTTPRequestHead) -> String? {
        let given = head.headers["Origin"]
        guard given.count == 1, let origin = given.first, HandshakeRules.originRefusal(Self.plain(head), origins) == nil else { return nil }
        return origin
    }

    private func originRefusal(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String)? {
        HandshakeRules.originRefusal(Self.plain(head), origins).map { (HTTPResponseStatus(statusCode: $0.status), $0.why) }
    }

    /// NIO's head as the rules read it.
    static func plain(_ head: HTTPRequestHead) -> RequestHead {
        RequestHead(
            method: head.method.rawValue, uri: head.uri, http11: head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1),
            headers: head.headers.map { (name: $0.name, value: $0.value) })
    }

    private func message(_ refusal: ConnectionSlots.Refusal) -> String {
        switch refusal {
        case .full: "every connection is taken (--max-connections \(slots.limit))"
        case .userFull(let uid): "uid \(uid) holds \(slots.perUser) connections already (--max-connections-per-user)"
        }
    }
}
