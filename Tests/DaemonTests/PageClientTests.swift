import Foundation
import GestureProtocol
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `page`: the web bridge says whose page a connection carries, and the daemon checks it with the
/// kernel before it counts the connection as that user (hardening round 3: every page was the
/// bridge's uid, so two pages could use up one user's region share and lock the kiosk page out).
@Suite(.serialized, .waitsOnProcesses) struct PageClientTests {
    /// A TCP listener on loopback and a connection to it made by `user` (a python process that
    /// holds it open): the bridge's end (accepted here) and the page's.
    final class PageConnection {
        let listener: Int32
        let accepted: Int32
        /// The python process holding the page's end (posix_spawn: Foundation's Process could
        /// wait forever for it here).
        private var holder: pid_t = 0
        let bridge: String
        let page: String

        init(user: String?) throws {
            let (listener, port) = LoopbackTCP.listener()
            self.listener = listener
            let script = "import socket, time; s = socket.create_connection(('127.0.0.1', \(port))); time.sleep(30)"
            let command = (user.map { ["/usr/bin/setpriv", "--reuid=\($0)", "--regid=\($0)", "--clear-groups", "--"] } ?? []) + ["/usr/bin/python3", "-c", script]
            var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
            defer { for p in argv { free(p) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, command[0], nil, nil, &argv, environ) == 0 else { throw HarnessError("cannot start \(command)") }
            holder = pid
            let accepted = accept(listener, nil, nil)
            self.accepted = accepted
            bridge = "127.0.0.1:\(port)"
            page = "127.0.0.1:\(LoopbackTCP.port(accepted, peer: true))"
        }

        deinit {
            kill(holder, SIGKILL)
            var status: Int32 = 0
            waitpid(holder, &status, 0)
            close(accepted)
            close(listener)
        }

        var request: String { #"{"op":"page","id":"p","page":"\#(page)","bridge":"\#(bridge)"}"# }
    }

    static func code(_ v: JSONValue?) -> String? { if case .string(let s)? = v?["code"] { s } else { nil } }

    @Test func aPage_isTakenAsItsUser_onlyAsTheKernelSaysIt() throws {
        let d = try DaemonUnderTest(["--replay", Root.fixtures + "/tap.events"])
        let c = try TestClient(d.socket)
        _ = c.next("hello")
        // A connection that is not there, or whose bridge end is not this client's.
        let forged = c.call(#"{"op":"page","id":1,"page":"127.0.0.1:1","bridge":"127.0.0.1:2"}"#)
        #expect(Self.code(forged) == "forbidden", "\(String(describing: forged))")
        #expect(Self.code(c.call(#"{"op":"page","id":2,"page":"here","bridge":"there"}"#)) == "invalid_field")
        let mine = try PageConnection(user: nil)
        let reply = c.call(mine.request)
        #expect(reply?["type"] == .string("reply") && reply?["uid"] == .number(Double(getuid())), "\(String(describing: reply))")
        #expect(Self.code(c.call(mine.request)) == "forbidden", "a connection carries one page")
        #expect(d.stop() == 0)
        #expect(d.log.contains("takes its shares and rights from uid \(getuid())"))
    }

    /// A page of a user who may not open the socket is refused; one who may (the socket opened
    /// to all here) counts under its own uid: its share of connections is its own.
    @Test(.enabled(if: getuid() == 0, "needs root to hold a connection as another user"))
    func aPagesUser_mustBeOneWhoCouldOpenTheSocket_andHasItsOwnShare() throws {
        let d = try DaemonUnderTest(["--replay", Root.fixtures + "/tap.events"], config: "[daemon]\nmax_clients_per_user = 1\n")
        chmod(d.dir, 0o755)
        let nobodys = try PageConnection(user: "65534")
        let c = try TestClient(d.socket)
        _ = c.next("hello")
        let refused = c.call(nobodys.request)
        #expect(Self.code(refused) == "forbidden", "\(String(describing: refused))")
        if case .string(let m)? = refused?["message"] { #expect(m.contains("uid 65534 (nobody) may not write to")) }
        chmod(d.socket, 0o666)
        let taken = c.call(nobodys.request)
        #expect(taken?["uid"] == .number(65534), "\(String(describing: taken))")
        // nobody's share (1) is this connection now; root's is free again for a second client.
        let second = try TestClient(d.socket)
        #expect(second.next("hello") != nil, "root's share was still held by the page's connection")
        let another = try PageConnection(user: "65534")
        #expect(Self.code(second.call(another.request)) == "too_many_clients")
        #expect(d.stop() == 0)
    }

    /// Hardening round 4: a user who can open the socket connects out to a listener of root's
    /// (trick 1), or has root's process connect to a listener of theirs (trick 2, a page in the
    /// kiosk's browser fetching 127.0.0.1:P), and names root's end as its page. The kernel shows
    /// both connections with nobody's end and root's; only the bridge's user may say which is the
    /// page's. Python forks: root keeps a listener and connects, the child (nobody) asks.
    static let tricks = """
        import json, os, socket, sys
        path = sys.argv[1]
        mine = socket.socket(); mine.bind(("127.0.0.1", 0)); mine.listen(); p = mine.getsockname()[1]
        r, w = os.pipe(); r2, w2 = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
            theirs = socket.socket(); theirs.bind(("127.0.0.1", 0)); theirs.listen(); q = theirs.getsockname()[1]
            os.write(w, b"%d\\n" % q); os.read(r2, 1)
            out = socket.create_connection(("127.0.0.1", p))
            held = []
            def ask(i, page, bridge):
                u = socket.socket(socket.AF_UNIX); u.connect(path); f = u.makefile("rw"); f.readline(); held.append(u)
                f.write(json.dumps({"op": "page", "id": i, "page": "127.0.0.1:%d" % page, "bridge": "127.0.0.1:%d" % bridge}) + "\\n"); f.flush()
                print(f.readline().strip(), flush=True)
            ask(1, p, out.getsockname()[1])
            came, _ = theirs.accept()
            ask(2, came.getpeername()[1], q)
            os._exit(0)
        q = int(os.read(r, 100)); kiosk = socket.create_connection(("127.0.0.1", q)); os.write(w2, b"x")
        os.waitpid(pid, 0)
        """

    @Test(.enabled(if: getuid() == 0, "needs root to hold a connection as another user"))
    func aUserWhoIsNotTheBridge_cannotClaimAnotherUsersEnd_eitherWay() throws {
        let d = try DaemonUnderTest(["--replay", Root.fixtures + "/tap.events"])
        chmod(d.dir, 0o755)
        chmod(d.socket, 0o666)
        let (status, out) = try runProgram("/usr/bin/python3", ["-c", Self.tricks, d.socket])
        let replies = out.split(separator: "\n").compactMap { try? parseJSON(Array($0.utf8)) }
        #expect(status == 0 && replies.count == 2, "\(out)")
        for r in replies {
            #expect(Self.code(r) == "forbidden", "\(r)")
            if case .string(let m)? = r["message"] { #expect(m.contains("only 'touchgestured-web' ([daemon] bridge_user)")) }
        }
        #expect(d.stop() == 0)
        #expect(!d.log.contains("takes its shares and rights from uid 0"))
    }

    /// The user `bridge_user` names speaks for pages: nobody as the bridge, a page of root's.
    @Test(.enabled(if: getuid() == 0, "needs root to hold a connection as another user"))
    func theBridgeUser_speaksForPages() throws {
        let d = try DaemonUnderTest(["--replay", Root.fixtures + "/tap.events"], config: "[daemon]\nbridge_user = \"nobody\"\n")
        chmod(d.dir, 0o755)
        chmod(d.socket, 0o666)
        let (status, out) = try runProgram("/usr/bin/python3", ["-c", Self.tricks, d.socket])
        let replies = out.split(separator: "\n").compactMap { try? parseJSON(Array($0.utf8)) }
        #expect(status == 0 && replies.count == 2, "\(out)")
        for r in replies { #expect(r["uid"] == .number(0), "\(r)") }
        #expect(d.stop() == 0)
    }
}
