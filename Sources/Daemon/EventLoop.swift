import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// What the loop runs around its handlers (the daemon). Called on the owner handed to `run`
/// (a parameter: no reference count per call, as a stored closure cost on every wake-up).
protocol EventLoopOwner: AnyObject {
    /// After the handlers of each wake-up; how long the next wait may last (ms, -1 without
    /// end): 0 while work is left over from the turn (a client's requests past its turn's
    /// budget: the loop looks at its fds without sleeping, then runs this again), else until
    /// lines held for a client are due, if no input comes first.
    func afterTurn(_ state: inout FrameState) -> Int32
    /// Touch device `id`'s fd (registered with `addDevice`) is ready to read.
    func deviceReady(_ id: UInt32, fd: Int32, _ state: inout FrameState)
}

/// One thread, one epoll set. Handlers run when their fd is ready; the owner's `afterTurn` runs
/// once per wake-up (the server coalesces its writes there) and bounds the next wait. With
/// nothing ready and no bound it does not wake up at all (the timers are timerfds in the same
/// set). Held lines' release is the wait's timeout, not a timer: one moves with every write, and
/// a timerfd's re-arm is a system call a write.
///
/// The per-frame state (`FrameState`: the devices' table, the fan-out) is a local of `run`,
/// handed `inout` to each handler and to `afterTurn`: one owner, and accesses the compiler
/// checks when it builds, where a class's stored property is checked at run time on every
/// access.
final class EventLoop {
    typealias Handler = (_ events: UInt32, _ state: inout FrameState) -> Void

    private let epoll: Descriptor
    private var epfd: Int32 { epoll.raw }
    /// Indexed by fd (small integers): no hashing per ready fd.
    private var handlers: [Entry?] = []
    /// A handler in the table: in a struct, the closure is kept as it is called (in an optional
    /// of a function type it was kept reabstracted, and every call went through a thunk).
    private struct Entry {
        let handler: Handler
    }
    /// Per fd, the touch device read there (its id; 0: none). The owner reads it itself
    /// (`deviceReady`): no closure is called, and nothing retained and released, per frame.
    private var deviceIDs: [UInt32] = []
    private var running = false
    /// Wake-ups so far (for `stats` and the idle measurement).
    private(set) var wakeups = 0
    /// CLOCK_MONOTONIC (ns) of this turn, read when first asked after the wait returned (for
    /// lines no input frame led to: a deadline, a removed device). Not read on every wake-up:
    /// where the clock source has no vDSO path (HPET, as in the qemu guest) a clock read is a
    /// system call and an emulated device read.
    var turnStarted: Int64 {
        if turnClock == 0 { turnClock = monotonicNanoseconds() }
        return turnClock
    }
    private var turnClock: Int64 = 0

    /// `body` run with the turn's clock at `t` (a rehearsal's made-up times: `Rehearsal`), the
    /// turn's own put back after.
    func withTurnClock<R>(at t: Int64, _ body: () -> R) -> R {
        let kept = turnClock
        turnClock = t
        defer { turnClock = kept }
        return body()
    }
    /// `turnStarted` if something read it this turn, without reading the clock.
    var turnClockIfRead: Int64? { turnClock == 0 ? nil : turnClock }

    /// A system call of the loop's that failed (epoll, timerfd, signalfd).
    typealias Failure = SystemCallError

    init() throws(Failure) {
        epoll = try Posix.epollCreate().get()
    }


    /// Watches `fd`; `handler` runs when it is ready, with the frame state.
    func add(_ fd: Int32, events: UInt32 = Posix.readable, _ handler: @escaping Handler) throws(Failure) {
        if let e = Posix.epollControl(epfd, .add, fd, events: events) { throw e }
        setHandler(handler, for: fd)
    }

    /// Watches `fd` for a handler that does not touch the frame state.
    func add(_ fd: Int32, events: UInt32 = Posix.readable, _ handler: @escaping (_ events: UInt32) -> Void) throws(Failure) {
        try add(fd, events: events) { (events: UInt32, _: inout FrameState) in handler(events) }
    }

    /// Watches touch device `id`'s `fd`: when it is ready the owner's `deviceReady` runs.
    func addDevice(_ fd: Int32, id: UInt32) throws(Failure) {
        precondition(id != 0, "device ids start at 1")
        if let e = Posix.epollControl(epfd, .add, fd, events: Posix.readable) { throw e }
        setDevice(id, for: fd)
    }

    /// As `setHandler`: the table changed as a local, swapped out.
    private func setDevice(_ id: UInt32, for fd: Int32) {
        var table: [UInt32] = []
        swap(&table, &deviceIDs)
        if table.count <= Int(fd) { table += [UInt32](repeating: 0, count: Int(fd) + 1 - table.count) }
        table[Int(fd)] = id
        swap(&table, &deviceIDs)
    }

    /// Changes the table as a local, swapped out: no access to `handlers` spans a call that could
    /// reach it (growing the array, or releasing a handler, whose captures may go with it). So
    /// the compiler can prove every access to it free of conflicts and check none at run time:
    /// the loop reads it on every wake-up.
    private func setHandler(_ handler: Handler?, for fd: Int32) {
        var table: [Entry?] = []
        swap(&table, &handlers)
        if table.count <= Int(fd) { table += [Entry?](repeating: nil, count: Int(fd) + 1 - table.count) }
        var old = handler.map(Entry.init)
        swap(&old, &table[Int(fd)])
        swap(&table, &handlers)
    }

    /// Changes the events watched on `fd`; the error when epoll refuses.
    func modify(_ fd: Int32, events: UInt32) -> Failure? {
        Posix.epollControl(epfd, .modify, fd, events: events)
    }

    /// Stops watching `fd` (the caller closes it, which would drop it from the set anyway: a
    /// failure here is harmless and only reported).
    func remove(_ fd: Int32) -> Failure? {
        if Int(fd) < handlers.count { setHandler(nil, for: fd) }
        if Int(fd) < deviceIDs.count { setDevice(0, for: fd) }
        return Posix.epollControl(epfd, .remove, fd)
    }

    func stop() { running = false }

    /// Runs until `stop()`. Never inlined: the instruction counts (scripts/count-daemon, the
    /// guest's E2E COUNT) count from this function's entry.
    @inline(never)
    func run<Owner: EventLoopOwner>(_ owner: Owner, _ state: inout FrameState) {
        running = true
        let ready = EpollEvents()
        var timeout: Int32 = -1
        while running {
            guard case .success(let n) = Posix.wait(epfd, into: ready, timeoutMs: timeout) else { return }
            wakeups += 1
            turnClock = 0
            for i in 0..<Int(n) {
                let fd = ready.fd(at: i)
                // A handler may have removed this fd earlier in the same turn. Taken out of the
                // tables before it runs: no access to them spans a handler.
                let device = Int(fd) < deviceIDs.count ? deviceIDs[Int(fd)] : 0
                if device != 0 {
                    owner.deviceReady(device, fd: fd, &state)
                    continue
                }
                let entry = Int(fd) < handlers.count ? handlers[Int(fd)] : nil
                entry?.handler(ready.events(at: i), &state)
            }
            timeout = owner.afterTurn(&state)
        }
    }
}

/// A timerfd armed at absolute CLOCK_MONOTONIC times.
final class DeadlineTimer {
    private let timer: Descriptor
    var fd: Int32 { timer.raw }
    private(set) var armedAt: Int64 = 0

    init() throws(EventLoop.Failure) {
        timer = try Posix.timerCreate().get()
    }

    /// Arms at `ns` (monotonic), or disarms with nil. Re-arming at the same time is free. A
    /// failure (the caller logs it) leaves the timer as it was.
    func arm(at ns: Int64?) -> EventLoop.Failure? {
        let target = ns.map { max($0, 1) } ?? 0
        guard target != armedAt else { return nil }
        if let e = Posix.armTimer(fd, atMonotonic: target) { return e }
        armedAt = target
        return nil
    }

    /// Acknowledges an expiry (the fd is readable). The read's result is not needed: it only
    /// empties the expiry count, and EAGAIN (a spurious wake-up) leaves nothing to empty.
    func acknowledge() {
        _ = Posix.drainTimer(fd)
        armedAt = 0
    }
}

func monotonicNanoseconds() -> Int64 { Posix.monotonicNanoseconds() }

/// Sleeps until `ns` (CLOCK_MONOTONIC), at once if it has passed; false if the call failed. The
/// daemon's signals come through a signalfd (blocked), so nothing interrupts it but the time.
func sleepUntil(monotonic ns: Int64) -> Bool { Posix.sleep(untilMonotonic: ns) }
