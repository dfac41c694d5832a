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
final class InputThread: Sendable {
    private let epoll: Int32
    /// A socket pair the loop writes a byte to when the thread must look again without a read
    /// (`nudge`), and the end the thread's epoll watches.
    private let nudgeIn: Int32, nudgeOut: Int32
    private let panels = Mutex<[ThreadedPanel]>([])
    private let log: Logger

    private init(epoll: Int32, nudge: (Int32, Int32), log: Logger) {
        self.epoll = epoll
        (nudgeIn, nudgeOut) = nudge
        self.log = log
    }

    /// The thread looks at its panels again now (a relay the loop found full: its resync's try).
    func nudge() { Posix.sendByte(nudgeOut) }

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
        panels.withLock { $0.append(panel) }
        if let e = Posix.epollControl(epoll, .add, panel.panelFD, events: Posix.readable) {
            panels.withLock { $0.removeAll { $0 === panel } }
            return e
        }
        return nil
    }

    /// `panel` is read here no more, and writes nothing more (the loop lets it go).
    func remove(_ panel: ThreadedPanel) {
        panel.stop()
        _ = Posix.epollControl(epoll, .remove, panel.panelFD)
        panels.withLock { $0.removeAll { $0 === panel } }
    }

    /// The thread: each ready panel read, each filter frame due made, for the daemon's life.
    private func run() {
        let ready = EpollEvents()
        let buffer = EventReadBuffer(capacity: Relay.readCapacity)
        while true {
            let due = panels.withLock { list in list.lazy.compactMap { $0.nextTick }.min() }
            var timeout: Int32 = -1
            if let due { timeout = Int32(clamping: max(0, (due.nanoseconds - Posix.monotonicNanoseconds() + 999_999) / 1_000_000)) }
            let n: Int
            switch Posix.wait(epoll, into: ready, timeoutMs: timeout) {
            case .success(let count): n = count
            case .failure(let e):
                // Never seen (EINTR is retried): logged, and tried again a tenth of a second on.
                log.error("input thread: \(e)")
                Posix.sleep(untilMonotonic: Posix.monotonicNanoseconds() + 100_000_000)
                continue
            }
            for i in 0..<n {
                let fd = ready.fd(at: i)
                if fd == nudgeIn {
                    Posix.drainBytes(nudgeIn)
                    continue
                }
                guard let panel = panels.withLock({ list in list.first { $0.panelFD == fd } }) else { continue }
                if !panel.read(into: buffer) {
                    // The panel went (or the loop's end of its relay): its reads end here; the loop
                    // reads the relay's end and lets it go.
                    _ = Posix.epollControl(epoll, .remove, fd)
                    panels.withLock { $0.removeAll { $0 === panel } }
                }
            }
            if due != nil {
                let now = Timestamp(nanoseconds: Posix.monotonicNanoseconds())
                panels.withLock { list in for p in list { p.tick(before: now) } }
            }
        }
    }
}
