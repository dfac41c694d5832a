import CLinux
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The server's write side: what is queued for each client (stream lines bounded, replies
/// whole), written once per loop turn without ever blocking, and a client that stops reading
/// paused or dropped.
extension Server {
    /// Queues a stream line (gesture, touch, device) for `client`. `since` is the monotonic time
    /// of the input behind it; `continuous` marks an update the next one supersedes (a gesture's
    /// `changed` line, a touch line), which may be held back (`flush`). A client whose queue
    /// would pass the bound is disconnected, but only once the kernel has refused to take it:
    /// one turn can make more than the bound for a client that reads everything (a replay
    /// catching up after the daemon was descheduled hands over many frames at once, and held
    /// lines wait in the queue), so the queue is written first, and only what the socket did
    /// not take counts against the client.
    func enqueue(_ bytes: UnsafeBufferPointer<UInt8>, to client: Client, since: Int64?, continuous: Bool = false) {
        guard !client.closing else { return }
        if client.queued + bytes.count > settings.outputBufferBytes + client.replyAllowance && !client.watchingWrites {
            write(client)
            guard !client.closing else { return }
        }
        if client.queued + bytes.count > settings.outputBufferBytes + client.replyAllowance {
            droppedSlow += 1
            disconnect(
                client, reason: "stopped reading: \(client.queued) bytes queued, the limit is \(settings.outputBufferBytes)",
                level: .warning)
            return
        }
        client.output.append(bytes)
        if client.pendingSince == nil { client.pendingSince = since }
        if continuous { client.streamedAt = since ?? client.streamedAt } else { client.urgent = true }
    }

    /// Queues a reply (to a request, or the hello): always whole; the client's requests pause
    /// while its queue is past the bound.
    func reply(_ bytes: ArraySlice<UInt8>, to client: Client) {
        guard !client.closing else { return }
        bytes.withUnsafeBufferPointer { client.output.append($0) }
        client.replyAllowance += bytes.count
        client.urgent = true
    }


    /// Writes every client's queue (once per loop turn), except continuous updates held back:
    /// a client whose queue holds only those (a pan's `changed` lines, touch lines) is written
    /// at most once per its coalescing time (`coalesce_ms`) after its last write, so a 1 kHz
    /// panel costs it and the daemon one write and one wake-up per 8 ms, not per frame. Any
    /// other line (a gesture beginning or ending, a tap, a reply) goes out in its turn with
    /// everything before it, in order; nothing is dropped or merged. When input stops with lines
    /// held, `releaseTimer` wakes the loop and this turn's clock lets them go.
    func flush() {
        // Input time where this turn had input; the clock only where it had none.
        var now = inputNow
        flushedInput = inputNow
        inputNow = nil
        holding = false
        var due = Int64.max
        // By index: a write may drop its client (the array shrinks under the loop), and
        // iterating the array itself retained it and every client, every turn.
        var i = 0
        while i < allClients.count {
            let c = allClients[i]
            i += 1
            guard c.queued > 0 && !c.watchingWrites else { continue }
            let hold = c.coalesceNs ?? settings.coalesceNs
            if hold > 0 {
                let t = now ?? loop.turnStarted
                now = t
                if !c.urgent && t - c.lastWriteAt < hold {
                    holding = true
                    due = min(due, c.lastWriteAt + hold)
                    continue
                }
                c.lastWriteAt = t
            }
            write(c)
            if c.closing { i -= 1 }
        }
        // Armed once per write (the due time moves when a client is written), never disarmed:
        // firing with nothing held costs one wake-up, after the input stopped.
        if holding, let e = releaseTimer.arm(at: due + Server.releaseSlack) {
            log.error("release timer: \(e); held lines wait for the next input")
        }
    }

    /// What the input pacing may take (`InputPacing`) after the last `flush`, when it had input:
    /// the earliest next write of the clients being streamed a continuous gesture (a `changed` or
    /// touch line came for them within their window), and the shortest such window; nil after a
    /// turn without input, when no client is streamed to, or when some client takes every frame
    /// (`coalesce_ms` 0). The daemon asks only on a panel fast enough to pace (a loop over the
    /// clients a turn is not free at 50 Hz, where it would never pace).
    func streaming() -> (due: Int64, window: Int64)? {
        guard let now = flushedInput else { return nil }
        var due = Int64.max, window = Int64.max
        var i = 0
        while i < allClients.count {
            let c = allClients[i]
            i += 1
            let hold = c.coalesceNs ?? settings.coalesceNs
            guard hold > 0 else { return nil }
            guard c.streamedAt >= now - hold else { continue }
            // A window that has passed with nothing held: the next line goes out when it
            // comes, so the pause is bounded by a window from now.
            let next = c.lastWriteAt + hold
            due = min(due, next > now ? next : now + hold)
            window = min(window, hold)
        }
        return due == .max ? nil : (due, window)
    }

    func write(_ client: Client) {
        let wasPaused = client.queued > settings.outputBufferBytes
        while client.queued > 0 {
            let n = client.output.withQueuedBytes { Glibc.write(client.fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    client.watchingWrites = true
                    if wasPaused && client.queued <= settings.outputBufferBytes { resume(client) }
                    refreshInterest(client)
                    return
                }
                disconnect(client, reason: "write: \(String(cString: strerror(errno)))")
                return
            }
            client.output.consume(n)
            writes += 1
        }
        client.output.removeAll(keepingUpTo: settings.outputBufferBytes)
        client.replyAllowance = 0
        client.urgent = false
        if let since = client.pendingSince {
            if latencySampledAt.map({ since - $0 >= Server.latencySpacing }) ?? true {
                latencies.add(monotonicNanoseconds() - since)
                latencySampledAt = since
            }
            client.pendingSince = nil
        }
        client.watchingWrites = false
        if client.readClosed && client.inputStart == client.input.count {
            disconnect(client, reason: "closed the connection")
            return
        }
        if wasPaused { resume(client) }
        refreshInterest(client)
    }

    /// A paused client read enough: its buffered requests are served from the next turn on.
    func resume(_ client: Client) {
        guard !client.backlogged, client.inputStart < client.input.count || client.readClosed else { return }
        client.backlogged = true
        backlog.append(client)
    }
}
