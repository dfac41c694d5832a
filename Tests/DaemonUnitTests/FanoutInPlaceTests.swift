import Foundation
import GestureEngine
import GestureProtocol
import Testing
import TouchFrames
import TouchInput

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// A subscriber with nothing queued takes a turn's gesture lines in place, from the fan-out's
/// line buffer (`Subscriber.inPlace`); whatever the socket does not take, a hold, a reply or a
/// buffer being emptied copies them out first. Each test reads a second subscriber beside the
/// rig's client, which reads at once, and holds the two streams equal byte for byte.
@Suite struct FanoutInPlaceTests {
    /// A second subscriber on `rig`: its slot, and its (ours, peer) socket pair.
    static func second(_ rig: inout RouteRig) -> (slot: Int, fds: (Int32, Int32)) {
        let fds = FanoutTests.pair()
        let slot = rig.state.fanout.open(.socket(fd: fds.0))
        rig.state.devices.output.wants = rig.state.fanout.wants(transitions: false)
        return (slot, fds)
    }

    /// Writes `slot`'s queue until it is empty, reading the peer as it goes.
    static func drain(_ rig: inout RouteRig, _ slot: Int, peer: Int32) -> [String] {
        var text = FanoutTests.read(peer)
        for _ in 0..<10_000 where rig.state.fanout.subscribers[slot].queued > 0 {
            rig.state.fanout.write(slot)
            text += FanoutTests.read(peer)
        }
        #expect(rig.state.fanout.subscribers[slot].queued == 0 && rig.state.fanout.subscribers[slot].inPlace == nil)
        return text.split(separator: "\n").map(String.init)
    }

    /// A recording of many lines (a pan's `changed` lines, ~9 KB with the built-in gestures).
    static let long = "bottom-sheet-chain"

    @Test func aSocketThatTakesPartOfARun_getsTheRestFromItsQueue() throws {
        var rig = try RouteRig(Self.long)
        let (slot, fds) = Self.second(&rig)
        defer { close(fds.0); close(fds.1) }
        // The smallest send buffer the kernel allows: runs are written in part, or not at all.
        var size: Int32 = 1
        #expect(setsockopt(fds.0, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0)
        rig.playAll()
        #expect(rig.lines.count > 20)
        #expect(Self.drain(&rig, slot, peer: fds.1) == rig.lines)
        #expect(rig.state.fanout.subscribers[slot].link == .open)
    }

    /// A socket with `filled` bytes in it already takes part of a 2.8 KB write (the kernel's
    /// smallest send buffer, 4,608 bytes, sends 2,240 of it after 1,000) or none of it (EAGAIN
    /// after 3,000).
    @Test(arguments: [1_000, 3_000])
    func aRunTheSocketTakesInPartOrNot_leavesTheRestQueued(filled: Int) throws {
        var rig = try RouteRig("pinch-out-and-turn")
        let (slot, fds) = Self.second(&rig)
        defer { close(fds.0); close(fds.1) }
        var size: Int32 = 1
        #expect(setsockopt(fds.0, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0)
        let filler = [UInt8](repeating: UInt8(ascii: "x"), count: filled - 1) + [10]
        #expect(write(fds.0, filler, filler.count) == filler.count)
        // One turn's lines in one run.
        rig.playInOneTurn()
        #expect(rig.lines.joined(separator: "\n").utf8.count > 2_500)
        #expect(rig.state.fanout.subscribers[slot].inPlace == nil && rig.state.fanout.subscribers[slot].output.count > 0)
        #expect(Self.drain(&rig, slot, peer: fds.1) == [String(repeating: "x", count: filled - 1)] + rig.lines)
    }

    @Test func aHeldSubscriber_keepsItsLinesPastTheTurn() throws {
        var rig = try RouteRig(Self.long)
        let (slot, fds) = Self.second(&rig)
        defer { close(fds.0); close(fds.1) }
        rig.state.fanout.setCoalescing(1_000_000_000_000, of: slot)
        rig.playAll()
        // Held lines went out with the turn's urgent ones, or wait in its queue: none are lost.
        #expect(Self.drain(&rig, slot, peer: fds.1) == rig.lines)
    }

    @Test func aReplyQueuedAfterTheTurnsLines_comesAfterThem() throws {
        var rig = try RouteRig(Self.long)
        let (slot, fds) = Self.second(&rig)
        defer { close(fds.0); close(fds.1) }
        var frame: [InputEvent] = []
        var expected: [String] = []
        for e in rig.events {
            frame.append(e)
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            rig.fireDeadlines(until: e.time.nanoseconds)
            expected = rig.lines
            rig.env.now = e.time.nanoseconds
            _ = frame.withUnsafeBufferPointer { DeviceTable.run(.read(InputBatch($0)), 0, &rig.state, rig.env) }
            frame.removeAll()
            let reply = "{\"reply\":\(expected.count)}"
            rig.state.fanout.reply(Array((reply + "\n").utf8)[...], to: slot)
            rig.endTurn()
            expected = rig.lines + [reply]
            rig.lines = expected
        }
        rig.fireDeadlines(until: .max)
        // Its stream is the client's, each turn's reply after the turn's lines.
        #expect(Self.drain(&rig, slot, peer: fds.1) == rig.lines)
        #expect(rig.lines.count > 100)
    }

    @Test func aTurnOfMoreLinesThanTheBufferKeeps_copiesItsRunsOut() throws {
        var alone = try RouteRig(Self.long)
        alone.playAll()
        var rig = try RouteRig(Self.long)
        let (slot, fds) = Self.second(&rig)
        defer { close(fds.0); close(fds.1) }
        rig.playInOneTurn()
        #expect(rig.lines.joined(separator: "\n").utf8.count > Fanout.scratchLimit)
        // One turn, so a tap's deadline (fired between reads when turns end) is all that differs.
        #expect(rig.lines.filter { !$0.contains("\"tap\"") } == alone.lines.filter { !$0.contains("\"tap\"") })
        #expect(Self.drain(&rig, slot, peer: fds.1) == rig.lines)
    }

    /// Beside the client (every gesture line): one that takes touch lines too (each frame's
    /// touch line is copied, and copies its run out first), and one that takes only taps (its
    /// lines are not one run of the buffer). Each reads every turn; each gets its own lines, in order.
    @Test func touchLinesAndFilteredSubscribers_keepTheirOrder() throws {
        var rig = try RouteRig("photo-select-and-move")
        let touches = Self.second(&rig), taps = Self.second(&rig)
        defer { [touches.fds.0, touches.fds.1, taps.fds.0, taps.fds.1].forEach { close($0) } }
        var withTouches = Subscription()
        withTouches.touches = true
        var onlyTaps = Subscription()
        onlyTaps.kinds = [.tap]
        let compiled = rig.state.devices.all[0].pipeline.engine.configuration
        rig.state.fanout.subscribers[touches.slot].subscription.subscribe(withTouches, configuration: compiled)
        rig.state.fanout.subscribers[taps.slot].subscription.subscribe(onlyTaps, configuration: compiled)
        rig.state.devices.output.wants = rig.state.fanout.wants(transitions: false)
        var got = (touches: [String](), taps: [String]())
        var frame: [InputEvent] = []
        for e in rig.events {
            frame.append(e)
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            rig.read(frame, at: e.time.nanoseconds)
            frame.removeAll()
            got.touches += FanoutTests.read(touches.fds.1).split(separator: "\n").map(String.init)
            got.taps += FanoutTests.read(taps.fds.1).split(separator: "\n").map(String.init)
        }
        rig.fireDeadlines(until: .max)
        got.touches += Self.drain(&rig, touches.slot, peer: touches.fds.1)
        got.taps += Self.drain(&rig, taps.slot, peer: taps.fds.1)
        let touchLines = got.touches.filter { $0.contains("\"type\":\"touch\"") }
        #expect(got.touches.filter { !$0.contains("\"type\":\"touch\"") } == rig.lines)
        #expect(touchLines.count > 5)
        #expect(got.taps == rig.lines.filter { $0.contains("\"gesture\":\"tap\"") })
        #expect(!got.taps.isEmpty && got.taps.count < rig.lines.count)
    }
}
