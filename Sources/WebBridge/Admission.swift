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
        if let why = hosts.refusal(head.headers["Host"], version: head.version) {
            return Declined(head: head, status: why.status, why: why.text)
        }
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

    /// RFC 6455, 4.2.1: a GET, `Connection: Upgrade`, a 16-byte base64 `Sec-WebSocket-Key`,
    /// `Sec-WebSocket-Version: 13` (another version: 426 naming 13, 4.4).
    func handshakeRefusal(_ head: HTTPRequestHead) -> Declined? {
        guard head.method == .GET else {
            return Declined(head: head, status: .methodNotAllowed, why: "a WebSocket handshake is a GET", headers: [("Allow", "GET")])
        }
        guard head.version.major == 1, head.version.minor >= 1 else {
            return Declined(head: head, status: .badRequest, why: "a WebSocket handshake is HTTP/1.1")
        }
        let connection = head.headers[canonicalForm: "Connection"].map { $0.lowercased() }
        guard connection.contains("upgrade") else {
            return Declined(head: head, status: .badRequest, why: "a WebSocket handshake says Connection: Upgrade")
        }
        let keys = head.headers["Sec-WebSocket-Key"]
        guard keys.count == 1, Self.isKey(keys[0]) else {
            return Declined(head: head, status: .badRequest, why: "a WebSocket handshake has one Sec-WebSocket-Key: 16 bytes in base64")
        }
        guard head.headers["Sec-WebSocket-Version"] == ["13"] else {
            return Declined(
                head: head, status: .upgradeRequired, why: "this bridge speaks WebSocket version 13 (RFC 6455)",
                headers: [("Sec-WebSocket-Version", "13")])
        }
        return nil
    }

    /// 16 bytes in base64: 22 characters of the alphabet and `==`.
    static func isKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        let last = bytes[21]
        // The 22nd character holds 4 bits of data and 2 zero bits: one of A, Q, g, w.
        guard [UInt8(ascii: "A"), UInt8(ascii: "Q"), UInt8(ascii: "g"), UInt8(ascii: "w")].contains(last) else { return false }
        return bytes[..<22].allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "+") || b == UInt8(ascii: "/")
        }
    }

    private func originRefusal(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String)? {
        let given = head.headers["Origin"]
        guard given.count <= 1 else { return (.forbidden, "more than one Origin") }
        let origin = given.first
        if origins.allows(origin) { return nil }
        return (.forbidden, "origin \(origin ?? "") may not open \(BridgeSettings.endpoint) (touchgestured-web --allow-origin)")
    }

    private func message(_ refusal: ConnectionSlots.Refusal) -> String {
        switch refusal {
        case .full: "every connection is taken (--max-connections \(slots.limit))"
        case .userFull(let uid): "uid \(uid) holds \(slots.perUser) connections already (--max-connections-per-user)"
        }
    }
}

/// Which `Host` a request may name: the bridge's own address and loopback names (with its port),
/// and the hosts of the origins let in with `--allow-origin`. A page that DNS made point at
/// 127.0.0.1 still sends its own name, and is refused.
struct HostPolicy: Sendable {
    /// Lowercased `host:port` (and `host` for an origin on its scheme's default port).
    let allowed: Set<String>
    /// `*` among the origins: any host.
    let any: Bool

    init(settings: BridgeSettings) {
        var names = Set<String>()
        for origin in settings.ownOrigins + settings.extraOrigins where origin != "*" && origin != "null" {
            guard let scheme = origin.firstRange(of: "://") else { continue }
            let hostPort = String(origin[scheme.upperBound...])
            let standard = origin.hasPrefix("https://") ? "443" : "80"
            // A port is what follows the last colon, unless that colon is inside [v6].
            if let colon = hostPort.lastIndex(of: ":"), !hostPort[colon...].contains("]") {
                names.insert(hostPort)
                if hostPort[hostPort.index(after: colon)...] == standard { names.insert(String(hostPort[..<colon])) }
            } else {
                names.insert(hostPort)
                names.insert(hostPort + ":" + standard)
            }
        }
        allowed = names
        any = settings.extraOrigins.contains("*")
    }

    init(allowed: Set<String>, any: Bool = false) { (self.allowed, self.any) = (allowed, any) }

    /// Why `Host` is refused, or nil. HTTP/1.1 requires exactly one (RFC 7230, 5.4: 400 otherwise).
    func refusal(_ hosts: [String], version: HTTPVersion) -> (status: HTTPResponseStatus, text: String)? {
        guard hosts.count <= 1 else { return (.badRequest, "more than one Host header") }
        guard let host = hosts.first else {
            return version.minor >= 1 || version.major > 1 ? (.badRequest, "an HTTP/1.1 request names its Host") : nil
        }
        if any || allowed.contains(host.lowercased()) { return nil }
        return (.forbidden, "Host '\(host)' is not this bridge (touchgestured-web --listen, --allow-origin)")
    }
}
