import GestureConfig
import GestureEngine
import Logging
import Synchronization
import TestSupport
import SystemCalls
import Testing
import TouchFrames
import TouchInput
import TouchMirror

@testable import Daemon
@testable import Pipeline

#if canImport(Glibc)
    import Glibc
#endif

/// The input thread (`InputThread`, `ThreadedPanel`): a pass-through panel read on a thread of
/// its own, each frame shown on the mirror there, each read relayed to the loop.
@Suite struct InputThreadTests {
    /// A mirror's writes, kept (the thread writes, the test reads).
    final class KeptSink: TouchSink, Sendable {
        let writes = Mutex<[[KernelInputEvent]]>([])
        func send(_ events: [KernelInputEvent]) -> SystemCallError? {
            writes.withLock { $0.append(events) }
            return nil
        }
        var events: [[Int32]] { MirrorAheadTests.events(writes.withLock { $0 }) }
    }

    /// A panel for the thread: one end of a socket pair the test writes frames to (`ours`).
    struct FakePanel: ~Copyable {
        let ours: Int32, theirs: Int32
        init() throws {
            (ours, theirs) = try Posix.sequentialPacketPair().get().release()
        }
        deinit {
            Posix.close(ours)
            Posix.close(theirs)
        }
    }

    static func panel(_ rig: borrowing RouteRig, fd: Int32, sink: KeptSink, wake: WakeFlags = WakeFlags()) throws -> ThreadedPanel {
        let d = rig.state.devices.all[0].source.description
        let parts = MirrorParts(screen: sink, described: VirtualTouchscreen.description(mirroring: d), cancel: .lift, geometry: nil, adopted: false)
        return try ThreadedPanel(
            panel: fd, node: "test", slots: 0, decoder: rig.state.devices.all[0].pipeline.decoder, mirror: parts, ahead: true, wake: wake,
            log: Logger(label: "test"), trace: nil)
    }

    /// The recording's frames, each as the kernel lays it out.
    static func frames(_ events: [InputEvent]) -> [[KernelInputEvent]] {
        var frames: [[KernelInputEvent]] = [], frame: [KernelInputEvent] = []
        for e in events {
            frame.append(KernelInputEvent(e))
            guard e.type == Evdev.EV_SYN && e.code == Evdev.SYN_REPORT else { continue }
            frames.append(frame)
            frame.removeAll()
        }
        return frames
    }

    /// The thread's path (its decoder, its mirror) shows what the loop's route shows, event for
    /// event, with and without the panel's filters.
    @Test func theThreadsPath_showsWhatTheLoopsMirrorShows() throws {
        let noisy = try String(contentsOfFile: Repository.root + "/examples/noisy-panel.toml", encoding: .utf8)
        let recordings = ["pinch-out-and-turn", "double-tap", "long-press-then-move", "two-visitors"]
        let chatter = ["8", "40ms-1", "45ms-24"].map { "../../DaemonUnitTests/Recordings/chatter-tap-200hz-\($0)" }
        for (config, names) in [(MirrorAheadTests.passThrough, recordings), (noisy, recordings + chatter)] {
            for name in names {
                var rig = try RouteRig(name, config: config, mirrored: true)
                let fake = try FakePanel()
                let sink = KeptSink()
                let panel = try Self.panel(rig, fd: fake.theirs, sink: sink)
                panel.ahead.store(true, ordering: .relaxed)
                for frame in Self.frames(rig.events) {
                    // The filters' own frames due first, as the loop fires deadlines before a read.
                    panel.tick(before: frame.last!.time)
                    let lost = InputBatch.lending(kernel: frame) { batch in panel.shared.withLock { $0.take(batch, panel: panel) } }
                    #expect(!lost)
                }
                panel.tick(before: .distantFuture)
                rig.playAll()
                #expect(!sink.events.isEmpty, "\(name)")
                #expect(sink.events == MirrorAheadTests.events(rig.mirror.writes), "\(name), \(config.count) bytes of config: the same events")
            }
        }
    }

    /// Waits (at most five seconds, a tenth of one at a time) until `done`.
    static func eventually(_ done: () -> Bool) -> Bool {
        for _ in 0..<50 {
            if done() { return true }
            Posix.sleep(untilMonotonic: Posix.monotonicNanoseconds() + 100_000_000)
        }
        return done()
    }

    /// Every message the loop's end has now, as events.
    static func relayed(_ fd: Int32) -> [[KernelInputEvent]] {
        var got: [[KernelInputEvent]] = []
        var buffer = [KernelInputEvent](repeating: KernelInputEvent(seconds: 0, microseconds: 0, type: 0, code: 0, value: 0), count: 512)
        while case .done(let n) = buffer.withUnsafeMutableBytes({ Posix.receive(fd, into: $0) }), n > 0 {
            got.append(Array(buffer[0..<(n / MemoryLayout<KernelInputEvent>.stride)]))
        }
        return got
    }

    static func send(_ frame: [KernelInputEvent], to fd: Int32) {
        #expect(Relay.send(frame, to: fd) != .wouldBlock)
    }

    /// The real thread: each frame written to the panel is on the mirror, and relayed to the
    /// loop whole, read for read; the panel going ends the relay (the loop reads its end).
    @Test func theThread_showsEachFrame_relaysEachRead_andEndsWithThePanel() throws {
        let input = try #require(InputThread.start(log: Logger(label: "test")))
        let rig = try RouteRig("double-tap", config: MirrorAheadTests.passThrough, mirrored: true)
        let fake = try FakePanel()
        let sink = KeptSink()
        let panel = try Self.panel(rig, fd: fake.theirs, sink: sink)
        panel.ahead.store(true, ordering: .relaxed)
        #expect(input.add(panel) == nil)
        let frames = Self.frames(rig.events)
        let expected = MirrorAheadTests.events(Self.mirrored(rig))
        var relayed: [[KernelInputEvent]] = []
        for frame in frames {
            Self.send(frame, to: fake.ours)
            // One frame a read: each is on the relay before the next is written.
            let before = relayed.count
            #expect(Self.eventually {
                relayed += Self.relayed(panel.loopEnd)
                return relayed.count > before
            })
        }
        #expect(relayed.map { $0.map(\.event) } == frames.map { $0.map(\.event) }, "every read relayed whole, in order")
        #expect(Self.eventually { sink.events == expected }, "the mirror shows what the loop's route shows")
        // The panel goes: the relay ends.
        Posix.shutdownSending(fake.ours)
        var bytes = [UInt8](repeating: 0, count: 64)
        #expect(Self.eventually { bytes.withUnsafeMutableBytes { Posix.receive(panel.loopEnd, into: $0) } == .done(0) }, "the loop reads the relay's end")
    }

    /// What the loop's own route would show for the rig's recording.
    static func mirrored(_ rig: consuming RouteRig) -> [[KernelInputEvent]] {
        rig.playAll()
        return rig.mirror.writes
    }

    /// A landing while the kiosk sleeps: the thread wakes it, shows none of the sequence, and
    /// notes the wake for the loop's wake stage (which routes the frame after it).
    @Test func aLandingWhileAsleep_wakesTheKiosk_andReachesNoApp() throws {
        let input = try #require(InputThread.start(log: Logger(label: "test")))
        let rig = try RouteRig("double-tap", config: MirrorAheadTests.passThrough, mirrored: true)
        let fake = try FakePanel()
        let sink = KeptSink()
        let wake = WakeFlags()
        wake.asleep.store(true, ordering: .relaxed)
        let panel = try Self.panel(rig, fd: fake.theirs, sink: sink, wake: wake)
        panel.ahead.store(true, ordering: .relaxed)
        #expect(input.add(panel) == nil)
        let first = try #require(Self.frames(rig.events).first)
        Self.send(first, to: fake.ours)
        #expect(Self.eventually { !Self.relayed(panel.loopEnd).isEmpty })
        let (asleep, noted) = (wake.asleep.load(ordering: .relaxed), panel.shared.withLock { $0.wakes.count })
        #expect(!asleep && noted == 1, "woken, and noted for the loop")
        #expect(sink.events.isEmpty, "the waking touch reached no app")
    }

    /// The thread and the loop together, as they run: each frame written to the panel, the
    /// thread's read of it (its path, its relay), then the loop's route of every message the
    /// relay holds (reads, and the filters' own frames where the thread made them). The mirror
    /// shows what the loop alone shows, frame for frame, the lines are the same, with and without
    /// the panel's filters; asleep, the first touch wakes the kiosk (the thread decides) and
    /// reaches no app in either. With the engine's say "not ahead" (it may take touches), the loop
    /// writes the mirror, and swallows the waking touch there itself.
    @Test(arguments: [false, true], [true, false])
    func theThreadAndTheLoop_showEachFrameOnce(asleep: Bool, ahead: Bool) throws {
        let noisy = try String(contentsOfFile: Repository.root + "/examples/noisy-panel.toml", encoding: .utf8)
        let chatter = ["8", "40ms-1", "45ms-24"].map { "../../DaemonUnitTests/Recordings/chatter-tap-200hz-\($0)" }
        for (config, names) in [(MirrorAheadTests.passThrough, ["pinch-out-and-turn", "double-tap", "two-visitors"]), (noisy, ["double-tap"] + chatter)] {
            for name in names {
                var alone = try RouteRig(name, config: config, mirrored: true)
                alone.state.devices.wake.asleep = asleep
                alone.state.devices.all[0].pipeline.leavesTheMirror = ahead
                alone.playAll()
                var rig = try RouteRig(name, config: config)
                let fake = try FakePanel()
                let sink = KeptSink()
                rig.state.devices.wake.asleep = asleep
                let panel = try Self.panel(rig, fd: fake.theirs, sink: sink, wake: rig.state.devices.wake.flags)
                rig.state.devices.all[0].pipeline.leavesTheMirror = ahead
                let d = rig.state.devices.all[0]
                rig.state.devices.all[0] = RouteDevice(id: d.id, source: d.source, pipeline: d.pipeline, health: d.health, thread: panel)
                let buffer = EventReadBuffer(capacity: Relay.readCapacity)
                for frame in Self.frames(rig.events) {
                    let at = frame.last!.time
                    panel.tick(before: at)
                    Self.send(frame, to: fake.ours)
                    #expect(panel.read(into: buffer) == .read)
                    Self.route(Self.relayed(panel.loopEnd), &rig, at: at.nanoseconds)
                }
                panel.tick(before: .distantFuture)
                Self.route(Self.relayed(panel.loopEnd), &rig, at: .max)
                rig.fireDeadlines(until: .max)
                #expect(sink.events == MirrorAheadTests.events(alone.mirror.writes), "\(name), asleep \(asleep), ahead \(ahead): each frame once")
                #expect(rig.lines == alone.lines, "\(name), asleep \(asleep), ahead \(ahead): the same lines")
                #expect(rig.env.reports.contains { $0.woke } == asleep && alone.env.reports.contains { $0.woke } == asleep, "\(name)")
            }
        }
    }

    /// The relay's messages down the rig's route as the daemon routes them (`delivered`).
    static func route(_ messages: [[KernelInputEvent]], _ rig: inout RouteRig, at: Int64) {
        for m in messages {
            InputBatch.lending(kernel: m) { batch in
                switch Relay.kind(of: batch) {
                case .read:
                    rig.fireDeadlines(until: min(at, m.last!.time.nanoseconds))
                    let lost = rig.readKernel(m.map(\.event), at: m.last!.time.nanoseconds)
                    #expect(!lost)
                case .tick(let t):
                    rig.fireDeadlines(until: t.nanoseconds)
                    rig.env.now = t.nanoseconds
                    DeviceTable.run(.filterTick(t), 0, &rig.state, rig.env)
                    rig.endTurn()
                case .resync, .swap:
                    Issue.record("no lost events nor reload here")
                }
            }
        }
    }

    /// A filters' frame relayed keeps its time to the nanosecond (a held lift's due time is rarely
    /// a whole microsecond, and the loop fires only what is due by it); a resync keeps its number;
    /// a reload's mark is told apart.
    @Test func aTickAndAResync_keepTheirTimeAndNumber() throws {
        let fake = try FakePanel()
        let at = Timestamp(nanoseconds: 1_234_567_891_234)
        #expect(Relay.sendTick(at: at, to: fake.ours) == .done(MemoryLayout<KernelInputEvent>.stride))
        let mark = KernelInputEvent(InputEvent(time: at, type: Evdev.EV_SYN, code: Evdev.SYN_DROPPED, value: 7))
        #expect(Relay.send([mark, KernelInputEvent(InputEvent(time: at, type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0))], to: fake.ours) != .wouldBlock)
        #expect(Relay.sendSwap(to: fake.ours) != .wouldBlock)
        let got = Self.relayed(fake.theirs)
        #expect(got.count == 3)
        guard got.count == 3 else { return }
        InputBatch.lending(kernel: got[2]) { batch in
            guard case .swap = Relay.kind(of: batch) else {
                Issue.record("not a swap")
                return
            }
        }
        InputBatch.lending(kernel: got[0]) { batch in
            guard case .tick(let t) = Relay.kind(of: batch) else {
                Issue.record("not a tick")
                return
            }
            #expect(t == at)
        }
        InputBatch.lending(kernel: got[1]) { batch in
            guard case .resync(let n) = Relay.kind(of: batch) else {
                Issue.record("not a resync")
                return
            }
            #expect(n == 7)
            Relay.state(of: batch) { #expect($0.resynced && $0.kernelEvents.count == 1) }
        }
    }
}
