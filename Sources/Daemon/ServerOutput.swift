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
    /// of the input behind it. A client whose queue would pass the bound is disconnected.
    func enqueue(_ bytes: UnsafeBufferPointer<UInt8>, to client: Client, since: Int64?) {
        guard !client.closing else { return }
        if client.queued + bytes.count > settings.outputBufferBytes + client.replyAllowance {
            droppedSlow += 1
            disconnect(
                client, reason: "stopped reading: \(client.queued) bytes queued, the limit is \(settings.outputBufferBytes)",
                level: .warning)
            return
        }
        client.output.append(bytes)
        if client.pendingSince == nil { client.pendingSince = since }
    }

    /// Queues a reply (to a request, or the hello): always whole; the client's requests pause
    /// while its queue is past the bound.
    func reply(_ bytes: ArraySlice<UInt8>, to client: Client) {
        guard !client.closing else { return }
        bytes.withUnsafeBufferPointer { client.output.append($0) }
        client.replyAllowance += bytes.count
    }


    /// Writes every client's queue (once per loop turn).
    func flush() {
        // By index: a write may drop its client (the array shrinks under the loop), and
        // iterating the array itself retained it and every client, every turn.
        var i = 0
        while i < allClients.count {
            let c = allClients[i]
            i += 1
            guard c.queued > 0 && !c.watchingWrites else { continue }
            write(c)
            if c.closing { i -= 1 }
        }
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
        }
        client.output.removeAll(keepingUpTo: settings.outputBufferBytes)
        client.replyAllowance = 0
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
