import Logging
import SystemCalls
import Testing
import TouchFrames
import TestSupport
import TouchInput

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The input thread's two ways of waiting (`InputThread`): blocked in its one panel's read while
/// nothing is due, in epoll_wait otherwise; and what ends a blocking read (`wake`, `ReadWake`).
/// The panels are socket pairs: their descriptors block and unblock as a panel's do.
@Suite struct InputThreadWakeTests {
    typealias T = InputThreadTests

    static func blocks(_ fd: Int32) -> Bool { fcntl(fd, F_GETFL) & O_NONBLOCK == 0 }

    /// A panel on the real thread, its first frame read and relayed: the thread is then idle.
    static func added(_ input: InputThread, _ rig: borrowing RouteRig, _ fake: borrowing T.FakePanel, _ sink: T.KeptSink) throws -> ThreadedPanel {
        let panel = try T.panel(rig, fd: fake.theirs, sink: sink)
        #expect(input.add(panel) == nil)
        let first = try #require(T.frames(rig.events).first)
        T.send(first, to: fake.ours)
        #expect(T.eventually { !T.relayed(panel.loopEnd).isEmpty })
        return panel
    }

    /// One panel and nothing due: the thread blocks in its read (the descriptor is blocking),
    /// and reads every frame so. A second panel added ends that read: both are read, the first
    /// non-blocking again; removed again, the thread blocks in the first's read once more.
    @Test func onePanel_isReadInABlockingRead_andASecondEndsIt() throws {
        let input = try #require(InputThread.start(log: Logger(label: "test")))
        let rig = try RouteRig("pinch-out-and-turn", config: MirrorAheadTests.passThrough, mirrored: true)
        let a = try T.FakePanel()
        let b = try T.FakePanel()
        let first = try Self.added(input, rig, a, T.KeptSink())
        #expect(T.eventually { Self.blocks(first.panelFD) }, "blocked in the one panel's read")
        let frames = T.frames(rig.events)
        for frame in frames.prefix(5) {
            T.send(frame, to: a.ours)
            #expect(T.eventually { T.relayed(first.loopEnd).count == 1 })
        }
        let second = try Self.added(input, rig, b, T.KeptSink())
        #expect(!Self.blocks(first.panelFD) && !Self.blocks(second.panelFD), "both in epoll_wait, non-blocking")
        T.send(frames[5], to: a.ours)
        #expect(T.eventually { T.relayed(first.loopEnd).count == 1 }, "the first still read")
        input.remove(second)
        #expect(T.eventually { Self.blocks(first.panelFD) }, "blocked in the first's read again")
        T.send(frames[6], to: a.ours)
        #expect(T.eventually { T.relayed(first.loopEnd).count == 1 })
    }

    /// The one panel removed while the thread blocks in its read: the thread reads it no more,
    /// leaves its descriptor non-blocking, and reads a panel added after.
    @Test func thePanelRemoved_endsTheRead_andItIsReadNoMore() throws {
        let input = try #require(InputThread.start(log: Logger(label: "test")))
        let rig = try RouteRig("pinch-out-and-turn", config: MirrorAheadTests.passThrough, mirrored: true)
        let a = try T.FakePanel()
        let b = try T.FakePanel()
        let first = try Self.added(input, rig, a, T.KeptSink())
        #expect(T.eventually { Self.blocks(first.panelFD) })
        input.remove(first)
        #expect(T.eventually { !Self.blocks(first.panelFD) }, "non-blocking again")
        let second = try Self.added(input, rig, b, T.KeptSink())
        #expect(T.eventually { Self.blocks(second.panelFD) }, "blocked in the new panel's read")
        // The thread blocks in the second's read: the first's frame stays unread.
        T.send(T.frames(rig.events)[1], to: a.ours)
        Posix.sleep(untilMonotonic: Posix.monotonicNanoseconds() + 200_000_000)
        var byte: UInt8 = 0
        #expect(recv(first.panelFD, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0, "the removed panel's frame is still unread")
    }

    /// A panel epoll refuses (here a regular file, which epoll cannot watch): `add` says why and
    /// the panel is never listed, alone or beside another, so the thread never reads it (listed,
    /// a panel's descriptor is made blocking for the thread's read, and the loop's reads of the
    /// same open file would stall). Read, the file would end at once: its relay to the loop would
    /// close. A panel added after is the one the thread blocks in.
    @Test func aPanelEpollRefuses_isNeverListed_andNeverRead() throws {
        let input = try #require(InputThread.start(log: Logger(label: "test")))
        let rig = try RouteRig("pinch-out-and-turn", config: MirrorAheadTests.passThrough, mirrored: true)
        let path = "/tmp/touchgestured-refused-\(getpid())"
        let file = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600)
        try #require(file >= 0)
        defer {
            close(file)
            unlink(path)
        }
        let refused = try T.panel(rig, fd: file, sink: T.KeptSink())
        // Its relay's loop end: nothing sent, not closed (a read of it, or its end, would show).
        func unread() -> Bool {
            var byte: UInt8 = 0
            return recv(refused.loopEnd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) < 0 && errno == EAGAIN
        }
        #expect(input.add(refused) != nil, "epoll_ctl refuses a regular file")
        input.nudge()  // (the thread looks at its list again, as after any add or remove)
        Posix.sleep(untilMonotonic: Posix.monotonicNanoseconds() + 300_000_000)
        #expect(unread(), "never the thread's panel, alone")
        let a = try T.FakePanel()
        let first = try Self.added(input, rig, a, T.KeptSink())
        #expect(input.add(refused) != nil, "refused again")
        input.nudge()
        Posix.sleep(untilMonotonic: Posix.monotonicNanoseconds() + 300_000_000)
        #expect(unread(), "nor beside another")
        #expect(T.eventually { Self.blocks(first.panelFD) }, "one panel listed: the thread blocks in its read")
        for frame in T.frames(rig.events).dropFirst().prefix(3) {
            T.send(frame, to: a.ours)
            #expect(T.eventually { T.relayed(first.loopEnd).count == 1 }, "and the panel is read")
        }
    }

    /// Wake signals sent to the thread with no wake behind them (another process's, or a burst
    /// of them) end its read early, and nothing more: every frame is read once, in order.
    @Test func strayWakeSignals_loseNoFrame() throws {
        let input = try #require(InputThread.start(log: Logger(label: "test")))
        let rig = try RouteRig("pinch-out-and-turn", config: MirrorAheadTests.passThrough, mirrored: true)
        let fake = try T.FakePanel()
        let panel = try Self.added(input, rig, fake, T.KeptSink())
        #expect(T.eventually { Self.blocks(panel.panelFD) })
        let thread = input.thread.load(ordering: .relaxed)
        let frames = T.frames(rig.events).dropFirst()
        var relayed: [[KernelInputEvent]] = []
        for (i, frame) in frames.enumerated() {
            for _ in 0..<(i % 3) { #expect(ReadWake.send(to: thread) == nil) }
            T.send(frame, to: fake.ours)
            let before = relayed.count
            #expect(T.eventually {
                relayed += T.relayed(panel.loopEnd)
                return relayed.count > before
            })
        }
        #expect(relayed.map { $0.map(\.event) } == frames.map { $0.map(\.event) })
        #expect(T.eventually { Self.blocks(panel.panelFD) }, "and it blocks in the read again")
    }

    /// A filtered panel: a landing makes a frame of the filters' own due (the young contact at
    /// its age, the stuck rule's steps), so the thread leaves the read for epoll_wait and makes
    /// that frame on time with no read after the landing; wake signals sent every 2 ms meanwhile
    /// (faster than the frame's 40 ms) do not put it off.
    @Test(arguments: [false, true])
    func aLandingOnAFilteredPanel_hasItsOwnFramesMadeOnTime(underSignals: Bool) throws {
        let noisy = try String(contentsOfFile: Repository.root + "/examples/noisy-panel.toml", encoding: .utf8)
        let input = try #require(InputThread.start(log: Logger(label: "test")))
        let rig = try RouteRig("double-tap", config: noisy, mirrored: true)
        let fake = try T.FakePanel()
        let panel = try T.panel(rig, fd: fake.theirs, sink: T.KeptSink())
        #expect(input.add(panel) == nil)
        #expect(T.eventually { Self.blocks(panel.panelFD) }, "nothing due before a touch")
        // The recording's landing, stamped now.
        let now = Posix.monotonicNanoseconds()
        let landing = try #require(T.frames(rig.events).first).map {
            KernelInputEvent(seconds: Int(now / 1_000_000_000), microseconds: Int(now % 1_000_000_000 / 1000), type: $0.type, code: $0.code, value: $0.value)
        }
        T.send(landing, to: fake.ours)
        var ticks = 0
        let thread = input.thread.load(ordering: .relaxed)
        let end = Posix.monotonicNanoseconds() + 3_000_000_000
        while ticks == 0 && Posix.monotonicNanoseconds() < end {
            if underSignals { _ = ReadWake.send(to: thread) }
            Posix.sleep(untilMonotonic: Posix.monotonicNanoseconds() + 2_000_000)
            for m in T.relayed(panel.loopEnd) {
                InputBatch.lending(kernel: m) { if case .tick = Relay.kind(of: $0) { ticks += 1 } }
            }
        }
        #expect(ticks > 0, "a frame of the filters' own, with no read after the landing")
        #expect(!Self.blocks(panel.panelFD), "in epoll_wait while the contact is down")
    }
}
