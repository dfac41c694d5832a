import CLinux
import Logging
import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// Continuous updates held back per client (`coalesce_ms`): a client's queue of only `changed`
/// and touch lines is written at most once per its coalescing time, anything else at once with
/// what is held before it, in order, and all of it when the release timer wakes the loop.
@Suite struct CoalescingTests {
    /// A server with one client on a socketpair; `peer` is the client's end, non-blocking.
    final class Rig {
        let loop: EventLoop
        let server: Server
        let client: Client
        /// The frame state, as the daemon's `run` holds it.
        var state: FrameState
        let peer: Int32
        private let listenEnds: [Int32]

        init(coalesceMs: Int64) throws {
            loop = try EventLoop()
            var l: [Int32] = [0, 0], s: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &l) == 0)
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &s) == 0)
            listenEnds = l
            let limits = Server.Limits(maxClients: 4, maxLineBytes: 4096, outputBufferBytes: 8192, coalesceNs: coalesceMs * 1_000_000)
            server = try Server(loop: loop, listeners: [Listener(fd: l[0], quiet: false)], limits: limits, log: Logger(label: "test"))
            state = FrameState(fanout: Server.fanout(limits))
            _ = fcntl(s[0], F_SETFL, fcntl(s[0], F_GETFL) | O_NONBLOCK)
            _ = fcntl(s[1], F_SETFL, fcntl(s[1], F_GETFL) | O_NONBLOCK)
            client = try #require(server.admit(s[0], pid: 1, uid: 0, gid: 0, &state))
            peer = s[1]
        }
        deinit {
            close(peer)
            listenEnds.forEach { close($0) }
        }

        /// Queues `line` as input at `ms` and ends the turn.
        func line(_ line: String, at ms: Int64, continuous: Bool) {
            state.fanout.inputNow = ms * 1_000_000
            let bytes = Array((line + "\n").utf8)
            bytes.withUnsafeBufferPointer { state.fanout.enqueue($0, to: client.slot, since: ms * 1_000_000, continuous: continuous) }
            _ = server.endTurn(&state)
        }

        /// What the client can read now.
        func received() -> [String] {
            var buf = [UInt8](repeating: 0, count: 65_536)
            let n = read(peer, &buf, buf.count)
            guard n > 0 else { return [] }
            return String(decoding: buf[..<n], as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    @Test func changedLines_heldUpTo8ms_otherLinesAtOnce_withWhatWasHeld_inOrder() throws {
        let r = try Rig(coalesceMs: 8)
        r.line("began", at: 100, continuous: false)
        #expect(r.received() == ["began"])
        // A 1 kHz pan: held until 8 ms after the last write, then written together.
        for ms in Int64(101)...107 { r.line("c\(ms)", at: ms, continuous: true) }
        #expect(r.received() == [])
        #expect(r.state.fanout.holding && r.server.releaseAt == 110_000_000)
        // The loop waits for it from the hold's time (the input's, 107 ms), rounded up to the ms.
        #expect(r.server.releaseWait() == 3)
        #expect(r.server.releaseWait(since: 108_500_000) == 2, "from a pause's end, later")
        r.line("c108", at: 108, continuous: true)
        #expect(r.received() == (101...108).map { "c\($0)" })
        let holding = r.state.fanout.holding
        #expect(!holding)
        // A line that is not a continuous update takes what is held with it, in order.
        r.line("c109", at: 109, continuous: true)
        r.line("ended", at: 110, continuous: false)
        #expect(r.received() == ["c109", "ended"])
        // Input stops with a line held: the loop's wait ends at its due time (8 ms after the last
        // write) and 2 ms more; its turn's clock lets the line go.
        r.line("c111", at: 111, continuous: false)
        r.line("c112", at: 112, continuous: true)
        #expect(r.received() == ["c111"])
        #expect(r.server.releaseAt == 121_000_000)
        #expect(r.server.releaseWait() == 9)
        r.state.fanout.inputNow = 121 * 1_000_000  // that turn's clock (the rig's times are not the real clock's)
        _ = r.server.endTurn(&r.state)
        #expect(r.received() == ["c112"])
        // At 100 Hz a frame is 10 ms after the last write: nothing is held.
        for ms in stride(from: Int64(130), through: 170, by: 10) {
            r.line("c\(ms)", at: ms, continuous: true)
            #expect(r.received() == ["c\(ms)"])
        }
        // Writes: began, the 1 kHz batch, c109+ended, c111, c112, five at 100 Hz.
        #expect(r.state.fanout.writes == 10)
    }

    @Test func replies_goOutAtOnce_andAClientsOwnCoalescing_overridesTheDaemons() throws {
        let r = try Rig(coalesceMs: 8)
        r.line("c100", at: 100, continuous: true)
        r.line("c101", at: 101, continuous: true)
        #expect(r.received() == ["c100"])
        r.state.fanout.reply(Array("reply\n".utf8)[...], to: r.client.slot)
        _ = r.server.endTurn(&r.state)
        #expect(r.received() == ["c101", "reply"])
        // `subscribe` with coalesce_ms 0: every line in its turn.
        r.state.fanout.subscribers[r.client.slot].coalesceNs = 0
        for ms in Int64(102)...105 {
            r.line("c\(ms)", at: ms, continuous: true)
            #expect(r.received() == ["c\(ms)"])
        }
        let holding = r.state.fanout.holding
        #expect(!holding)
    }

    @Test func noCoalescing_writesEveryTurn() throws {
        let r = try Rig(coalesceMs: 0)
        for ms in Int64(100)...104 {
            r.line("c\(ms)", at: ms, continuous: true)
            #expect(r.received() == ["c\(ms)"])
        }
        #expect(r.state.fanout.writes == 5 && !r.state.fanout.holding)
    }
}

/// The slow-client bound counts what the socket did not take: a client that reads everything is
/// not dropped because one turn made more than `output_buffer_bytes` for it (a replay catching
/// up, held lines), and one that reads nothing still is.
@Suite struct BurstTests {
    @Test func oneTurnPastTheBound_isWrittenNotDropped_aClientThatNeverReads_isDropped() throws {
        let r = try CoalescingTests.Rig(coalesceMs: 8)
        let line = Array((String(repeating: "x", count: 3000) + "\n").utf8)
        // 30 lines of 3 KB in one turn (90 KB, eleven times the 8 KiB bound), all held.
        for _ in 0..<30 {
            line.withUnsafeBufferPointer { r.state.fanout.enqueue($0, to: r.client.slot, since: 100_000_000, continuous: true) }
        }
        #expect(!r.client.closed && r.state.fanout.droppedSlow == 0)
        r.state.fanout.inputNow = 200_000_000
        _ = r.server.endTurn(&r.state)
        var got = 0, buf = [UInt8](repeating: 0, count: 65_536)
        while case let n = read(r.peer, &buf, buf.count), n > 0 { got += n }
        #expect(got == 30 * line.count)
        // Nobody reads now: once the kernel's buffer is full, the queue passes the bound.
        for _ in 0..<2000 where r.state.fanout.subscribers[r.client.slot].isLive {
            line.withUnsafeBufferPointer { r.state.fanout.enqueue($0, to: r.client.slot, since: 300_000_000, continuous: false) }
        }
        // Dropped by the fan-out, closed by the server once it settles the turn.
        #expect(!r.client.closed && r.state.fanout.droppedSlow == 1)
        r.server.settle(&r.state)
        #expect(r.client.closed)
    }
}
