import GestureConfig
import GestureEngine
import GestureProtocol
import SystemCalls

/// One connected client, as the server's request side sees it: its credentials, the bytes it
/// sent that are not yet taken as requests, its request budget and the regions it set. What is
/// queued for it and what it subscribed to are its `Subscriber` in the fan-out, at `slot`.
final class Client {
    let fd: Int32
    let number: Int
    /// Who is at the other end (SO_PEERCRED at accept).
    let peer: (pid: Int32, uid: UInt32, gid: UInt32)
    /// The user whose web page this connection carries (`page`, from the web bridge), checked
    /// with the kernel: its shares and rights are that user's, not the bridge's.
    var page: (uid: UInt32, gid: UInt32, address: String)?
    var uid: UInt32 { page?.uid ?? peer.uid }
    var gid: UInt32 { page?.gid ?? peer.gid }
    /// Its subscriber's slot in `Fanout.subscribers`.
    let slot: Int
    /// Bytes read and not yet taken as request lines start at `inputStart`; `scanned` is how far
    /// the search for a newline has looked (a partial line is not searched again).
    var input: [UInt8] = []
    var inputStart = 0
    var scanned = 0

    /// The read side: when its requests are read and served.
    enum ReadSide: Equatable {
        /// Read when epoll says it sent something.
        case ready
        /// It has request lines left over from an earlier turn (it used up its turn's budget).
        case backlogged
        /// It spent its request budget: not read until then (monotonic ns).
        case throttled(until: Int64)
    }
    var readSide = ReadSide.ready
    /// It shut down its writing side: its last requests are answered, then it is closed.
    var peerClosed = false
    /// The server closed it (its fd is closed; it is no longer in the server's lists).
    var closed = false
    /// Came in on the request socket (a one-shot: `stats`, `metrics`, a scrape every 15 s): its
    /// coming and going is logged at debug level, not info.
    var oneShot = false
    /// Its request budget over time (token buckets of lines and bytes, refilled as time passes).
    var budget = RequestBudget()
    /// The epoll events asked for now.
    var interest: UInt32 = Posix.readable | Posix.peerHungUp
    /// Monotonic time of its connect or its last request (the idle limit counts from it).
    var lastRequestAt: Int64 = monotonicNanoseconds()
    /// Monotonic time its last request was served (0: none yet): a user's connections woken
    /// together are served the one served longest ago first.
    var servedAt: Int64 = 0
    /// It was paused for its user's time since its last request served (a pause is counted once).
    var pausedForTime = false
    /// Regions this client set (removed when it goes), and as it sent them (read again at a
    /// reload: `Daemon.readmitClientRegions`).
    var ownedRegions: [RegionSpec] = []
    var regionTables: [TOMLTable] = []

    init(fd: Int32, number: Int, slot: Int, peer: (pid: Int32, uid: UInt32, gid: UInt32)) {
        (self.fd, self.number, self.slot, self.peer) = (fd, number, slot, peer)
    }

    var label: String {
        let page = page.map { ", a page of uid \($0.uid) at \($0.address)" } ?? ""
        return "client #\(number) (pid \(peer.pid), uid \(peer.uid), gid \(peer.gid)\(page))"
    }
    var backlogged: Bool { readSide == .backlogged }
    var throttled: Bool { if case .throttled = readSide { true } else { false } }
}

/// A client's requests over time: token buckets of lines and bytes, each holding one second's
/// worth and refilled as time passes. A client that writes nonstop gets its share and no more,
/// so it can neither starve others nor keep a core busy.
struct RequestBudget {
    var lines = -1.0
    var bytes = -1.0
    var at: Int64 = 0

    mutating func refill(now: Int64, linesPerSecond: Double, bytesPerSecond: Double) {
        if at == 0 {
            (lines, bytes, at) = (linesPerSecond, bytesPerSecond, now)
            return
        }
        let dt = Double(max(0, now - at)) / 1e9
        lines = min(linesPerSecond, lines + dt * linesPerSecond)
        bytes = min(bytesPerSecond, bytes + dt * bytesPerSecond)
        at = now
    }

    /// Nanoseconds until at least one line and some bytes are available again.
    func wait(linesPerSecond: Double, bytesPerSecond: Double) -> Int64 {
        let forLines = lines >= 1 ? 0 : (1 - lines) / linesPerSecond
        let forBytes = bytes > 0 ? 0 : (1 - bytes) / bytesPerSecond
        return max(1_000_000, Int64(max(forLines, forBytes) * 1e9))
    }
}
