import Foundation
import GestureProtocol
import Synchronization
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Clients that push the daemon: half-closing, pipelining, flooding, never reading, knocking in
/// crowds. Each case failed on the daemon before its fix (docs/RELIABILITY.md, bad input).
@Suite(.serialized, .waitsOnProcesses) struct ClientPressureTests {
    @Test func halfClose_afterARequest_getsTheReplyThenTheEnd() throws {
        let d = try DaemonUnderTest([])
        for i in 0..<20 {
            let c = try TestClient(d.socket)
            // One write of the request, then shut down the writing side at once.
            c.sendBytes(Array("{\"op\":\"ping\",\"id\":\(i)}\n".utf8))
            shutdown(c.fd, Int32(SHUT_WR))
            var reply: JSONValue?
            while let m = c.json(seconds: 5) {
                if m["type"] == .string("reply") {
                    reply = m
                    break
                }
            }
            #expect(reply?["id"] == .number(Double(i)), "round \(i): no reply before the close")
            #expect(c.isClosed(), "round \(i): the daemon kept the half-closed connection")
        }
        // A last request without its newline is still a request.
        let c = try TestClient(d.socket)
        c.sendBytes(Array(#"{"op":"ping","id":"last"}"#.utf8))
        shutdown(c.fd, Int32(SHUT_WR))
        #expect(c.next("reply")?["id"] == .string("last"))
    }

    @Test func fiveThousandPipelinedPings_inOneWrite_areAllAnswered() throws {
        let d = try DaemonUnderTest([])
        let c = try TestClient(d.socket)
        _ = c.next("hello")
        var batch: [UInt8] = []
        for i in 1...5000 { batch += Array("{\"op\":\"ping\",\"id\":\(i)}\n".utf8) }
        c.sendBytes(batch)
        var ids: [Double] = []
        while ids.count < 5000, let m = c.json(seconds: 10) {
            if m["type"] == .string("reply"), let id = m["id"]?.number { ids.append(id) }
        }
        #expect(ids == (1...5000).map(Double.init), "\(ids.count) replies")
        let stats = c.call(#"{"op":"stats","id":"s"}"#)
        #expect(stats?["clients_dropped_slow"] == .number(0))
        #expect(!c.isClosed(seconds: 0.2))
    }

    @Test func clientThatNeverReadsBackRequests_isPaused_notGrownWithoutBound() throws {
        let d = try DaemonUnderTest([])
        let c = try TestClient(d.socket)
        _ = c.next("hello")
        let rssBefore = d.rssKB()
        // About 4 MB of requests whose replies are as long as the requests, never read: the
        // daemon stops serving it once its queue passes the bound (the kernel then holds the
        // rest), instead of queueing every reply.
        let pad = String(repeating: "x", count: 2000)
        let fd = c.fd
        let written = ManagedAtomicFlag()
        let writer = Thread {
            defer { written.set() }
            let line = Array("{\"op\":\"ping\",\"id\":\"\(pad)\"}\n".utf8)
            var batch: [UInt8] = []
            for _ in 0..<64 { batch += line }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var sent = 0
            let end = Date().addingTimeInterval(3)
            while sent < 4_000_000 && Date() < end {
                let n = batch.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n > 0 {
                    sent += n
                } else {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 100)  // until the socket takes more (or 0.1 s)
                }
            }
        }
        writer.start()
        #expect(eventually(within: 10) { written.isSet })
        // Another client is served meanwhile.
        let other = try TestClient(d.socket)
        #expect(other.call(#"{"op":"ping","id":1}"#)?["type"] == .string("reply"))
        let grown = d.rssKB() - rssBefore
        #expect(grown < 2_000, "RSS grew by \(grown) kB for a client that never reads its replies")
        #expect(other.call(#"{"op":"stats","id":2}"#)?["clients_dropped_slow"] == .number(0))
        // Its fd, which the writer used, is closed only now (at its deinit), after the writer.
        withExtendedLifetime(c) {}
    }

    @Test func writerThatNeverStops_leavesGestureLinesFlowingToOthers() throws {
        let d = try DaemonUnderTest(["--replay", Root.tour, "--loop", "--speed", "4", "--wait-for-clients", "2"])
        let control = try TestClient(d.socket)
        let flooder = try TestClient(d.socket)
        let stop = ManagedAtomicFlag(), writerDone = ManagedAtomicFlag(), readerDone = ManagedAtomicFlag()
        let fd = flooder.fd
        // Valid, useless requests as fast as the socket takes them, from one thread; the replies
        // read and dropped by another, so the daemon always finds more to read.
        let writer = Thread {
            defer { writerDone.set() }
            var batch: [UInt8] = []
            // Blank lines (ignored, no reply, so the flooder never counts as slow) and a ping.
            for _ in 0..<2000 { batch += Array("    \n".utf8) }
            batch += Array(#"{"op":"ping","id":1}"#.utf8) + [0x0A]
            while !stop.isSet {
                guard batch.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 else { return }
            }
        }
        let reader = Thread {
            defer { readerDone.set() }
            var chunk = [UInt8](repeating: 0, count: 65536)
            while !stop.isSet && chunk.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
        }
        reader.start()
        writer.start()
        // Four seconds of the tour at 4x, read as they come (no timing asserted: the daemon's CPU
        // under a flood is measured by scripts/soak's flooder, docs/RELIABILITY.md).
        var gestures = 0
        let end = Date().addingTimeInterval(4)
        while Date() < end, let line = control.line(seconds: 1) {
            if line.contains(#""type":"gesture""#) { gestures += 1 }
        }
        stop.set()
        // Both threads end before the flooder's fd is closed (at its deinit): a number closed
        // under them could be another test's by their next call. The shutdown ends a call under way.
        shutdown(fd, Int32(SHUT_RDWR))
        #expect(eventually(within: 10) { writerDone.isSet && readerDone.isSet })
        withExtendedLifetime(flooder) {}
        // The tour at 4x gives dozens of gesture lines in 4 s; starved, the control got none.
        #expect(gestures >= 10, "the control client got \(gestures) gesture lines while another client flooded")
    }

    @Test func aCrowdOverTheLimit_isTurnedAway_withOneWarningAndACount() throws {
        let d = try DaemonUnderTest([], config: "[daemon]\nmax_clients = 2\n")
        let a = try TestClient(d.socket)
        var b: TestClient? = try TestClient(d.socket)
        _ = a.json()
        _ = b?.json()
        for _ in 0..<300 {
            let c = try TestClient(d.socket)
            #expect(c.json()?["code"] == .string("too_many_clients"))
        }
        #expect(a.call(#"{"op":"stats","id":1}"#)?["clients_refused"] == .number(300))
        b = nil
        // A slot is free again once the daemon has seen b go: the count is logged then.
        #expect(eventually(within: 5) { (try? TestClient(d.socket))?.json()?["type"] == .string("hello") })
        _ = d.stop()
        let warnings = d.log.split(separator: "\n").filter { $0.contains("refused a client") }
        #expect(warnings.count == 1, "\(warnings.count) refusal warnings for 300 refusals")
        #expect(d.log.contains("more refused since the last warning)"))
    }

    @Test func outOfFileDescriptors_turnsClientsAway_withoutSpinning() throws {
        let d = try DaemonUnderTest([])
        let first = try TestClient(d.socket)
        _ = first.json()
        // Leave the running daemon two fds to spare (prlimit changes another process's limit,
        // which bounds fd numbers): the two lowest free numbers, if they are next to each other.
        let used = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(d.pid)/fd")) ?? []).compactMap { Int($0) })
        let lowestFree = (0...).first { !used.contains($0) && !used.contains($0 + 1) }!
        let limit = lowestFree + 2
        let prlimit = Process()
        prlimit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        prlimit.arguments = ["--pid", "\(d.pid)", "--nofile=\(limit):\(limit)"]
        try prlimit.run()
        prlimit.waitUntilExit()
        #expect(prlimit.terminationStatus == 0)
        var kept: [TestClient] = []
        var refusedForFDs = 0
        for _ in 0..<20 {
            let c = try TestClient(d.socket)
            let m = c.json(seconds: 5)
            if m?["type"] == .string("hello") {
                kept.append(c)
            } else if m?["code"] == .string("too_many_clients") {
                refusedForFDs += 1
            }
        }
        let spare = (0..<limit).count { !used.contains($0) }
        #expect(kept.count <= spare && refusedForFDs >= 20 - spare, "\(kept.count) accepted, \(refusedForFDs) refused; limit \(limit), fds \(d.fdList())")
        // A connection left waiting must not make the loop spin: it goes back to waiting in
        // epoll_wait with a timeout that is not 0.
        let waiting = try TestClient(d.socket)
        #expect(eventually(within: 5) { d.waitsInEpoll(forever: false) }, "the loop spins with a connection waiting")
        // And the daemon still serves the clients it has.
        #expect(first.call(#"{"op":"ping","id":1}"#)?["type"] == .string("reply"))
        _ = waiting
        _ = d.stop()
        let warnings = d.log.split(separator: "\n").filter { $0.contains("out of file descriptors") }
        #expect((1...3).contains(warnings.count), "\(warnings.count) warnings")
    }

    /// Found by the soak: a client with regions of its own dropped as slow while a device's
    /// pipeline was writing to it made the daemon recompile, and so reconfigure that pipeline,
    /// from inside it (an exclusivity violation: the daemon died).
    @Test func slowClientWithRegions_droppedDuringAFrame_doesNotTakeTheDaemonDown() throws {
        let d = try DaemonUnderTest(
            ["--replay", Root.tour, "--loop", "--speed", "20", "--wait-for-clients", "1"],
            config: "[daemon]\noutput_buffer_bytes = 4096\n")
        var dropped = 0.0
        for round in 0..<3 {
            let staller = try TestClient(d.socket)
            _ = staller.call(
                #"{"op":"set_regions","id":1,"regions":[{"name":"mine\#(round)","rect":[0,0,400,400],"gesture":[{"kind":"tap"}]}]}"#)
            staller.send(#"{"op":"subscribe","touches":true}"#)
            // It never reads again; the kernel buffer and 4 KiB fill, and the daemon drops it.
            let probe = try TestClient(d.socket)
            dropped = probe.stat("clients_dropped_slow", reaches: Double(round + 1), within: 10)
            #expect(dropped == Double(round + 1), "round \(round): the daemon did not answer, or did not drop the staller")
        }
        #expect(d.process.isRunning)
    }
}

/// A flag shared between a test and its writer thread.
final class ManagedAtomicFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
