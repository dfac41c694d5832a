import Foundation
import GestureProtocol
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One user cannot lock another out of the socket: a share of the connections and of the
/// client-region gestures per uid, and connections that take nothing and say nothing are closed.
/// A connection turned away or closed is told why.
@Suite(.serialized, .waitsOnProcesses) struct FairShareTests {
    static let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]

    /// A request sent from another user's process (python3 under setpriv): the daemon's answer.
    static func requestAsNobody(_ socket: String, _ request: String) throws -> String {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
            f.readline(); f.write(sys.argv[2] + "\\n"); f.flush(); print(f.readline().strip())
            """
        let (status, out) = try runProgram(asNobody[0], Array(asNobody.dropFirst()) + ["/usr/bin/python3", "-c", script, socket, request])
        guard status == 0 else { throw HarnessError("python3 as nobody: \(out)") }
        return out
    }

    @Test func aUsersConnections_stopAtItsShare_withTheReason() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nmax_clients_per_user = 3\n")
        var mine: [TestClient] = []
        for _ in 0..<3 {
            let c = try TestClient(d.socket)
            #expect(c.json()?["type"] == .string("hello"))
            mine.append(c)
        }
        let fourth = try TestClient(d.socket)
        let refusal = fourth.json()
        #expect(refusal?["code"] == .string("too_many_clients"))
        #expect(refusal?["message"]?.string == "uid \(getuid()) has 3 connections, the most one user may have ([daemon] max_clients_per_user)")
        #expect(fourth.isClosed())
        // One of them goes: the user may connect again.
        mine.removeLast()
        #expect(eventually(within: 5) { (try? TestClient(d.socket))?.json()?["type"] == .string("hello") })
    }

    @Test(.enabled(if: getuid() == 0, "needs root to connect as a second user"))
    func anotherUser_stillConnects_whileOneHoldsItsWholeShare() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nmax_clients_per_user = 3\ngroup = \"nogroup\"\n")
        var mine: [TestClient] = []
        for _ in 0..<3 { mine.append(try TestClient(d.socket)) }
        let answer = try Self.requestAsNobody(d.socket, #"{"op":"ping","id":1}"#)
        #expect(answer.contains(#""type":"reply""#), "\(answer)")
    }

    /// Over one user's 128 gestures, set_regions is refused with the reason; another user can
    /// still set its own.
    @Test(.enabled(if: getuid() == 0, "needs root to connect as a second user"))
    func aUsersRegionGestures_stopAtItsShare_andAnotherUserStillSetsRegions() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\ngroup = \"nogroup\"\n")
        func request(_ prefix: String) -> String {
            let regions = (0..<8).map { i in
                #"{"name":"\#(prefix)\#(i)","gesture":["# + (0..<8).map { #"{"kind":"tap","name":"t\#($0)"}"# }.joined(separator: ",") + "]}"
            }
            return #"{"op":"set_regions","id":1,"regions":["# + regions.joined(separator: ",") + "]}"
        }
        var mine: [TestClient] = []
        var answers: [JSONValue?] = []
        for k in 0..<3 {
            let c = try TestClient(d.socket)
            _ = c.json()
            answers.append(c.call(request("a\(k)_")))
            mine.append(c)
        }
        #expect(answers[0]?["type"] == .string("reply") && answers[1]?["type"] == .string("reply"))
        #expect(answers[2]?["code"] == .string("invalid_regions"))
        #expect(answers[2]?["message"]?.string == "one user may set 128 gestures at most together; uid 0's other connections have 128")
        let theirs = try Self.requestAsNobody(d.socket, request("kiosk_"))
        #expect(theirs.contains(#""type":"reply""#), "\(theirs)")
    }

    /// A user's region changes (each compiles every region again) take at most its share of
    /// the daemon's time (`request_ms_per_user`, at its least here: 10 ms a second, a burst of
    /// 1 ms): three of 64 gestures take more than that (each above 2.5 ms in a debug build), so
    /// the user waits for its time, every request answered in order; another user is answered
    /// meanwhile.
    @Test(.enabled(if: getuid() == 0, "needs root to connect as a second user"))
    func aUsersRegionChanges_waitForItsTimeShare_allAnsweredInOrder_whileAnotherUserIsServed() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nrequest_ms_per_user = 10\ngroup = \"nogroup\"\n")
        let flooder = try TestClient(d.socket)
        _ = flooder.json()
        let regions = (0..<32).map { i in #"{"name":"f\#(i)","gesture":[{"kind":"tap","name":"a"},{"kind":"swipe","name":"b"}]}"# }
        let requests = (1...3).map { #"{"op":"set_regions","id":\#($0),"regions":["# + regions.joined(separator: ",") + "]}" }
        flooder.send(requests.joined(separator: "\n"))
        let theirs = try Self.requestAsNobody(d.socket, #"{"op":"ping","id":1}"#)
        #expect(theirs.contains(#""type":"reply""#), "\(theirs)")
        for id in 1...3 {
            let answer = flooder.json(seconds: 60)
            #expect(answer?["type"] == .string("reply") && answer?["id"] == .number(Double(id)), "\(String(describing: answer))")
        }
        let stats = flooder.call(#"{"op":"stats","id":4}"#, seconds: 30)
        #expect((stats?["time_share_pauses"]?.number ?? 0) >= 1, "\(String(describing: stats))")
        #expect(d.stop() == 0)
    }

    /// A user's own connections take turns for its time: a ping on a third connection is
    /// answered while two others of the same user have region changes waiting (20 each: at
    /// 10 ms a second, seconds of them), long before those are all answered (before, the flood
    /// took every turn and the ping waited for its end); and a request waiting for the user's
    /// time is no idleness, even on a connection that takes nothing (answered, not closed).
    @Test func aUsersOwnConnections_takeTurns_andOneWaitingForItsTimeIsNotIdle() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nrequest_ms_per_user = 10\nidle_timeout_ms = 300\n")
        let regions = (0..<32).map { i in #"{"name":"f\#(i)","gesture":[{"kind":"tap","name":"a"},{"kind":"swipe","name":"b"}]}"# }
        var flood: [TestClient] = []
        for k in 0..<2 {
            let c = try TestClient(d.socket)
            _ = c.json()
            #expect(c.call(#"{"op":"subscribe","id":0}"#)?["type"] == .string("reply"))
            let names = regions.map { $0.replacingOccurrences(of: #""name":"f"#, with: #""name":"f\#(k)_"#) }
            let set = #"{"op":"set_regions","id":1,"regions":["# + names.joined(separator: ",") + "]}"
            c.send(Array(repeating: set, count: 20).joined(separator: "\n"))  // 98 KB: within the socket's buffer
            flood.append(c)
        }
        let asker = try TestClient(SocketPaths.requests(besides: d.socket))
        _ = asker.json()
        let answer = asker.call(#"{"op":"ping","id":7}"#, seconds: 30)
        #expect(answer?["type"] == .string("reply") && answer?["id"] == .number(7), "\(String(describing: answer))")
        var answered = 0
        for c in flood {
            c.pump()
            answered += c.takeLines().count
        }
        #expect(answered < 40, "the region changes were all answered before the ping (\(answered))")
        #expect(!asker.isClosed(seconds: 0.1))
        flood.removeAll()
        #expect(d.stop() == 0)
    }

    /// A client whose requests wait for it to read their answers (it pipelined more than its
    /// queue holds) is not idle: read late, every answer is there.
    @Test func requestsWaitingForTheClientToRead_areNoIdleness() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nidle_timeout_ms = 300\n")
        let c = try TestClient(SocketPaths.requests(besides: d.socket))
        _ = c.json()
        c.send((1...600).map { #"{"op":"stats","id":\#($0)}"# }.joined(separator: "\n"))
        Thread.sleep(forTimeInterval: 1)
        var ids: [Double] = []
        while ids.count < 600, let a = c.json(seconds: 10), a["type"] == .string("reply") { ids.append(a["id"]?.number ?? 0) }
        #expect(ids == (1...600).map(Double.init), "\(ids.count) answers, then \(String(describing: c.json(seconds: 0.1)))")
        #expect(d.stop() == 0)
    }

    /// Subscribed to nothing and silent past idle_timeout_ms: told, then closed. A client that
    /// takes lines, or keeps asking, stays.
    @Test func aConnectionThatTakesNothingAndSaysNothing_isClosedWithTheReason() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nidle_timeout_ms = 300\n")
        let idle = try TestClient(d.socket)
        let streaming = try TestClient(d.socket)
        let polling = try TestClient(d.socket)
        for c in [idle, streaming, polling] { _ = c.json() }
        #expect(idle.call(#"{"op":"subscribe","id":1,"gestures":false}"#)?["type"] == .string("reply"))
        #expect(polling.call(#"{"op":"subscribe","id":1,"gestures":false}"#)?["type"] == .string("reply"))
        // The polling client asks every 0.1 s (while the idle one is waited on) until the idle one is told.
        var closedWith: JSONValue?
        var asked = 1
        eventually(within: 5) {
            asked += 1
            #expect(polling.call(#"{"op":"ping","id":\#(asked)}"#)?["type"] == .string("reply"), "a client that asks was closed")
            closedWith = idle.json(seconds: 0.1)
            return closedWith != nil
        }
        #expect(closedWith?["code"] == .string("idle_timeout"))
        #expect(closedWith?["message"]?.string == "no request for 0.3 s and subscribed to nothing ([daemon] idle_timeout_ms); closing")
        #expect(idle.isClosed())
        #expect(streaming.call(#"{"op":"ping","id":1}"#)?["type"] == .string("reply"), "a client that takes gestures was closed")
        #expect(d.stop() == 0)
        #expect(d.log.contains("disconnected: idle for 0.3 s with no subscription"))
    }

    /// A connection that set regions is there to hold them (`touchgesturectl regions set` waits
    /// without a stream): it is never idle, and its regions stay.
    @Test func aConnectionHoldingRegions_isNotIdle() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nidle_timeout_ms = 200\n")
        let holder = try TestClient(SocketPaths.requests(besides: d.socket))
        let idle = try TestClient(SocketPaths.requests(besides: d.socket))
        for c in [holder, idle] { _ = c.json() }
        let set = #"{"op":"set_regions","id":1,"regions":[{"name":"strip","rect":[0,0,100,100],"gesture":[{"kind":"tap"}]}]}"#
        #expect(holder.call(set)?["type"] == .string("reply"))
        #expect(idle.call(#"{"op":"ping","id":1}"#)?["type"] == .string("reply"))
        // The one that only pinged is closed after the limit; the holder is not (events waited
        // for, not a clock compared).
        #expect(idle.json()?["code"] == .string("idle_timeout"))
        #expect(idle.isClosed())
        #expect(holder.call(#"{"op":"ping","id":2}"#)?["type"] == .string("reply"))
        #expect(!holder.isClosed(seconds: 0.3))
        #expect(d.stop() == 0)
    }
}
