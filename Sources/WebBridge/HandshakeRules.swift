/// The rules a request's head is held to, in plain Swift (no NIO), so that they can be fuzzed
/// (Fuzz/FuzzBridge) and read in one place: the WebSocket handshake (RFC 6455, 4.2.1 and 4.4),
/// the `Origin` of a page and the `Host` it names. `Admission` applies them to NIO's heads.
public struct RequestHead: Sendable {
    public var method: String
    public var uri: String
    /// HTTP/1.1 or later (a handshake needs it, and so does a request without `Host`).
    public var http11: Bool
    public var headers: [(name: String, value: String)]

    public init(method: String, uri: String, http11: Bool, headers: [(name: String, value: String)]) {
        (self.method, self.uri, self.http11, self.headers) = (method, uri, http11, headers)
    }

    /// Every value of the header `name` (case-insensitive), a comma-separated list split.
    public func values(_ name: String, splitting: Bool = false) -> [String] {
        let lower = name.lowercased()
        let raw = headers.filter { $0.name.lowercased() == lower }.map(\.value)
        guard splitting else { return raw.map(Self.trimmed) }
        return raw.flatMap { $0.split(separator: ",").map { Self.trimmed(String($0)) } }
    }

    static func trimmed(_ s: String) -> String {
        String(s.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// A request turned away: the status, why (the body), and headers the answer carries besides.
public struct Refusal: Sendable, Equatable {
    public var status: Int
    public var why: String
    public var headers: [Header] = []

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
    }
}

public enum HandshakeRules {
    /// RFC 6455, 4.2.1: a GET, HTTP/1.1, `Connection: Upgrade`, one 16-byte base64
    /// `Sec-WebSocket-Key`, `Sec-WebSocket-Version: 13` (another version: 426 naming 13, 4.4).
    public static func refusal(_ h: RequestHead) -> Refusal? {
        guard h.method == "GET" else {
            return Refusal(status: 405, why: "a WebSocket handshake is a GET", headers: [.init(name: "Allow", value: "GET")])
        }
        guard h.http11 else { return Refusal(status: 400, why: "a WebSocket handshake is HTTP/1.1") }
        guard h.values("Connection", splitting: true).contains(where: { $0.lowercased() == "upgrade" }) else {
            return Refusal(status: 400, why: "a WebSocket handshake says Connection: Upgrade")
        }
        let keys = h.values("Sec-WebSocket-Key")
        guard keys.count == 1, isKey(keys[0]) else {
            return Refusal(status: 400, why: "a WebSocket handshake has one Sec-WebSocket-Key: 16 bytes in base64")
        }
        guard h.values("Sec-WebSocket-Version") == ["13"] else {
            return Refusal(
                status: 426, why: "this bridge speaks WebSocket version 13 (RFC 6455)",
                headers: [.init(name: "Sec-WebSocket-Version", value: "13")])
        }
        return nil
    }

    /// 16 bytes in base64: 22 characters of the alphabet and `==`.
    public static func isKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        // The 22nd character holds 4 bits of data and 2 zero bits: one of A, Q, g, w.
        guard [UInt8(ascii: "A"), UInt8(ascii: "Q"), UInt8(ascii: "g"), UInt8(ascii: "w")].contains(bytes[21]) else { return false }
        return bytes[..<22].allSatisfy { b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "+") || b == UInt8(ascii: "/")
        }
    }

    /// A page's `Origin` (one at most) against the allowlist; a program sends none.
    public static func originRefusal(_ h: RequestHead, _ origins: OriginPolicy) -> Refusal? {
        let given = h.values("Origin")
        guard given.count <= 1 else { return Refusal(status: 403, why: "more than one Origin") }
        if origins.allows(given.first) { return nil }
        return Refusal(status: 403, why: "origin \(given.first ?? "") may not open \(BridgeSettings.endpoint) (touchgestured-web --allow-origin)")
    }
}

/// Which `Host` a request may name: the bridge's own address and loopback names (with its port),
/// and the hosts of the origins let in with `--allow-origin`. A page that DNS made point at
/// 127.0.0.1 (DNS rebinding) still sends its own name, and is refused.
public struct HostPolicy: Sendable {
    /// Lowercased `host:port` (and `host` alone for a scheme's default port).
    let allowed: Set<String>
    /// `*` among the origins: any host.
    let any: Bool

    public init(settings: BridgeSettings) {
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

    public init(allowed: Set<String>, any: Bool = false) { (self.allowed, self.any) = (allowed, any) }

    /// Why the request's `Host` is refused, or nil. HTTP/1.1 requires exactly one (RFC 7230,
    /// 5.4: 400 otherwise).
    public func refusal(_ h: RequestHead) -> Refusal? {
        let hosts = h.values("Host")
        guard hosts.count <= 1 else { return Refusal(status: 400, why: "more than one Host header") }
        guard let host = hosts.first else {
            return h.http11 ? Refusal(status: 400, why: "an HTTP/1.1 request names its Host") : nil
        }
        if any || allowed.contains(host.lowercased()) { return nil }
        return Refusal(status: 403, why: "Host '\(host)' is not this bridge (touchgestured-web --listen, --allow-origin)")
    }
}
