import Foundation
import NIOCore
import SystemCalls
import TestSupport
import Testing

@testable import WebBridge

#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the other end of a loopback connection, from the kernel, and whether that user
/// could open the daemon's socket.
@Suite(.serialized) struct PeerGateTests {
    static func endpoint(_ fd: Int32, peer: Bool) -> TCPEndpoint {
        TCPEndpoint(address: "127.0.0.1", port: LoopbackTCP.port(fd, peer: peer))!
    }

    @Test func theKernelNames_theOwnerOfEachEnd() throws {
        let (c, s, l) = LoopbackTCP.pair()
        defer { close(c); close(s); close(l) }
        let server = Self.endpoint(s, peer: false), client = Self.endpoint(s, peer: true)
        #expect(TCPEndpoint.owner(local: client, remote: server) == .success(getuid()))
        #expect(TCPEndpoint.owner(local: server, remote: client) == .success(getuid()))
        let nowhere = TCPEndpoint(address: "127.0.0.1", port: 1)!
        guard case .failure(let e) = TCPEndpoint.owner(local: nowhere, remote: server) else {
            Issue.record("a socket that does not exist was found")
            return
        }
        #expect(e.errno == .noSuchFileOrDirectory)
    }

    @Test func endpoints_readAndWriteTheirText() {
        #expect(TCPEndpoint("127.0.0.1:7700")?.description == "127.0.0.1:7700")
        #expect(TCPEndpoint("[::1]:80")?.description == "[::1]:80")
        #expect(TCPEndpoint(address: "::ffff:127.0.0.1", port: 5)?.family == AF_INET)
        for bad in ["127.0.0.1", "host:80", "1.2.3.4:70000", ":80", "[::1]"] { #expect(TCPEndpoint(bad) == nil, "\(bad)") }
    }

    /// The socket's path as the kernel checks it: search on each folder, write on the socket.
    @Test(.enabled(if: getuid() == 0, "needs root to make files of another user"))
    func aUsersRights_onTheSocketsPath() throws {
        let dir = Scratch.directory("gate")
        try FileManager.default.createDirectory(atPath: dir + "/run", withIntermediateDirectories: true)
        chmod(dir, 0o755)
        _ = FileManager.default.createFile(atPath: dir + "/run/gestures.sock", contents: nil)
        chown(dir + "/run", 0, 4242)
        chown(dir + "/run/gestures.sock", 0, 4242)
        chmod(dir + "/run", 0o750)
        chmod(dir + "/run/gestures.sock", 0o660)
        let member = UserIdentity(uid: 5001, name: "kiosk", gid: 5001, groups: [5001, 4242])
        let stranger = UserIdentity(uid: 65534, name: "nobody", gid: 65534, groups: [65534])
        #expect(member.cannotConnect(to: dir + "/run/gestures.sock") == nil)
        #expect(stranger.cannotConnect(to: dir + "/run/gestures.sock")?.contains("may not search") == true)
        chmod(dir + "/run", 0o755)
        #expect(stranger.cannotConnect(to: dir + "/run/gestures.sock")?.contains("may not write to") == true)
        #expect(UserIdentity(uid: 0, name: "root", gid: 0, groups: [0]).cannotConnect(to: dir + "/run/gestures.sock") == nil)
        #expect(UserIdentity.lookup(0)?.name == "root")
    }

    /// The gate on a real connection of this process (root): served, and counted as root.
    @Test func aLocalConnection_isItsUser() throws {
        let (c, s, l) = LoopbackTCP.pair()
        defer { close(c); close(s); close(l) }
        let bridge = Self.endpoint(s, peer: false), page = Self.endpoint(s, peer: true)
        let gate = PeerGate(socketPath: "/nonexistent/gestures.sock", allowRemote: false)
        let verdict = gate.check(
            local: try SocketAddress(ipAddress: "127.0.0.1", port: Int(bridge.port)),
            remote: try SocketAddress(ipAddress: "127.0.0.1", port: Int(page.port)))
        if getuid() == 0 {
            #expect(verdict.uid == 0)
        } else {
            #expect(verdict.countedAs == getuid())
        }
        let remote = gate.check(
            local: try SocketAddress(ipAddress: "127.0.0.1", port: Int(bridge.port)), remote: try SocketAddress(ipAddress: "127.0.0.1", port: 1))
        guard case .refused(let why, _) = remote else {
            Issue.record("a peer the kernel does not know was let in")
            return
        }
        #expect(why.contains("--allow-remote"))
        let open = PeerGate(socketPath: "/x", allowRemote: true)
        #expect(open.check(local: try SocketAddress(ipAddress: "127.0.0.1", port: Int(bridge.port)), remote: try SocketAddress(ipAddress: "127.0.0.1", port: 1)) == .remote)
    }
}
