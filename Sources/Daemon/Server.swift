import CLinux
import GestureEngine
import GestureProtocol
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The Unix socket: accepts clients, splits their requests into lines, and queues output per
/// client with a bound (the write side is in ServerOutput.swift). Writes are coalesced: `enqueue`
/// only appends; `flush` (once per loop turn) writes each client's queue with one `write`.
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
public final class Server {
    let loop: EventLoop
    let listenFD: Int32
    let log: Logger
    var settings: Limits {
        didSet { longestWindow = allClients.reduce(settings.coalesceNs) { max($0, $1.coalesceNs ?? 0) } }
    }
    private(set) var clients: [Int32: Client] = [:]
    /// The clients in connection order; iterated on every line, so kept as an array (no
    /// allocation per event, unlike building one from the dictionary).
    private(set) var allClients: [Client] = []
    /// Clients with request lines left over from an earlier turn.
    var backlog: [Client] = []
    var nextNumber = 1
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    /// An fd held in reserve: when accept fails for want of fds (EMFILE), it is closed so that
    /// the waiting connection can be accepted and turned away, instead of the listening socket
    /// staying readable and the loop spinning.
    var reserveFD: Int32 = -1
    var refusals = RepeatedWarning()
    /// Clients that spent their request budget, and the timer that brings them back.
    private var throttled: [Client] = []
    private let throttleTimer: DeadlineTimer
    /// Closes connections that take no lines and send nothing (ServerAdmission.swift).
    let idleTimer: DeadlineTimer

    /// What the server tells its owner.
    var onConnect: ((Client) -> Void)?
    var onRequest: ((Client, ArraySlice<UInt8>) -> Void)?
    var onDisconnect: ((Client) -> Void)?
    /// Input-to-write latency (ns) of client writes (`stats`), sampled: a write is measured when
    /// its oldest line's input is at least `latencySpacing` after the last measured one's. Kept
    /// here, where it is measured: a callback to the daemon cost a closure's reference count per
    /// write.
    var latencies = LatencyRing()
    /// The input time of the last measured write.
    var latencySampledAt: Int64?
    /// At most one clock read per 4 ms of input (250 samples a second). Where the clock source
    /// has no vDSO path (HPET, acpi_pm: virtual machines, boards whose TSC is unstable) a clock
    /// read is a system call, and one per write per client was most of what a client cost beyond
    /// its write; ≤ 250 Hz panels (most) still have every write measured.
    static let latencySpacing: Int64 = 4_000_000

    public internal(set) var droppedSlow = 0
    /// write(2) calls that sent stream lines or replies to clients (`stats`: `client_writes`).
    public internal(set) var writes = 0
    /// The newest input time this turn (monotonic ns, the owner sets it as it queues lines from
    /// input): the clock continuous updates are held against, read without a system call.
    var inputNow: Int64?
    /// Some client has continuous updates held after the last `flush`.
    public internal(set) var holding = false
    /// The input time of the last `flush`'s turn, nil without input (for `streaming()`).
    var flushedInput: Int64?
    /// An upper bound of every client's coalescing window (the longest there has been since the
    /// last reload): the input pacing looks no further on a panel slower than it allows.
    var longestWindow: Int64 = 0
    /// Wakes the loop when held lines are due and no input came to write them (a finger resting
    /// still sends no frames): armed at the earliest due time plus `releaseSlack`, and left armed
    /// when the lines went out with input (disarming it would be a system call a write).
    let releaseTimer: DeadlineTimer
    /// While frames keep coming, the frame at the due time writes the held lines; the timer,
    /// later by this, does not fire beside it.
    static let releaseSlack: Int64 = 2_000_000
    public internal(set) var refused = 0
    /// Connections closed for a request line over `max_line_bytes`.
    public private(set) var tooLongLines = 0
    /// Connections closed by `[daemon] idle_timeout_ms`.
    public internal(set) var closedIdle = 0
    public private(set) var accepted = 0

    init(loop: EventLoop, listenFD: Int32, limits: Limits, log: Logger) throws(EventLoop.Failure) {
        self.loop = loop
        self.listenFD = listenFD
        settings = limits
        longestWindow = limits.coalesceNs
        self.log = log
        let flags = fcntl(listenFD, F_GETFL)
        guard flags >= 0, fcntl(listenFD, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw EventLoop.Failure(call: "fcntl(O_NONBLOCK) on the listening socket", errno: errno)
        }
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        throttleTimer = try DeadlineTimer()
        releaseTimer = try DeadlineTimer()
        idleTimer = try DeadlineTimer()
        try loop.add(listenFD) { [unowned self] _ in self.acceptAll() }
        try loop.add(throttleTimer.fd) { [unowned self] _ in self.unthrottle() }
        // The turn's flush writes what is due (by the clock: no input came).
        try loop.add(releaseTimer.fd) { [unowned self] _ in self.releaseTimer.acknowledge() }
        try loop.add(idleTimer.fd) { [unowned self] _ in self.closeIdle() }
    }

    var clientCount: Int { clients.count }

    private func armThrottle(at ns: Int64?) {
        if let e = throttleTimer.arm(at: ns) { log.error("throttle timer: \(e); throttled clients wait for their next input") }
    }

    /// Some client has requests left from an earlier turn: the loop must not sleep.
    var hasBacklog: Bool { !backlog.isEmpty }

    /// Takes a connected socket as a client (the accept path, and tests with a socketpair);
    /// nil when the loop cannot watch it (then it is closed).
    @discardableResult
    func admit(_ fd: Int32, pid: Int32, uid: UInt32, gid: UInt32) -> Client? {
        let client = Client(fd: fd, number: nextNumber, pid: pid, uid: uid, gid: gid)
        nextNumber += 1
        accepted += 1
        do {
            try loop.add(fd, events: client.interest) { [unowned(unsafe) self, unowned(unsafe) client] events in
                self.ready(client, events)
            }
        } catch {
            log.warning("cannot watch a new client: \(error)")
            close(fd)
            return nil
        }
        clients[fd] = client
        allClients.append(client)
        log.info("\(client.label) connected")
        onConnect?(client)
        return client
    }

    private func ready(_ client: Client, _ events: UInt32) {
        let hungUp = events & (CL_EPOLLHUP | CL_EPOLLERR) != 0
        if events & CL_EPOLLOUT != 0 || (hungUp && client.queued > 0) { write(client) }
        if client.closing { return }
        if hungUp && (client.readClosed || client.throttledUntil != nil) {
            // Both directions are gone (always reported, whatever the interest): nothing more
            // can come or go, and the answers to what is still unread could not be delivered.
            disconnect(client, reason: "hung up")
            return
        }
        if events & (CL_EPOLLIN | CL_EPOLLRDHUP) != 0 || hungUp { serve(client) }
    }

    /// A client spent its budget: it is not read until the budget has refilled.
    private func throttle(_ client: Client, now: Int64) {
        let until = now + client.budget.wait(linesPerSecond: settings.requestsPerSecond, bytesPerSecond: settings.bytesPerSecond)
        client.throttledUntil = until
        throttled.append(client)
        if throttleTimer.armedAt == 0 || until < throttleTimer.armedAt { armThrottle(at: until) }
    }

    /// The throttle timer fired: clients whose budget has refilled are served again.
    private func unthrottle() {
        throttleTimer.acknowledge()
        let now = monotonicNanoseconds()
        var next: Int64?
        throttled.removeAll { c in
            guard !c.closing else { return true }
            guard let until = c.throttledUntil else { return true }
            if until <= now {
                c.throttledUntil = nil
                if !c.backlogged {
                    c.backlogged = true
                    backlog.append(c)
                }
                return true
            }
            next = min(next ?? until, until)
            return false
        }
        armThrottle(at: next)
    }

    /// Serves what is left of the clients' requests from earlier turns (once per turn).
    func serveBacklog() {
        guard !backlog.isEmpty else { return }
        let waiting = backlog
        backlog.removeAll(keepingCapacity: true)
        for c in waiting where !c.closing {
            c.backlogged = false
            serve(c)
        }
    }

    /// One turn's work for a client: request lines already read first, then reads, within the
    /// turn's budget; whatever is left waits for the next turn.
    private func serve(_ client: Client) {
        var requests = 0, bytesRead = 0
        guard client.throttledUntil == nil else { return }
        let now = monotonicNanoseconds()
        client.budget.refill(now: now, linesPerSecond: settings.requestsPerSecond, bytesPerSecond: settings.bytesPerSecond)
        while !client.closing {
            if client.queued > settings.outputBufferBytes { break }  // paused until it reads
            if client.budget.lines < 1 || client.budget.bytes <= 0 {
                throttle(client, now: now)
                break
            }
            if requests >= settings.requestsPerTurn {
                if hasLine(client) || client.readClosed {
                    client.backlogged = true
                    backlog.append(client)
                }
                break
            }
            if let line = nextLine(client) {
                requests += 1
                client.budget.lines -= 1
                client.budget.bytes -= Double(line.count + 1)
                deliver(client, line)
                continue
            }
            if client.input.count - client.inputStart > settings.maxLineBytes {
                tooLong(client)
                return
            }
            if client.readClosed {
                // The last request may end without a newline.
                if client.inputStart < client.input.count {
                    let rest = client.input[client.inputStart...]
                    client.input.removeAll()
                    client.inputStart = 0
                    client.scanned = 0
                    deliver(client, rest)
                    continue
                }
                if client.queued == 0 { disconnect(client, reason: "closed the connection") }
                break
            }
            if bytesRead >= settings.bytesPerTurn {
                client.backlogged = true
                backlog.append(client)
                break
            }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(client.fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                disconnect(client, reason: "read: \(String(cString: strerror(errno)))")
                return
            }
            if n == 0 {
                client.readClosed = true
                continue
            }
            bytesRead += n
            if client.inputStart > 0 {
                client.input.removeFirst(client.inputStart)
                client.scanned -= client.inputStart
                client.inputStart = 0
            }
            client.input += chunk[0..<n]
        }
        if !client.closing { refreshInterest(client) }
    }

    /// Is a complete request line waiting in the client's input?
    private func hasLine(_ client: Client) -> Bool {
        client.input[max(client.scanned, client.inputStart)...].contains(0x0A)
    }

    /// The next complete request line in the client's input (without its newline), taken.
    private func nextLine(_ client: Client) -> ArraySlice<UInt8>? {
        let from = max(client.scanned, client.inputStart)
        guard let end = client.input[from...].firstIndex(of: 0x0A) else {
            client.scanned = client.input.count
            return nil
        }
        let line = client.input[client.inputStart..<end]
        client.inputStart = end + 1
        client.scanned = end + 1
        if client.inputStart == client.input.count {
            // Keeps the slice's bytes alive (copy on write) while reusing small buffers.
            client.input = []
            client.inputStart = 0
            client.scanned = 0
        }
        return line
    }

    private func deliver(_ client: Client, _ line: ArraySlice<UInt8>) {
        if line.count > settings.maxLineBytes {
            tooLong(client)
            return
        }
        var l = line
        if l.last == 0x0D { l = l.dropLast() }
        if l.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines are harmless
        client.lastRequestAt = monotonicNanoseconds()
        onRequest?(client, l)
    }

    private func tooLong(_ client: Client) {
        tooLongLines += 1
        var w = JSONLineWriter(capacity: 256)
        Messages.error(&w, id: nil, code: .lineTooLong, message: "a request line may have \(settings.maxLineBytes) bytes at most; closing")
        reply(w.bytes[...], to: client)
        write(client)
        disconnect(client, reason: "sent a line longer than \(settings.maxLineBytes) bytes")
    }

    /// The epoll events a client needs now: reads only while its requests are being served
    /// (not while backlogged, paused or half-closed), writes while output waits on the kernel.
    func refreshInterest(_ client: Client) {
        var events: UInt32 = 0
        if client.watchingWrites { events |= CL_EPOLLOUT }
        if !client.readClosed && !client.backlogged && client.throttledUntil == nil && client.queued <= settings.outputBufferBytes {
            events |= CL_EPOLLIN | CL_EPOLLRDHUP
        }
        guard events != client.interest else { return }
        client.interest = events
        if let e = loop.modify(client.fd, events: events) { disconnect(client, reason: "\(e)", level: .warning) }
    }

    func disconnect(_ client: Client, reason: String, level: Logger.Level = .info) {
        guard !client.closing else { return }
        client.closing = true
        if let e = loop.remove(client.fd) { log.warning("\(client.label): \(e)") }
        close(client.fd)
        clients[client.fd] = nil
        allClients.removeAll { $0 === client }
        log.log(level: level, "\(client.label) disconnected: \(reason)")
        if reserveFD < 0 {
            reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if let e = loop.modify(listenFD, events: CL_EPOLLIN) { log.error("cannot resume accepting: \(e)") }
        }
        onDisconnect?(client)
    }

    func closeAll() {
        for c in allClients { disconnect(c, reason: "the daemon is stopping") }
    }
}
