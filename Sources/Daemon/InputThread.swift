import GestureEngine
import Logging
import Synchronization
import SystemCalls
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's second thread: it reads every pass-through panel (`ThreadedPanel`), shows each
/// frame on the panel's mirror at once while the engine decides nothing of it, and relays each
/// read to the loop, which runs the engine and everything else on it. So the app's touch waits
/// neither for the engine's work on the frame before nor for anything else the loop does.
///
/// One thread for all panels, made at start in pass-through mode (`Daemon.init`; in the other
/// modes it would only slow the loop's system calls): touchgestured.service makes every thread of the
/// daemon SCHED_FIFO once it is ready (`chrt --all-tasks`), and a thread made later would not be
/// (the policy resets on fork, for the daemon's children). Its work is bounded: a read, its
/// decode, one write to the mirror and one message to the loop a wake-up; the filters' own frames
/// on their deadlines (epoll_wait's timeout, to the millisecond; the loop takes them from the
/// relay, in the thread's order); after lost events at most 64 reads drained and one state sent.
///
/// It waits in one of two ways. With one panel and nothing due (no filters' frame, no resync
/// owed: a kiosk's one panel between touches, and through every touch without the timed
/// filters), it blocks in the panel's `read` (`readBlocking`): one system call a frame where
/// epoll_wait and then read are two, each dear in a guest (docs/BENCHMARKS.md, "Where the
/// daemon's hop stands above the floor"). Otherwise it waits in `epoll_wait` over every panel and
/// the nudge, with the next deadline as its timeout. Whatever may end a blocking read (a panel
/// added or removed, a reload's decoder, the loop's nudge) changes the state first, then calls
/// `nudge`: a byte for epoll_wait, a count the thread looks at before each read, and the wake
/// signal when it is in one (`ReadWake`).
final class InputThread: Sendable {
    private let epoll: Int32
    /// A socket pair the loop writes a byte to when the thread must look again without a read
    /// (`nudge`), and the end the thread's epoll watches.
    private let nudgeIn: Int32, nudgeOut: Int32
    private let panels = Mutex<[ThreadedPanel]>([])
    private let log: Logger
    /// Wakes so far (`wake`): a blocking read goes on only while this is what it was when the
    /// thread last looked at its panels.
    private let wakes = Atomic<Int>(0)
    /// The thread is in (or about to enter) a blocking read: a wake then sends the signal.
    private let inRead = Atomic<Bool>(false)
    /// The thread's id (0 until it runs), for the signal.
    let thread = Atomic<UInt>(0)
    /// The signal could not be sent (logged): the thread waits in epoll_wait from its next turn.
    private let signalFailed = Atomic<Bool>(false)

    private init(epoll: Int32, nudge: (Int32, Int32), log: Logger) {
        self.epoll = epoll
        (nudgeIn, nudgeOut) = nudge
        self.log = log
    }

    /// The thread looks at its panels again now (a relay the loop found full: its resync's try;
    /// a reload's decoder, whose filters may have a frame due).
    func nudge() {
        Posix.sendByte(nudgeOut)
        wake()
    }

    /// A blocking read ends (the state it was entered on changed: the caller changed it first).
    /// Sequentially consistent: either the thread, about to read, sees the count move, or this
    /// sees it in the read and signals it.
    private func wake() {
        wakes.add(1, ordering: .sequentiallyConsistent)
        guard inRead.load(ordering: .sequentiallyConsistent) else { return }
        let id = thread.load(ordering: .sequentiallyConsistent)
        guard id != 0, let e = ReadWake.send(to: id) else { return }
        // (A seccomp filter that denies it: the read ends with the panel's next frame.)
        if !signalFailed.exchange(true, ordering: .relaxed) {
            log.error("input thread: \(e): it waits in epoll_wait for every frame from its next one")
        }
    }

    /// The thread, running; nil when it could not be made (logged: the loop then reads every
    /// panel and writes every mirror itself).
    static func start(log: Logger) -> InputThread? {
        let epoll: Int32
        switch Posix.epollCreate() {
        case .success(let d): epoll = d.release()
        case .failure(let e):
            log.warning("no input thread (\(e)): the loop writes the virtual touchscreens itself")
            return nil
        }
        guard case .success(let pair) = Posix.sequentialPacketPair(), case let (a, b) = pair.release(),
            Posix.epollControl(epoll, .add, a, events: Posix.readable) == nil
        else {
            log.warning("no input thread (its nudge could not be made): the loop writes the virtual touchscreens itself")
            Posix.close(epoll)
            return nil
        }
        let thread = InputThread(epoll: epoll, nudge: (a, b), log: log)
        if let e = Threads.start(named: "tg-input", { thread.run() }) {
            log.warning("no input thread (\(e)): the loop writes the virtual touchscreens itself")
            return nil
        }
        return thread
    }

    /// `panel` is read here from now on.
    func add(_ panel: ThreadedPanel) -> SystemCallError? {
        // Listed only once epoll has it, in one hold of the lock: a panel the thread never saw
        // listed is never made blocking (a refused one goes back to the loop, which reads the
        // same open file), and a thread woken for it finds it listed.
        let refused = panels.withLock { list -> SystemCallError? in
            if let e = Posix.epollControl(epoll, .add, panel.panelFD, events: Posix.readable) { return e }
            list.append(panel)
            return nil
        }
        if let refused { return refused }
        // Two panels now, or the first: the thread waits in epoll_wait, or blocks in its read.
        nudge()
        return nil
    }

    /// `panel` is read here no more, and writes nothing more (the loop lets it go).
    func remove(_ panel: ThreadedPanel) {
        panel.stop()
        _ = Posix.epollControl(epoll, .remove, panel.panelFD)
        panels.withLock { $0.removeAll { $0 === panel } }
        // One panel left, maybe: the thread looks again, from epoll_wait too.
        nudge()
    }

    /// The thread, for the daemon's life: each turn blocks in the one panel's read, or waits
    /// in epoll_wait (each ready panel read, each filter frame due made).
    private func run() {
        let ready = EpollEvents()
        let buffer = EventReadBuffer(capacity: Relay.readCapacity)
        var blocks = true
        if let e = ReadWake.install() {
            log.warning("input thread: \(e): it waits in epoll_wait for every frame")
            blocks = false
        }
        thread.store(ReadWake.currentThread, ordering: .sequentiallyConsistent)
        while true {
            // Read before the panels are looked at: a wake after this ends the read below.
            let seen = wakes.load(ordering: .sequentiallyConsistent)
            if blocks && !signalFailed.load(ordering: .relaxed), let panel = soleIdlePanel() {
                blocks = readBlocking(panel, buffer, seen: seen)
            } else {
                waitAndRead(ready, buffer)
            }
        }
    }

    /// The one panel, when there is one and nothing is due for it.
    private func soleIdlePanel() -> ThreadedPanel? {
        guard let panel = panels.withLock({ $0.count == 1 ? $0[0] : nil }), panel.nextTick == nil else { return nil }
        return panel
    }

    /// Reads `panel` in blocking reads while no wake came since `seen` and nothing is due; its
    /// descriptor non-blocking again after. False when it could not be made blocking (logged:
    /// the thread waits in epoll_wait from then on).
    private func readBlocking(_ panel: ThreadedPanel, _ buffer: EventReadBuffer, seen: Int) -> Bool {
        let fd = panel.panelFD
        // Named first: a signal from here on makes it non-blocking.
        ReadWake.watch(fd)
        inRead.store(true, ordering: .sequentiallyConsistent)
        defer {
            inRead.store(false, ordering: .sequentiallyConsistent)
            _ = ReadWake.setBlocking(fd, false)
            ReadWake.watch(-1)
        }
        if let e = ReadWake.setBlocking(fd, true) {
            log.warning("input thread: \(panel.node): \(e): it waits in epoll_wait for every frame")
            return false
        }
        while wakes.load(ordering: .sequentiallyConsistent) == seen {
            switch panel.read(into: buffer) {
            case .read:
                // A landing on a filtered panel: a frame of the filters' own is due.
                if panel.nextTick != nil { return true }
            case .empty:
                // The signal ended it (a wake, or one sent from outside): look again.
                return true
            case .ended:
                drop(panel)
                return true
            }
        }
        return true
    }

    /// A panel whose reads ended: epoll watches it no more, and it leaves the list.
    private func drop(_ panel: ThreadedPanel) {
        _ = Posix.epollControl(epoll, .remove, panel.panelFD)
        panels.withLock { $0.removeAll { $0 === panel } }
    }

    /// One wait in epoll_wait (until a panel is ready, the nudge, or the next deadline), then each
    /// ready panel read and each filter frame due made.
    private func waitAndRead(_ ready: EpollEvents, _ buffer: EventReadBuffer) {
        let due = panels.withLock { list in list.lazy.compactMap { $0.nextTick }.min() }
        var timeout: Int32 = -1
        if let due { timeout = Int32(clamping: max(0, (due.nanoseconds - Posix.monotonicNanoseconds() + 999_999) / 1_000_000)) }
        let n: Int
        // A signal ends the wait (nothing ready), and the timeout is worked out again.
        switch Posix.waitOnce(epoll, into: ready, timeoutMs: timeout) {
        case .success(let count): n = count
        case .failure(let e):
            // Never seen: logged, and tried again a tenth of a second on.
            log.error("input thread: \(e)")
            Posix.sleep(untilMonotonic: Posix.monotonicNanoseconds() + 100_000_000)
            return
        }
        for i in 0..<n {
            let fd = ready.fd(at: i)
            if fd == nudgeIn {
                Posix.drainBytes(nudgeIn)
                continue
            }
            guard let panel = panels.withLock({ list in list.first { $0.panelFD == fd } }) else { continue }
            // The panel went (or the loop's end of its relay): its reads end here; the loop reads
            // the relay's end and lets it go.
            if panel.read(into: buffer) == .ended { drop(panel) }
        }
        if due != nil {
            let now = Timestamp(nanoseconds: Posix.monotonicNanoseconds())
            panels.withLock { list in for p in list { p.tick(before: now) } }
        }
    }
}
