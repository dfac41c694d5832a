import NIOCore
import Synchronization
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Who may use the bridge: exactly those who could open the daemon's socket themselves. The
/// daemon's socket is 0660 for its group, and the bridge's own user is in that group; without
/// this gate any local user reaching 127.0.0.1 would get through the bridge what the socket's
/// mode refuses them. For each TCP connection the kernel says which local user opened the
/// other end (sock_diag), and the system's user database which groups that user is in; the
/// socket's path is then checked for them as the kernel would check it. A peer on another host
/// has no local user: it is refused unless the bridge was started with `--allow-remote`.
public struct PeerGate: Sendable {
    public let socketPath: String
    public let allowRemote: Bool

    public init(socketPath: String, allowRemote: Bool) {
        self.socketPath = socketPath
        self.allowRemote = allowRemote
    }

    /// What one connection's peer is.
    public enum Peer: Equatable, Sendable {
        /// A local user who could open the socket.
        case user(UserIdentity, page: TCPEndpoint, bridge: TCPEndpoint)
        /// A peer on another host, let in by `--allow-remote`.
        case remote
        /// Turned away (HTTP 403), and why; with its uid when the kernel said it.
        case refused(String, uid: UInt32? = nil)

        /// The uid of a page the bridge serves (a remote peer: none).
        var uid: UInt32? { if case .user(let u, _, _) = self { u.uid } else { nil } }

        var isRefused: Bool { if case .refused = self { true } else { false } }

        /// The uid its connections count under, served or not (a remote peer, or one the kernel
        /// did not name: none, counted in the totals only).
        var countedAs: UInt32? {
            switch self {
            case .user(let u, _, _): u.uid
            case .refused(_, let uid): uid
            case .remote: nil
            }
        }
    }

    /// The verdict for a connection from `remote` to the bridge's `local` address.
    public func check(local: SocketAddress?, remote: SocketAddress?) -> Peer {
        guard let local, let remote, let l = Self.endpoint(local), let r = Self.endpoint(remote) else {
            return .refused("the connection's addresses cannot be read")
        }
        switch TCPEndpoint.owner(local: r, remote: l) {
        case .success(let uid):
            guard let user = UserIdentity.lookup(uid) else { return .refused("uid \(uid) is not in the user database", uid: uid) }
            if let why = user.cannotConnect(to: socketPath) {
                return .refused("\(why): the bridge serves only those who may use the daemon's socket", uid: uid)
            }
            return .user(user, page: r, bridge: l)
        case .failure(let e) where e.errno == .noSuchFileOrDirectory:
            return allowRemote ? .remote : .refused("a peer on another host (touchgestured-web --allow-remote lets them in)")
        case .failure(let e):
            return .refused("the peer's user cannot be found: \(e)")
        }
    }

    static func endpoint(_ a: SocketAddress) -> TCPEndpoint? {
        guard let ip = a.ipAddress, let port = a.port else { return nil }
        return TCPEndpoint(address: ip, port: port)
    }
}

/// Refusals said in the log without flooding it: the first at once, then one line every
/// `interval` with how many more there were (a peer opening connections in a loop).
final class RefusalLog: Sendable {
    private struct Slot {
        var lastAt: ContinuousClock.Instant?
        var unsaid = 0
    }
    /// A slot a reason (`note`'s `key`): one origin refused often does not hide another.
    private let slots = Mutex([String: Slot]())
    static let interval = Duration.seconds(10)
    /// Reasons kept apart at most; past them, the rest share one slot.
    static let keys = 16

    /// The line to log for this refusal, or nil while the last one of its `key` is recent.
    func note(_ line: String, key: String = "") -> String? {
        let now = ContinuousClock.now
        return slots.withLock { slots in
            // Full: the reasons not said within an interval make room (a looping one stays apart;
            // what a freed one left unsaid is dropped with it).
            if slots[key] == nil && slots.count >= Self.keys {
                slots = slots.filter { $0.value.lastAt.map { now - $0 < Self.interval } ?? false }
            }
            let k = slots[key] != nil || slots.count < Self.keys ? key : ""
            var s = slots[k] ?? Slot()
            defer { slots[k] = s }
            if let last = s.lastAt, now - last < Self.interval {
                s.unsaid += 1
                return nil
            }
            let more = s.unsaid > 0 ? " (and \(s.unsaid) more refusal(s) since the last line)" : ""
            s.lastAt = now
            s.unsaid = 0
            return line + more
        }
    }
}
