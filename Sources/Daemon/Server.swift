import SystemCalls
import GestureEngine
import GestureProtocol
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The Unix socket: accepts clients, splits their requests into lines (ServerReading.swift), and
/// queues output per client with a bound in the fan-out (Fanout.swift, FanoutWrites.swift).
/// Writes are coalesced: `Fanout.enqueue` only appends; `endTurn` (once per loop turn) writes each
/// client's queue with one `write`.
///
/// Fairness and memory, whatever a client does:
/// - A client's requests are served at most `requestsPerTurn` lines and `bytesPerTurn` bytes a
///   loop turn; what is left waits in the backlog for the next turn, after the input devices and
///   the other clients have had theirs.
/// - Stream lines (gestures, touches, devices) may queue up to `outputBufferBytes` beyond the
///   kernel's socket buffer; a client past that has not read for seconds and is disconnected.
///   Replies are queued whole, but a client whose queue is past the bound gets no further
///   request served until it reads: one that pipelines requests without reading is slowed down,
///   not dropped, and cannot grow its queue without bound.
final class Server {
    let loop: EventLoop
    /// The stream socket, and the request socket when there is one.
    let listeners: [Listener]
    let log: Logger
    /// The limits; `apply` changes them (and the fan-out's with them).
    private(set) var settings: Limits
    private(set) var clients: [Int32: Client] = [:]
    /// The clients in connection order.
    private(set) var allClients: [Client] = []
    /// The clients by their subscriber's slot.
    private var bySlot: [Client?] = []
    /// Clients with request lines left over from an earlier turn (`toBacklog`).
    private var backlog: [Client] = []
    /// Some client has requests left from an earlier turn: the loop must not sleep. A plain
    /// flag beside the array, asked on every wake-up (a value only ever loaded and stored needs
    /// no runtime exclusivity check; the array does).
    private(set) var hasBacklog = false
    var nextNumber = 1
    var chunk = [UInt8](repeating: 0, count: 65_536)
    /// An fd held in reserve: when accept fails for want of fds (EMFILE), it is closed so that
    /// the waiting connection can be accepted and turned away, instead of the listening socket
    /// staying readable and the loop spinning.
    var reserve: Descriptor?
    var refusals = RepeatedWarning()
    /// Clients that spent their request budget, and the timer that brings them back.
    private var throttled: [Client] = []
    /// Each user's share of the daemon's time for its requests.
    var timeShare: UserTimeShare
    /// Connections paused for their user's time, once a pause (`stats`: `time_share_pauses`).
    private(set) var timeSharePauses = 0
    private let throttleTimer: DeadlineTimer
    /// Closes connections that take no lines and send nothing (ServerAdmission.swift).
    let idleTimer: DeadlineTimer

    /// What the server tells its owner. `onDisconnect` is called only between handlers (from
    /// `settle`), never while the fan-out is queueing lines.
    var onConnect: ((Client, inout FrameState) -> Void)?
    var onRequest: ((Client, ArraySlice<UInt8>, inout FrameState) -> Void)?
    var onDisconnect: ((Client, inout FrameState) -> Void)?

    /// When the loop must wake for held lines if no input came to write them (a finger resting
    /// still sends no frames): the earliest due time plus `releaseSlack` (monotonic ns), and the
    /// time they were held against, from which the loop's wait counts (`releaseWait`); nil:
    /// nothing is held.
    private(set) var releaseAt: Int64?
    private var heldAt: Int64 = 0
    /// While frames keep coming, the frame at the due time writes the held lines; the wait's
    /// end, later by this, does not come beside it.
    static let releaseSlack: Int64 = 2_000_000
    var refused = 0
    /// Connections closed for a request line over `max_line_bytes`.
    var tooLongLines = 0
    /// Connections closed by `[daemon] idle_timeout_ms`.
    var closedIdle = 0
    private(set) var accepted = 0

    init(loop: EventLoop, listeners: [Listener], limits: Limits, log: Logger) throws(EventLoop.Failure) {
        self.loop = loop
        self.listeners = listeners
        settings = limits
        timeShare = UserTimeShare(nsPerSecond: limits.requestNsPerUser)
        self.log = log
        for l in listeners {
            if let e = Posix.setNonBlocking(l.fd) { throw e }
        }
        reserve = Self.openReserve()
        throttleTimer = try DeadlineTimer()
        idleTimer = try DeadlineTimer()
        for l in listeners { try loop.add(l.fd) { [unowned self] _, state in self.acceptAll(l, &state) } }
        try loop.add(throttleTimer.fd) { [unowned self] _ in self.unthrottle() }
        try loop.add(idleTimer.fd) { [unowned self] _, state in self.closeIdle(&state) }
    }

    /// The fan-out for `limits` (the frame state's, made once by the daemon).
    static func fanout(_ limits: Limits) -> Fanout {
        var f = Fanout(coalesceNs: limits.coalesceNs, outputBufferBytes: limits.outputBufferBytes)
        configure(&f, limits)
        return f
    }

    /// New limits (a reload), and the fan-out's with them.
    func apply(_ limits: Limits, to state: inout FrameState) {
        settings = limits
        timeShare.nsPerSecond = limits.requestNsPerUser
        Self.configure(&state.fanout, limits)
    }

    /// What of `limits` the fan-out keeps: its coalescing, its bound, the input pacing.
    private static func configure(_ fanout: inout Fanout, _ limits: Limits) {
        fanout.configure(coalesceNs: limits.coalesceNs, outputBufferBytes: limits.outputBufferBytes)
        fanout.paceInput = limits.paceInput
    }

    var clientCount: Int { clients.count }
    /// Connections on the stream socket: `stats`' and the metrics' `clients` (a scrape's own
    /// connection, on the request socket, is none of them).
    var streamClientCount: Int { allClients.reduce(0) { $0 + ($1.oneShot ? 0 : 1) } }

    private func armThrottle(at ns: Int64?) {
        if let e = throttleTimer.arm(at: ns) { log.error("throttle timer: \(e); throttled clients wait for their next input") }
    }

    /// Leaves a client's requests for the next turn.
    func toBacklog(_ client: Client) {
        client.readSide = .backlogged
        backlog.append(client)
        hasBacklog = true
    }

    /// When a one-shot client's connection was last logged at info level.
    private var lastOneShotLogged = Int64.min / 2

    /// Takes a connected socket as a client (the accept path, and tests with a socketpair);
    /// nil when the loop cannot watch it (then it is closed).
    /// A `quiet` connection (the request socket's) starts subscribed to nothing.
    @discardableResult
    func admit(_ fd: Int32, pid: Int32, uid: UInt32, gid: UInt32, quiet: Bool = false, _ state: inout FrameState) -> Client? {
        let slot = state.fanout.open(.socket(fd: fd))
        if quiet { state.fanout.subscribers[slot].subscription = .nothing }
        let client = Client(fd: fd, number: nextNumber, slot: slot, peer: (pid, uid, gid))
        nextNumber += 1
        accepted += 1
        do {
            // Unowned: the server outlives its clients' handlers (each is removed at disconnect).
            try loop.add(fd, events: client.interest) { [unowned self] events, state in self.ready(client, events, &state) }
        } catch {
            log.warning("cannot watch a new client: \(error)")
            state.fanout.release(slot)
            Posix.close(fd)
            return nil
        }
        clients[fd] = client
        allClients.append(client)
        if bySlot.count <= slot { bySlot += [Client?](repeating: nil, count: slot + 1 - bySlot.count) }
        bySlot[slot] = client
        client.oneShot = quiet
        // A one-shot client (a metrics scrape every 15 s) is logged once every 10 minutes at
        // most at info level; the rest, and their going, at debug.
        let now = monotonicNanoseconds()
        let says = !quiet || now - lastOneShotLogged >= 600_000_000_000
        if quiet && says { lastOneShotLogged = now }
        log.log(level: says ? .info : .debug, "\(client.label) connected\(quiet ? " to the request socket" : "")")
        onConnect?(client, &state)
        watchIdle(client, in: state)
        return client
    }

    private func ready(_ client: Client, _ events: UInt32, _ state: inout FrameState) {
        let hungUp = events & (Posix.hungUp | Posix.failed) != 0
        if events & Posix.writable != 0 || (hungUp && queued(client, in: state) > 0) { write(client, &state) }
        if client.closed { return }
        if hungUp && (client.peerClosed || client.throttled) {
            // Both directions are gone (always reported, whatever the interest): nothing more
            // can come or go, and the answers to what is still unread could not be delivered.
            disconnect(client, reason: "hung up", &state)
            return
        }
        if events & (Posix.readable | Posix.peerHungUp) != 0 || hungUp { serve(client, &state) }
        settle(&state)
    }

    /// Bytes queued for `client`.
    func queued(_ client: Client, in state: borrowing FrameState) -> Int { state.fanout.subscribers[client.slot].queued }

    /// Writes what is queued for `client` now, and settles what came of it.
    func write(_ client: Client, _ state: inout FrameState) {
        state.fanout.write(client.slot)
        settle(&state)
    }

    /// The end of a loop turn: the backlog served, every queue written, what came of it settled;
    /// the engines' next deadline and when to read the panels next (the input pacing; nil for at
    /// once).
    func endTurn(_ state: inout FrameState) -> FrameState.TurnEnd {
        if hasBacklog { serveBacklog(&state) }
        // The turn's clock as a value, not a closure over `self` (retained and released each turn).
        var turn = state.endTurn(turnClock: loop.turnClockIfRead)
        releaseAt = turn.holdingDue.map { $0 + Server.releaseSlack }
        heldAt = state.fanout.heldAt
        if turn.notices {
            settle(&state)
            // A client gone with regions recompiled them: the deadline is read again.
            turn.deadline = state.devices.earliestDeadline
        }
        return turn
    }

    /// How long the loop may wait after this turn (ms; -1 without end): 0 with a backlog, else
    /// until `releaseAt`, counted from a time known to have passed without reading the clock
    /// (the hold's, or `since`, the end of the input pacing's pause if later): the wait may end
    /// that much late, never early. A turn with nothing ready then writes the lines (its flush
    /// reads the clock).
    func releaseWait(since: Int64? = nil) -> Int32 {
        if hasBacklog { return 0 }
        guard let releaseAt else { return -1 }
        let left = releaseAt - max(heldAt, since ?? heldAt)
        guard left > 0 else { return 0 }
        return Int32(min((left + 999_999) / 1_000_000, Int64(Int32.max)))
    }

    /// Handles what the fan-out reported since the last time (a client dropped, a write side
    /// blocked or unblocked), outside any fan-out: this is where a client goes.
    func settle(_ state: inout FrameState) {
        guard !state.fanout.notices.isEmpty else { return }
        let notices = state.fanout.notices
        state.fanout.notices.removeAll(keepingCapacity: true)
        for n in notices {
            switch n {
            case .gone(let slot, let reason, let level):
                if let c = bySlot[slot] { disconnect(c, reason: reason, level: level, &state) }
            case .interest(let slot):
                if let c = bySlot[slot], !c.closed { refreshInterest(c, &state) }
            case .resumed(let slot):
                if let c = bySlot[slot], !c.closed { resume(c) }
            }
        }
    }

    /// A client spent its budget, or its user its time share (charged up to `now`): it is not
    /// read until both have refilled.
    func throttle(_ client: Client, now: Int64) {
        let lines = client.budget.wait(linesPerSecond: settings.requestsPerSecond, bytesPerSecond: settings.bytesPerSecond)
        let time = timeShare.wait(client.uid, now: now)
        if time > 0 && !client.pausedForTime {
            client.pausedForTime = true
            timeSharePauses += 1
        }
        let until = now + max(lines, time)
        client.readSide = .throttled(until: until)
        throttled.append(client)
        if throttleTimer.armedAt == 0 || until < throttleTimer.armedAt { armThrottle(at: until) }
    }

    /// The throttle timer fired: clients whose budget has refilled are served again, and with
    /// them every connection of a user that has time again, the one served longest ago first:
    /// a user's connections take turns (else the one whose wait ends first would take the
    /// user's time each time, and its others would wait behind its flood for good).
    func unthrottle() {
        throttleTimer.acknowledge()
        let now = monotonicNanoseconds()
        var next: Int64?
        var woken: [Client] = []
        throttled.removeAll { c in
            guard !c.closed, case .throttled(let until) = c.readSide else { return true }
            let userHasTime = timeShare.left(c.uid, now: now) > 0
            if userHasTime && (until <= now || (c.budget.lines >= 1 && c.budget.bytes > 0)) {
                woken.append(c)
                return true
            }
            // Its user still owes what was charged after its wait was set (the pause itself,
            // the user's other connections): it waits that out, not woken for nothing.
            let again = userHasTime ? until : max(until, now + timeShare.wait(c.uid, now: now))
            c.readSide = .throttled(until: again)
            next = min(next ?? again, again)
            return false
        }
        for c in woken.sorted(by: { $0.servedAt < $1.servedAt }) { toBacklog(c) }
        armThrottle(at: next)
    }

    /// Serves what is left of the clients' requests from earlier turns (once per turn).
    func serveBacklog(_ state: inout FrameState) {
        guard hasBacklog else { return }
        let waiting = backlog
        backlog.removeAll(keepingCapacity: true)
        hasBacklog = false
        for c in waiting where !c.closed {
            c.readSide = .ready
            serve(c, &state)
        }
        settle(&state)
    }

    /// The epoll events a client needs now: reads only while its requests are being served
    /// (not while backlogged, throttled, paused or half-closed), writes while output waits on
    /// the kernel.
    func refreshInterest(_ client: Client, _ state: inout FrameState) {
        var events: UInt32 = 0
        if state.fanout.subscribers[client.slot].link == .blocked { events |= Posix.writable }
        if !client.peerClosed && client.readSide == .ready && queued(client, in: state) <= settings.outputBufferBytes {
            events |= Posix.readable | Posix.peerHungUp
        }
        guard events != client.interest else { return }
        client.interest = events
        if let e = loop.modify(client.fd, events: events) { disconnect(client, reason: "\(e)", level: .warning, &state) }
    }

    /// A paused client's queue went back under the bound: its buffered requests are served from
    /// the next turn on.
    func resume(_ client: Client) {
        guard client.readSide == .ready, client.inputStart < client.input.count || client.peerClosed else { return }
        toBacklog(client)
    }

    /// Closes a client's connection; its owner hears `onDisconnect`.
    func disconnect(_ client: Client, reason: String, level: Logger.Level = .info, _ state: inout FrameState) {
        guard !client.closed else { return }
        client.closed = true
        if let e = loop.remove(client.fd) { log.warning("\(client.label): \(e)") }
        Posix.close(client.fd)
        clients[client.fd] = nil
        allClients.removeAll { $0 === client }
        bySlot[client.slot] = nil
        state.fanout.release(client.slot)
        log.log(level: client.oneShot && level == .info ? .debug : level, "\(client.label) disconnected: \(reason)")
        if reserve == nil {
            reserve = Self.openReserve()
            pauseAccepting(false)
        }
        onDisconnect?(client, &state)
    }

    func closeAll(_ state: inout FrameState) {
        for c in allClients { disconnect(c, reason: "the daemon is stopping", &state) }
    }
}
