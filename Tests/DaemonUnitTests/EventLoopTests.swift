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
        /// What each turn's end bounds the next wait with (ms; -1 without end).
        var nextWait: Int32 = -1
        func afterTurn(_ state: inout FrameState) -> Int32 {
            record.events.append("turn end: \(state.fanout.writes)")
            turnsLeft -= 1
            if turnsLeft == 0 { loop.stop() }
            return nextWait
        }
        /// A device's fd is ready: recorded, and the frame state counts it.
        func deviceReady(_ id: UInt32, fd: Int32, _ state: inout FrameState) {
            record.events.append("device \(id) ready")
            state.fanout.writes += 1
            if let remove = removing[id] { _ = loop.remove(remove) }
        }
        /// Per device id: the fd its read removes from the loop (a device unplugged mid-turn).
        var removing: [UInt32: Int32] = [:]
    }

    /// Captured by a handler: says when it goes.
    final class Canary {
        let record: Record
        init(_ record: Record) { self.record = record }
        deinit { record.events.append("canary gone") }
    }

    /// A loop, its record, and pipes with a byte in them: their read ends stay readable (the
    /// loop is level-triggered). The pipes are closed with the rig.
    final class Rig {
        let loop: EventLoop
        let record = Record()
        private var fds: [Int32] = []

        init() throws { loop = try EventLoop() }
        deinit { fds.forEach { close($0) } }

        /// The read end of a new readable pipe.
        func readable() throws -> Int32 {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            fds += ends
            var byte: UInt8 = 1
            try #require(write(ends[1], &byte, 1) == 1)
            return ends[0]
        }

        /// Runs `turns` turns from an empty frame state; the state after them.
        func run(turns: Int, removing: [UInt32: Int32] = [:], nextWait: Int32 = -1) -> FrameState {
            var state = FrameState(fanout: Fanout(coalesceNs: 0, outputBufferBytes: 0))
            let owner = Owner(loop: loop, record: record, turns: turns)
            owner.removing = removing
            owner.nextWait = nextWait
            loop.run(owner, &state)
            return state
        }
    }

    @Test func handlersAndTheTurnsEnd_shareOneFrameState_acrossTurns() throws {
        let rig = try Rig()
        try rig.loop.add(try rig.readable()) { _, state in state.fanout.writes += 1 }
        let state = rig.run(turns: 3)
        #expect(rig.record.events == ["turn end: 1", "turn end: 2", "turn end: 3"])
        #expect(state.fanout.writes == 3, "the caller's state is the one the handlers changed")
    }

    /// The turn's end bounds the next wait: with nothing ready, the loop wakes when it ends (a
    /// turn without a handler: held lines due), and with no bound it would sleep on.
    @Test func theTurnsEnd_boundsTheNextWait_aTurnWithNothingReady() throws {
        let rig = try Rig()
        var byte: UInt8 = 0
        let a = try rig.readable()
        // Ready for the first turn only: its handler empties the pipe.
        try rig.loop.add(a) { _, state in
            _ = read(a, &byte, 1)
            state.fanout.writes += 1
        }
        // A guard 5 s on: a wait left without end would be ended by it (and the test fail),
        // not hang.
        let guardTimer = try DeadlineTimer()
        _ = guardTimer.arm(at: monotonicNanoseconds() + 5_000_000_000)
        let record = rig.record
        try rig.loop.add(guardTimer.fd) { _, _ in record.events.append("the guard fired") }
        let started = monotonicNanoseconds()
        _ = rig.run(turns: 3, nextWait: 5)
        #expect(rig.record.events == ["turn end: 1", "turn end: 1", "turn end: 1"])
        #expect(monotonicNanoseconds() - started >= 10_000_000, "two waits of 5 ms")
    }

    /// A handler that removes itself (a device unplugged, a client gone) finishes its call with
    /// its captures alive: the loop holds it for the call. It is not called again.
    @Test func aHandlerRemovingItself_keepsItsCapturesForTheCall_andIsNotCalledAgain() throws {
        let rig = try Rig()
        let (loop, record) = (rig.loop, rig.record)
        let a = try rig.readable()
        do {
            let canary = Canary(record)
            try loop.add(a) { _, _ in
                _ = loop.remove(a)
                record.events.append("removed itself")
                record.events.append("its canary still here: \(canary.record === record)")
            }
        }
        try loop.add(try rig.readable()) { _, _ in }  // keeps the loop turning
        _ = rig.run(turns: 2)
        #expect(
            record.events == ["removed itself", "its canary still here: true", "canary gone", "turn end: 0", "turn end: 0"])
    }

    /// Two fds ready in one turn, each one's handler removing the other: whichever runs first,
    /// the other is not called that turn (its fd may still be in the turn's ready list).
    @Test func aHandlerRemovedEarlierInTheTurn_isNotCalled() throws {
        let rig = try Rig()
        let loop = rig.loop
        let (a, b) = (try rig.readable(), try rig.readable())
        try loop.add(a) { _, state in
            _ = loop.remove(b)
            state.fanout.writes += 1
        }
        try loop.add(b) { _, state in
            _ = loop.remove(a)
            state.fanout.writes += 1
        }
        _ = rig.run(turns: 1)
        #expect(rig.record.events == ["turn end: 1"])
    }

    /// A touch device's fd goes to the owner's `deviceReady` with its id and the frame state (no
    /// handler); once removed it is not called again, and its fd number may serve a handler.
    @Test func aDevicesFd_goesToTheOwner_withItsID_untilRemoved() throws {
        let rig = try Rig()
        let (loop, record) = (rig.loop, rig.record)
        let device = try rig.readable()
        try loop.addDevice(device, id: 7)
        try loop.add(try rig.readable()) { _, _ in }  // keeps the loop turning
        var state = rig.run(turns: 2)
        #expect(record.events == ["device 7 ready", "turn end: 1", "device 7 ready", "turn end: 2"])
        #expect(state.fanout.writes == 2)

        record.events = []
        _ = loop.remove(device)
        try loop.add(device) { _, state in
            record.events.append("handler")
            state.fanout.writes += 1
        }
        state = rig.run(turns: 1)
        #expect(record.events == ["handler", "turn end: 1"], "the fd is a plain handler's now, not the device's")
    }

    /// A device whose read removes another device's fd (both ready in one turn): whichever runs
    /// first, the other is not read that turn.
    @Test func aDeviceRemovedEarlierInTheTurn_isNotRead() throws {
        let rig = try Rig()
        let (a, b) = (try rig.readable(), try rig.readable())
        try rig.loop.addDevice(a, id: 1)
        try rig.loop.addDevice(b, id: 2)
        let state = rig.run(turns: 1, removing: [1: b, 2: a])
        #expect(rig.record.events.count == 2 && rig.record.events.last == "turn end: 1", "\(rig.record.events)")
        #expect(state.fanout.writes == 1)
    }
}
