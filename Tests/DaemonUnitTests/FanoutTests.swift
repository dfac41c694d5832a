import CLinux
import Foundation
import GestureConfig
import GestureEngine
import GestureProtocol
import Logging
import Pipeline
import Testing
import TouchFrames
import TouchInput

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The fan-out as a value: subscribers by slot, what it reports instead of calling back, and
/// slots reused clean.
@Suite struct FanoutTests {
    /// A non-blocking socketpair: (the subscriber's end, the reader's end).
    static func pair() -> (Int32, Int32) {
        var s: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &s) == 0)
        for fd in s { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (s[0], s[1])
    }

    static func read(_ fd: Int32) -> String {
        var buf = [UInt8](repeating: 0, count: 1 << 20), got: [UInt8] = []
        while case let n = Glibc.read(fd, &buf, buf.count), n > 0 { got += buf[..<n] }
        return String(decoding: got, as: UTF8.self)
    }

    static func enqueue(_ f: inout Fanout, _ line: String, to s: Int, continuous: Bool = false) {
        Array((line + "\n").utf8).withUnsafeBufferPointer { f.enqueue($0, to: s, since: 1_000_000, continuous: continuous) }
    }

    @Test func aSubscriberThatStopsReading_isReportedGone_theOtherGetsEveryLine() {
        var f = Fanout(coalesceNs: 0, outputBufferBytes: 4096)
        let (slow, slowPeer) = Self.pair(), (fast, fastPeer) = Self.pair()
        defer { [slow, slowPeer, fast, fastPeer].forEach { close($0) } }
        let a = f.open(.socket(fd: slow)), b = f.open(.socket(fd: fast))
        let line = String(repeating: "x", count: 999)
        var delivered = 0
        for _ in 0..<2000 {
            Self.enqueue(&f, line, to: a)
            Self.enqueue(&f, line, to: b)
            _ = f.flush(turnClock: 0)
            delivered += Self.read(fastPeer).count
        }
        #expect(delivered == 2000 * 1000)
        #expect(f.droppedSlow == 1 && f.subscribers[a].link == .gone && f.subscribers[b].link == .open)
        // Reported, not acted on (first its write side blocked, then gone): the server closes
        // it when it settles the turn.
        guard case .interest(a)? = f.notices.first, case .gone(let slot, let reason, _)? = f.notices.last else {
            Issue.record("no notice: \(f.notices)")
            return
        }
        #expect(slot == a && reason.hasPrefix("stopped reading: ") && reason.contains(" bytes queued and a line of "), "\(reason)")
        // Nothing more is queued for it.
        Self.enqueue(&f, "late", to: a)
        #expect(f.subscribers[a].queued == 0)
    }

    @Test func aReleasedSlot_isReusedClean_andItsNoticesAreGone() {
        var f = Fanout(coalesceNs: 8_000_000, outputBufferBytes: 4096)
        let (x, xPeer) = Self.pair(), (y, yPeer) = Self.pair()
        defer { [x, xPeer, y, yPeer].forEach { close($0) } }
        let a = f.open(.socket(fd: x))
        f.setCoalescing(0, of: a)
        Self.enqueue(&f, "held", to: a, continuous: true)
        f.drop(a, reason: "test")
        #expect(f.notices.count == 1)
        f.release(a)
        #expect(f.notices.isEmpty)
        let b = f.open(.socket(fd: y))
        #expect(b == a)
        #expect(f.subscribers[b].queued == 0 && f.subscribers[b].coalesceNs == nil && f.subscribers[b].link == .open)
        Self.enqueue(&f, "fresh", to: b)
        _ = f.flush(turnClock: 0)
        #expect(Self.read(yPeer) == "fresh\n" && Self.read(xPeer).isEmpty)
    }

    /// A 1 kHz panel streamed to a coalescing client is read four frames at a time, unless the
    /// pacing is off (pass-through: the compositor reads the mirror, each frame as it comes).
    @Test func inputPacing_pacesAFastPanel_unlessOff() {
        let ms: Int64 = 1_000_000
        for paced in [true, false] {
            var f = Fanout(coalesceNs: 8 * ms, outputBufferBytes: 4096)
            f.paceInput = paced
            let (w, peer) = Self.pair()
            defer { [w, peer].forEach { close($0) } }
            let s = f.open(.socket(fd: w))
            for t in Int64(95)...100 { f.pacing.frames(first: t * ms, last: t * ms, count: 1) }
            Self.enqueue(&f, "began", to: s)
            f.inputNow = 99 * ms
            _ = f.flush(turnClock: 0)
            Self.enqueue(&f, "changed", to: s, continuous: true)
            f.subscribers[s].streamedAt = 100 * ms  // the input time of that update
            f.inputNow = 100 * ms
            let end = f.endTurn(turnClock: 0, deadline: nil)
            #expect(end.holdingDue == 107 * ms)
            #expect(end.readAgain == (paced ? 104 * ms + ms / 2 : nil))
        }
    }

    /// With no client streamed to (none connected, or one given only discrete lines) a fast
    /// panel is paced too; a client that takes every frame, or input pacing off, reads each frame.
    @Test func inputPacing_withNoClientStreamed_pacesToo_unlessOneTakesEveryFrame() {
        let ms: Int64 = 1_000_000
        func end(clients: [Int64?], streamed: Bool = false, paced: Bool = true, daemonWindow: Int64 = 8_000_000) -> Int64? {
            var f = Fanout(coalesceNs: daemonWindow, outputBufferBytes: 4096)
            f.paceInput = paced
            var fds: [Int32] = []
            defer { fds.forEach { close($0) } }
            for hold in clients {
                let (w, peer) = Self.pair()
                fds += [w, peer]
                let s = f.open(.socket(fd: w))
                f.subscribers[s].coalesceNs = hold
                if streamed { (f.subscribers[s].streamedAt, f.subscribers[s].lastWriteAt) = (100 * ms, 95 * ms) }
            }
            for t in Int64(95)...100 { f.pacing.frames(first: t * ms, last: t * ms, count: 1) }
            f.inputNow = 100 * ms
            return f.endTurn(turnClock: 0, deadline: nil).readAgain
        }
        #expect(end(clients: []) == 104 * ms + ms / 2)
        #expect(end(clients: [nil]) == 104 * ms + ms / 2)  // connected, given no continuous update
        #expect(end(clients: [nil, 0]) == nil)  // one takes every frame
        #expect(end(clients: [nil], streamed: true) == 103 * ms + ms / 2)  // streamed: bounded by its write, due at 103
        #expect(end(clients: [], paced: false) == nil)
        // `[daemon] coalesce_ms = 0`: never paced, even while a client with its own window streams.
        #expect(end(clients: [8 * ms], streamed: true, daemonWindow: 0) == nil)
        #expect(end(clients: [], daemonWindow: 0) == nil)
    }

    /// One subscriber, its 8 ms window started by a first write ("began") at 100 ms.
    static func startWindow(_ f: inout Fanout) -> (slot: Int, w: Int32, peer: Int32) {
        let (w, peer) = pair()
        let s = f.open(.socket(fd: w))
        enqueue(&f, "began", to: s)
        f.inputNow = 100_000_000
        #expect(f.flush(turnClock: 0) == nil)
        #expect(read(peer) == "began\n")
        return (s, w, peer)
    }

    @Test func heldUpdates_giveTheirDueTime_anUrgentLineTakesThemAlong() {
        var f = Fanout(coalesceNs: 8_000_000, outputBufferBytes: 4096)
        let (s, w, peer) = Self.startWindow(&f)
        defer { [w, peer].forEach { close($0) } }
        Self.enqueue(&f, "changed 1", to: s, continuous: true)
        f.inputNow = 102_000_000
        #expect(f.flush(turnClock: 0) == 108_000_000)
        #expect(f.holding && Self.read(peer).isEmpty)
        Self.enqueue(&f, "ended", to: s)
        f.inputNow = 103_000_000
        #expect(f.flush(turnClock: 0) == nil)
        #expect(Self.read(peer) == "changed 1\nended\n")
    }

    /// A held write due at the end of the pacing's pause goes out in the turn after it, though
    /// the newest frame read was stamped before it; without a pause, the frames' time decides.
    @Test func aHeldWrite_dueAtThePausesEnd_goesOutThen() {
        for paused in [false, true] {
            var f = Fanout(coalesceNs: 8_000_000, outputBufferBytes: 4096)
            let (s, w, peer) = Self.startWindow(&f)
            defer { [w, peer].forEach { close($0) } }
            Self.enqueue(&f, "changed 1", to: s, continuous: true)
            f.inputNow = 104_000_000
            #expect(f.flush(turnClock: 0) == 108_000_000)
            // The loop slept to 108 ms (the write's due), then read frames stamped up to 107.6.
            if paused { f.pacedUntil = 108_000_000 }
            Self.enqueue(&f, "changed 2", to: s, continuous: true)
            f.inputNow = 107_600_000
            #expect(f.flush(turnClock: 0) == (paused ? nil : 108_000_000))
            #expect(Self.read(peer) == (paused ? "changed 1\nchanged 2\n" : ""))
            #expect(f.pacedUntil == nil)  // one turn's only
        }
    }

    /// A write's latency is measured when its oldest line's input is 4 ms or more after the last
    /// measured one's: every write of a 100 Hz panel, one in four at 1 kHz.
    @Test func latency_sampledOncePer4msOfInput() {
        func samples(everyMicroseconds step: Int64, writes: Int) -> Int {
            var f = Fanout(coalesceNs: 0, outputBufferBytes: 1 << 16)
            let (w, peer) = Self.pair()
            defer { [w, peer].forEach { close($0) } }
            let s = f.open(.socket(fd: w))
            for k in 0..<Int64(writes) {
                Array("l\n".utf8).withUnsafeBufferPointer { f.enqueue($0, to: s, since: 1_000_000_000 + k * step * 1000) }
                _ = f.flush(turnClock: 0)
                _ = Self.read(peer)
            }
            return f.latencies.count
        }
        #expect(samples(everyMicroseconds: 10_000, writes: 40) == 40)
        #expect(samples(everyMicroseconds: 1_000, writes: 400) == 100)
        #expect(samples(everyMicroseconds: 4_000, writes: 50) == 50)
    }

    @Test func wants_followTheLiveSubscriptions() {
        var f = Fanout(coalesceNs: 0, outputBufferBytes: 4096)
        let (w, peer) = Self.pair()
        defer { [w, peer].forEach { close($0) } }
        let s = f.open(.socket(fd: w))
        #expect(f.wants(transitions: false) == .init(touchLines: false, gestureLines: true))
        var sub = Subscription()
        sub.touches = true
        f.subscribers[s].subscription.subscribe(sub, configuration: CompiledConfiguration(EngineConfiguration.standard()))
        #expect(f.wants(transitions: true) == .init(touchLines: true, gestureLines: true, transitions: true))
        f.drop(s, reason: "test")
        #expect(f.wants(transitions: false) == .init(touchLines: false, gestureLines: false))
    }
}
