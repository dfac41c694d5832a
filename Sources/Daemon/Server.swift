import CLinux
import GestureEngine
import GestureProtocol
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// One connected client: its credentials, its partial request line, its queued output and what
/// it subscribed to.
public final class Client {
    public let fd: Int32
    public let number: Int
    public let pid: Int32
    public let uid: UInt32
    public let gid: UInt32
    var input: [UInt8] = []
    var output: [UInt8] = []
    var sent = 0
    var watchingWrites = false
    /// Monotonic time of the input behind the oldest line not yet written (for latency).
    var pendingSince: Int64?
    var closing = false

    // Subscription. A new client gets gesture and device lines; `subscribe` changes that.
    var gestures = true
    var kinds: Set<GestureKind>?
    var regions: Set<String>?
    var devices: Set<UInt32>?
    var touches = false
    /// Regions this client set (removed when it goes).
    var ownedRegions: [RegionSpec] = []

    init(fd: Int32, number: Int, pid: Int32, uid: UInt32, gid: UInt32) {
        self.fd = fd
        self.number = number
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var label: String { "client #\(number) (pid \(pid), uid \(uid), gid \(gid))" }
    var queued: Int { output.count - sent }
}

/// The Unix socket: accepts clients, splits their requests into lines, and queues output per
/// client with a bound. Writes are coalesced: `enqueue` only appends; `flush` (once per loop turn)
/// writes each client's queue with one `write`. A client whose queue passes the bound is
/// disconnected, so a stalled reader never slows the engine or the other clients.
public final class Server {
    let loop: EventLoop
    let listenFD: Int32
    let log: Logger
    var settings: Limits
    private(set) var clients: [Int32: Client] = [:]
    /// The clients in connection order; iterated on every line, so kept as an array (no
    /// allocation per event, unlike building one from the dictionary).
    private(set) var allClients: [Client] = []
    private var nextNumber = 1
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    /// The bytes of the current line, reused.
    private var lineBuffer: [UInt8] = []

    public struct Limits {
        public var maxClients: Int
        public var maxLineBytes: Int
        public var outputBufferBytes: Int
    }

    /// What the server tells its owner.
    var onConnect: ((Client) -> Void)?
    var onRequest: ((Client, ArraySlice<UInt8>) -> Void)?
    var onDisconnect: ((Client) -> Void)?
    /// Latency samples (ns) from input to write, one per client write.
    var onWritten: ((Int64) -> Void)?

    public private(set) var droppedSlow = 0
    public private(set) var refused = 0
    public private(set) var accepted = 0

    init(loop: EventLoop, listenFD: Int32, limits: Limits, log: Logger) throws(EventLoop.Failure) {
        self.loop = loop
        self.listenFD = listenFD
        settings = limits
        self.log = log
        let flags = fcntl(listenFD, F_GETFL)
        _ = fcntl(listenFD, F_SETFL, flags | O_NONBLOCK)
        try loop.add(listenFD) { [unowned self] _ in self.acceptAll() }
    }

    var clientCount: Int { clients.count }

    private func acceptAll() {
        while true {
            let fd = cl_accept(listenFD)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { log.warning("accept: \(String(cString: strerror(errno)))") }
                return
            }
            var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
            _ = cl_peer_credentials(fd, &pid, &uid, &gid)
            if clients.count >= settings.maxClients {
                refused += 1
                var w = JSONLineWriter(capacity: 256)
                Messages.error(&w, id: nil, code: "too_many_clients", message: "the daemon serves \(settings.maxClients) clients at most")
                _ = w.bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                close(fd)
                log.warning("refused a client (pid \(pid), uid \(uid)): \(settings.maxClients) clients already")
                continue
            }
            let client = Client(fd: fd, number: nextNumber, pid: pid, uid: uid, gid: gid)
            nextNumber += 1
            accepted += 1
            do {
                try loop.add(fd, events: CL_EPOLLIN | CL_EPOLLRDHUP) { [unowned self, unowned client] events in
                    self.ready(client, events)
                }
            } catch {
                close(fd)
                continue
            }
            clients[fd] = client
            allClients.append(client)
            log.info("\(client.label) connected")
            onConnect?(client)
        }
    }

    private func ready(_ client: Client, _ events: UInt32) {
        if events & CL_EPOLLOUT != 0 { write(client) }
        if events & (CL_EPOLLIN | CL_EPOLLHUP | CL_EPOLLERR | CL_EPOLLRDHUP) != 0 { read(client) }
    }

    private func read(_ client: Client) {
        while !client.closing {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(client.fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                disconnect(client, reason: "read: \(String(cString: strerror(errno)))")
                return
            }
            if n == 0 {
                disconnect(client, reason: "closed the connection")
                return
            }
            var start = 0
            for i in 0..<n where chunk[i] == 0x0A {
                if client.input.isEmpty {
                    deliver(client, chunk[start..<i])
                } else {
                    client.input += chunk[start..<i]
                    lineBuffer = client.input
                    client.input.removeAll(keepingCapacity: true)
                    deliver(client, lineBuffer[...])
                }
                start = i + 1
                if client.closing { return }
            }
            if start < n { client.input += chunk[start..<n] }
            if client.input.count > settings.maxLineBytes {
                tooLong(client)
                return
            }
        }
    }

    private func deliver(_ client: Client, _ line: ArraySlice<UInt8>) {
        if line.count > settings.maxLineBytes {
            tooLong(client)
            return
        }
        var l = line
        if l.last == 0x0D { l = l.dropLast() }
        if l.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines are harmless
        onRequest?(client, l)
    }

    private func tooLong(_ client: Client) {
        var w = JSONLineWriter(capacity: 256)
        Messages.error(&w, id: nil, code: "line_too_long", message: "a request line may have \(settings.maxLineBytes) bytes at most; closing")
        enqueue(w.bytes[...], to: client, since: nil)
        write(client)
        disconnect(client, reason: "sent a line longer than \(settings.maxLineBytes) bytes")
    }

    /// Queues `bytes` for `client`. `since` is the monotonic time of the input behind them.
    func enqueue(_ bytes: ArraySlice<UInt8>, to client: Client, since: Int64?) {
        guard !client.closing else { return }
        if client.queued + bytes.count > settings.outputBufferBytes {
            droppedSlow += 1
            disconnect(client, reason: "stopped reading: \(client.queued) bytes queued, the limit is \(settings.outputBufferBytes)", level: .warning)
            return
        }
        if client.sent > 0 && client.sent * 2 > client.output.count {
            client.output.removeFirst(client.sent)
            client.sent = 0
        }
        client.output += bytes
        if client.pendingSince == nil { client.pendingSince = since }
    }

    /// Writes every client's queue (once per loop turn).
    func flush() {
        for c in allClients where c.queued > 0 && !c.watchingWrites { write(c) }
    }

    private func write(_ client: Client) {
        while client.queued > 0 {
            let n = client.output.withUnsafeBytes { Glibc.write(client.fd, $0.baseAddress! + client.sent, client.queued) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    if !client.watchingWrites {
                        client.watchingWrites = true
                        loop.modify(client.fd, events: CL_EPOLLIN | CL_EPOLLRDHUP | CL_EPOLLOUT)
                    }
                    return
                }
                disconnect(client, reason: "write: \(String(cString: strerror(errno)))")
                return
            }
            client.sent += n
        }
        client.output.removeAll(keepingCapacity: client.output.capacity <= 65_536)
        client.sent = 0
        if let since = client.pendingSince {
            onWritten?(monotonicNanoseconds() - since)
            client.pendingSince = nil
        }
        if client.watchingWrites {
            client.watchingWrites = false
            loop.modify(client.fd, events: CL_EPOLLIN | CL_EPOLLRDHUP)
        }
    }

    func disconnect(_ client: Client, reason: String, level: Logger.Level = .info) {
        guard !client.closing else { return }
        client.closing = true
        loop.remove(client.fd)
        close(client.fd)
        clients[client.fd] = nil
        allClients.removeAll { $0 === client }
        log.log(level: level, "\(client.label) disconnected: \(reason)")
        onDisconnect?(client)
    }

    func closeAll() {
        for c in allClients { disconnect(c, reason: "the daemon is stopping") }
    }
}
