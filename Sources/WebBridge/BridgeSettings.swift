import GestureProtocol

/// What `touchgestured-web` is told on its command line (GUIDE.md, "Gestures in a web page"), checked.
public struct BridgeSettings: Sendable, Equatable {
    /// The WebSocket endpoint's path: `ws://HOST:PORT/gestures`.
    public static let endpoint = "/gestures"
    /// The JavaScript client's path (web/touchgestured.js, served from the site folder).
    public static let modulePath = "/touchgestured.js"
    public static let defaultListen = "127.0.0.1:7700"

    public var host: String
    public var port: Int
    /// The daemon's socket each page's connection is made to.
    public var socketPath: String
    /// The folder of files served over HTTP (the example page and the module).
    public var siteRoot: String
    /// Origins allowed to open the endpoint, besides the bridge's own.
    public var extraOrigins: [String]
    /// Pages connected at once; one more is refused with HTTP 503.
    public var maxConnections: Int
    /// Pages one local user may have connected at once (so one user's idle pages cannot lock the
    /// kiosk page out); one more is refused with HTTP 503.
    public var maxConnectionsPerUser: Int
    /// Lets in peers on other hosts, which have no local user to check (`PeerGate`).
    public var allowRemote: Bool
    /// Plain HTTP connections at once (those that are not pages: a page's handshake is one until
    /// it is let in); one more is closed at once. The example page needs a few.
    public var maxHTTPConnections = 64

    /// File descriptors kept for the bridge itself (NIO's epoll and event fds, the thread pool,
    /// a file being served, the kernel queries of `PeerGate`).
    static let reservedFDs = 32

    /// These settings within `fdLimit` open files (RLIMIT_NOFILE): a page holds two (its TCP
    /// connection and its daemon connection), a plain HTTP connection one. Lowered (HTTP
    /// connections first, then pages) so that accept(2) never meets EMFILE: at EMFILE a
    /// listening socket stays readable and the loop would spin on it. Nil when even one page
    /// and four HTTP connections do not fit; the sentence saying what was lowered.
    public func fitting(fdLimit: Int) -> (settings: BridgeSettings, lowered: String?)? {
        let room = fdLimit - Self.reservedFDs
        guard room >= 2 + 4 else { return nil }
        guard 2 * maxConnections + maxHTTPConnections > room else { return (self, nil) }
        var s = self
        s.maxHTTPConnections = max(4, min(maxHTTPConnections, room / 3))
        s.maxConnections = max(1, min(maxConnections, (room - s.maxHTTPConnections) / 2))
        s.maxConnectionsPerUser = min(s.maxConnectionsPerUser, s.maxConnections)
        return (s, "\(fdLimit) open files (LimitNOFILE) hold \(s.maxConnections) pages and \(s.maxHTTPConnections) plain HTTP connections at once (asked: \(maxConnections) pages)")
    }
    /// The largest message a page may send (bytes); a larger one closes its connection with 1009.
    public var maxMessageBytes: Int
    /// Refuses `set_regions` and `clear_regions` from pages.
    public var readOnly: Bool

    public init(
        listen: String = BridgeSettings.defaultListen, socketPath: String = SocketPaths.stream, siteRoot: String,
        extraOrigins: [String] = [], maxConnections: Int = 16, maxConnectionsPerUser: Int? = nil, maxMessageBytes: Int = 65536,
        readOnly: Bool = false, allowRemote: Bool = false
    ) throws(BridgeSettingsError) {
        (host, port) = try Self.parseListen(listen)
        self.socketPath = socketPath
        self.siteRoot = siteRoot
        self.extraOrigins = try extraOrigins.map(Self.checkedOrigin)
        guard (1...4096).contains(maxConnections) else { throw .init("--max-connections must be from 1 to 4096") }
        guard (1024...(16 << 20)).contains(maxMessageBytes) else {
            throw .init("--max-message-bytes must be from 1024 to 16777216")
        }
        let perUser = maxConnectionsPerUser ?? max(1, maxConnections / 2)
        guard (1...maxConnections).contains(perUser) else {
            throw .init("--max-connections-per-user must be from 1 to --max-connections (\(maxConnections))")
        }
        self.maxConnections = maxConnections
        self.maxConnectionsPerUser = perUser
        self.maxMessageBytes = maxMessageBytes
        self.readOnly = readOnly
        self.allowRemote = allowRemote
    }

    /// `HOST:PORT`, `[V6]:PORT` or `:PORT` (all addresses).
    static func parseListen(_ text: String) throws(BridgeSettingsError) -> (String, Int) {
        guard let colon = text.lastIndex(of: ":") else { throw .init("--listen wants HOST:PORT, got '\(text)'") }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "0.0.0.0" }
        guard let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            throw .init("--listen wants a port from 1 to 65535, got '\(text)'")
        }
        return (host, port)
    }

    /// An origin as browsers send it: `scheme://host[:port]`, no path; `*` allows every origin.
    static func checkedOrigin(_ origin: String) throws(BridgeSettingsError) -> String {
        if origin == "*" || origin == "null" { return origin }
        let lower = origin.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw .init("--allow-origin wants scheme://host[:port] (or * or null), got '\(origin)'")
        }
        let rest = lower.drop(while: { $0 != ":" }).dropFirst(3)
        guard !rest.isEmpty, !rest.contains("/") else {
            throw .init("--allow-origin wants scheme://host[:port] without a path, got '\(origin)'")
        }
        return lower
    }

    /// The origins of the pages the bridge serves itself: its address, and the loopback names when
    /// it listens on a loopback or wildcard address.
    public var ownOrigins: [String] {
        let loopback = ["127.0.0.1", "localhost", "[::1]"]
        let names: [String]
        switch host {
        case "127.0.0.1", "localhost", "::1", "0.0.0.0", "::": names = loopback
        default: names = [host.contains(":") ? "[\(host)]" : host.lowercased()]
        }
        return names.map { "http://\($0):\(port)" }
    }

    /// The allowlist the endpoint checks `Origin` against.
    public var originPolicy: OriginPolicy { OriginPolicy(allowed: ownOrigins + extraOrigins) }
}

/// A bad command-line value, with what was wrong (also an address `--listen` cannot bind).
public struct BridgeSettingsError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Which pages may open the endpoint, by the `Origin` header a browser sends with every WebSocket
/// handshake. A handshake without one comes from a program, not a page, and is let in: the check
/// stops other web sites from reaching the kiosk's gestures through the kiosk's own browser.
public struct OriginPolicy: Sendable, Equatable {
    public var allowed: [String]

    public init(allowed: [String]) { self.allowed = allowed }

    public func allows(_ origin: String?) -> Bool {
        guard let origin else { return true }
        let lower = origin.lowercased()
        return allowed.contains { $0 == "*" || $0 == lower }
    }
}
