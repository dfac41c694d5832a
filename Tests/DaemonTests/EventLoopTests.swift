import Testing

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The loop's turn: its frame state handed to every handler and to `afterTurn`, and its handler
/// table changed by the handlers themselves while it runs (a device or client removed mid-turn).
@Suite struct EventLoopTests {
    /// What happened, in order, across handlers and objects that come and go.
    final class Record {
        var events: [String] = []
    }

    /// Stops the loop after `turns` turns; records the frame state's counter at each turn's end.
    final class Owner: EventLoopOwner {
        let loop: EventLoop
        let record: Record
        var turnsLeft: Int
        init(loop: EventLoop, record: Record, turns: Int) {
            (self.loop, self.record, turnsLeft) = (loop, record, turns)
        }
        func afterTurn(_ state: inout FrameState) {
            record.events.append("turn end: \(state.fanout.writes)")
            turnsLeft -= 1
            if turnsLeft == 0 { loop.stop() }
        }
        var hasPendingWork: Bool { false }
    }

    /// Captured by a handler: says when it goes.
    final class Canary {
        let record: Record
        init(_ record: Record) { self.record = record }
        deinit { record.events.append("canary gone") }
    }

    /// A pipe with a byte in it: its read end stays readable (the loop is level-triggered).
    static func readablePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        var byte: UInt8 = 1
        try #require(write(fds[1], &byte, 1) == 1)
        return (fds[0], fds[1])
    }

    static func emptyState() -> FrameState { FrameState(fanout: Fanout(coalesceNs: 0, outputBufferBytes: 0)) }

    @Test func handlersAndTheTurnsEnd_shareOneFrameState_acrossTurns() throws {
        let loop = try EventLoop()
        let record = Record()
        let (a, aw) = try Self.readablePipe()
        defer { [a, aw].forEach { close($0) } }
        try loop.add(a) { _, state in state.fanout.writes += 1 }
        var state = Self.emptyState()
        loop.run(Owner(loop: loop, record: record, turns: 3), &state)
        #expect(record.events == ["turn end: 1", "turn end: 2", "turn end: 3"])
        #expect(state.fanout.writes == 3, "the caller's state is the one the handlers changed")
    }

    /// A handler that removes itself (a device unplugged, a client gone) finishes its call with
    /// its captures alive: the loop holds it for the call. It is not called again.
    @Test func aHandlerRemovingItself_keepsItsCapturesForTheCall_andIsNotCalledAgain() throws {
        let loop = try EventLoop()
        let record = Record()
        let (a, aw) = try Self.readablePipe()
        let (b, bw) = try Self.readablePipe()
        defer { [a, aw, b, bw].forEach { close($0) } }
        do {
            let canary = Canary(record)
            try loop.add(a) { _, _ in
                _ = loop.remove(a)
                record.events.append("removed itself")
                record.events.append("its canary still here: \(canary.record === record)")
            }
        }
        try loop.add(b) { _, _ in }  // keeps the loop turning
        var state = Self.emptyState()
        loop.run(Owner(loop: loop, record: record, turns: 2), &state)
        #expect(
            record.events == ["removed itself", "its canary still here: true", "canary gone", "turn end: 0", "turn end: 0"])
    }

    /// Two fds ready in one turn, each one's handler removing the other: whichever runs first,
    /// the other is not called that turn (its fd may still be in the turn's ready list).
    @Test func aHandlerRemovedEarlierInTheTurn_isNotCalled() throws {
        let loop = try EventLoop()
        let record = Record()
        let (a, aw) = try Self.readablePipe()
        let (b, bw) = try Self.readablePipe()
        defer { [a, aw, b, bw].forEach { close($0) } }
        try loop.add(a) { _, state in
            _ = loop.remove(b)
            state.fanout.writes += 1
        }
        try loop.add(b) { _, state in
            _ = loop.remove(a)
            state.fanout.writes += 1
        }
        var state = Self.emptyState()
        loop.run(Owner(loop: loop, record: record, turns: 1), &state)
        #expect(record.events == ["turn end: 1"])
    }
}
