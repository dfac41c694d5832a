import CLinux
import Foundation
import GestureProtocol
import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The request socket beside the stream socket: a connection there gets the `hello` line and
/// the replies to its requests, and no stream line until it subscribes (one-shot clients cannot
/// be flooded before their request is read).
@Suite(.waitsOnProcesses) struct RequestSocketTests {
    /// A daemon replaying a fling in a loop at 20×: a flood of gesture lines on the stream socket.
    private func flooding() throws -> DaemonUnderTest {
        try DaemonUnderTest(["--replay", Root.fixtures + "/fling-left.events", "--loop", "--speed", "20"])
    }

    @Test func requestSocket_sendsOnlyHelloAndReplies_untilItSubscribes() throws {
        let d = try flooding()
        let requests = SocketPaths.requests(besides: d.socket)
        #expect(requests == d.dir + "/gestures-requests.sock")
        let stream = try TestClient(d.socket)
        #expect(stream.next("gesture") != nil, "the stream socket streams")

        let c = try TestClient(requests)
        #expect(c.json()?["type"] == .string("hello"))
        // While the stream socket's client receives the flood, this one receives nothing but
        // its replies, in order.
        #expect(stream.next("gesture") != nil)
        for id in 1...3 {
            let reply = c.call(#"{"op":"ping","id":\#(id)}"#)
            #expect(reply?["type"] == .string("reply"))
            #expect(reply?["id"] == .number(Double(id)))
        }
        let stats = try #require(c.call(#"{"op":"stats","id":4}"#))
        #expect(stats["op"] == .string("stats"))
        c.pump()
        #expect(c.takeLines().isEmpty, "no stream line on the request socket")

        // Subscribing there starts the stream like anywhere else.
        #expect(c.call(#"{"op":"subscribe","id":5}"#)?["type"] == .string("reply"))
        #expect(c.next("gesture") != nil)
        _ = d.stop()
        #expect(d.log.contains("connected to the request socket"))
    }

    @Test func touchgesturectl_oneShotCommands_useTheRequestSocket() throws {
        let d = try flooding()
        let (status, out) = try runProgram(Root.ctl, ["stats", "--socket", d.socket])
        #expect(status == 0, "\(out)")
        #expect(out.contains(#""op":"stats""#))
        // The one asking is no client of the stream: an alert on `clients == 0` can fire.
        #expect(out.contains(#""clients":0,"#), "\(out)")
        _ = d.stop()
        #expect(d.log.contains("connected to the request socket"))
    }

    @Test func emptyRequestSocket_opensNone_andOneShotCommandsFallBack() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nrequest_socket = \"\"\n")
        #expect(!FileManager.default.fileExists(atPath: SocketPaths.requests(besides: d.socket)))
        let (status, out) = try runProgram(Root.ctl, ["ping", "--socket", d.socket])
        #expect(status == 0, "\(out)")
        #expect(out.contains("pong"))
        _ = d.stop()
        #expect(!d.log.contains("connected to the request socket"))
    }

    @Test func configuredRequestSocket_isWhereItListens_andGoesAtStop() throws {
        let dir = scratch()
        let path = dir + "/one-shot.sock"
        let d = try DaemonUnderTest([], config: "[daemon]\nrequest_socket = \"\(path)\"\n", dir: dir)
        let c = try TestClient(path)
        #expect(c.json()?["type"] == .string("hello"))
        #expect(c.call(#"{"op":"ping","id":1}"#)?["type"] == .string("reply"))
        _ = d.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: d.socket))
    }
}
