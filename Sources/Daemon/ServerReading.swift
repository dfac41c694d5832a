import GestureProtocol
import Logging
import SystemCalls

/// The server's read side: a client's requests split into lines and served within its budget
/// for the turn and over time (`Limits`), the rest left for later turns.
extension Server {
    /// One turn's work for a client: request lines already read first, then reads, within the
    /// turn's budget; whatever is left waits for the next turn. Its time, reads and requests
    /// alike, is charged to its user's share as it goes.
    func serve(_ client: Client, _ state: inout FrameState) {
        var requests = 0, bytesRead = 0
        guard client.readSide == .ready else { return }
        let start = monotonicNanoseconds()
        var mark = start
        // (A client closed here had its going charged already: the recompile of its regions.)
        defer { if !client.closed { charge(client, since: &mark) } }
        client.budget.refill(now: start, linesPerSecond: settings.requestsPerSecond, bytesPerSecond: settings.bytesPerSecond)
        reading: while !client.closed {
            if queued(client, in: state) > settings.outputBufferBytes { break }  // paused until it reads
            if client.budget.lines < 1 || client.budget.bytes <= 0 || timeShare.left(client.uid, now: mark) <= 0 {
                charge(client, since: &mark)
                throttle(client, now: mark)
                break
            }
            if requests >= settings.requestsPerTurn || mark - start >= settings.nsPerTurn {
                if hasLine(client) || client.peerClosed { toBacklog(client) }
                break
            }
            if let line = nextLine(client) {
                requests += 1
                client.budget.lines -= 1
                client.budget.bytes -= Double(line.count + 1)
                deliver(client, line, &state)
                client.servedAt = charge(client, since: &mark)
                client.pausedForTime = false
                continue
            }
            // No newline yet in `max_line_bytes`: no line can end within it.
            if client.input.count - client.inputStart >= settings.maxLineBytes {
                tooLong(client, &state)
                return
            }
            if client.peerClosed {
                // The last request may end without a newline.
                if client.inputStart < client.input.count {
                    let rest = client.input[client.inputStart...]
                    client.input.removeAll()
                    client.inputStart = 0
                    client.scanned = 0
                    deliver(client, rest, &state)
                    client.servedAt = charge(client, since: &mark)
                    client.pausedForTime = false
                    continue
                }
                // Everything is served: it closes once its answers are written.
                if queued(client, in: state) == 0 {
                    disconnect(client, reason: "closed the connection", &state)
                } else {
                    state.fanout.subscribers[client.slot].closeWhenWritten = true
                }
                break
            }
            if bytesRead >= settings.bytesPerTurn {
                toBacklog(client)
                break
            }
            switch readChunk(client, &state) {
            case .bytes(let n): bytesRead += n
            case .ended: continue  // served to the end above, then closed
            case .nothing: break reading
            case .dropped: return
            }
        }
        if !client.closed { refreshInterest(client, &state) }
    }

    private enum ReadOutcome { case bytes(Int), nothing, ended, dropped }

    /// Reads what the client sent into its input.
    private func readChunk(_ client: Client, _ state: inout FrameState) -> ReadOutcome {
        switch Posix.read(client.fd, into: &chunk) {
        case .wouldBlock: return .nothing
        case .failed(let e):
            disconnect(client, reason: "\(e)", &state)
            return .dropped
        case .removed:
            disconnect(client, reason: "read: the socket went away", &state)
            return .dropped
        case .done(0):
            client.peerClosed = true
            return .ended
        case .done(let n):
            if client.inputStart > 0 {
                client.input.removeFirst(client.inputStart)
                client.scanned -= client.inputStart
                client.inputStart = 0
            }
            client.input += chunk[0..<n]
            return .bytes(n)
        }
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

    /// Charges the time since `mark` to the client's user, and moves `mark` to now (returned).
    @discardableResult
    private func charge(_ client: Client, since mark: inout Int64) -> Int64 {
        let now = monotonicNanoseconds()
        timeShare.charge(client.uid, now - mark, now: now)
        mark = now
        return now
    }

    private func deliver(_ client: Client, _ line: ArraySlice<UInt8>, _ state: inout FrameState) {
        if line.count >= settings.maxLineBytes {  // its newline included
            tooLong(client, &state)
            return
        }
        var l = line
        if l.last == 0x0D { l = l.dropLast() }
        if l.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // blank lines are harmless
        client.lastRequestAt = monotonicNanoseconds()
        onRequest?(client, l, &state)
    }

    private func tooLong(_ client: Client, _ state: inout FrameState) {
        tooLongLines += 1
        var w = JSONLineWriter(capacity: 256)
        Messages.error(&w, id: nil, code: .lineTooLong, message: "a request line may have \(settings.maxLineBytes) bytes at most; closing")
        state.fanout.reply(w.bytes[...], to: client.slot)
        state.fanout.write(client.slot)
        disconnect(client, reason: "sent a line longer than \(settings.maxLineBytes) bytes", &state)
    }
}
