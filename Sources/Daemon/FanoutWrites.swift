import SystemCalls

/// The fan-out's write side: each subscriber's queue written once a loop turn without ever
/// blocking, continuous updates coalesced, a subscriber that stops reading paused or dropped.
extension Fanout {
    /// Writes every subscriber's queue (once per loop turn), except continuous updates held
    /// back: a subscriber whose queue holds only those (a pan's `changed` lines, touch lines) is
    /// written at most once per its coalescing time (`coalesce_ms`) after its last write, so a
    /// 1 kHz panel costs it and the daemon one write and one wake-up per 8 ms, not per frame. Any
    /// other line (a gesture beginning or ending, a tap, a reply) goes out in its turn with
    /// everything before it, in order; nothing is dropped or merged. Returns when held lines are
    /// due (the loop's wait ends then, if no input comes first; `heldAt`, a time known to have
    /// passed, is what it counts from). The time is the input's (or the end of the pause before
    /// it, if later), else `turnClock` (the turn's, when the loop read it), else the clock read
    /// here, only when a held line needs it.
    @inline(__always)  // from `endTurn` alone (out of line, its call and spills cost 15 a turn)
    mutating func flush(turnClock: Int64?) -> Int64? {
        // A turn with input after a pause: the pause's end is a later bound of the time than
        // the frames' (the next turn's pause comes from this flush).
        var now = inputNow.map { max($0, pacedUntil ?? $0) } ?? turnClock
        // A held write the pause was for comes up to half a frame period past its due time
        // (`InputPacing.readAgain`, for the frame of that time to be in): the pause ended then.
        let paused = pacedUntil
        flushedInput = inputNow
        (inputNow, pacedUntil) = (nil, nil)
        holding = false
        var due = Int64.max
        for s in subscribers.indices where subscribers[s].link == .open && subscribers[s].queued > 0 {
            let hold = subscribers[s].coalesceNs ?? coalesceNs
            if hold > 0 {
                let t = now ?? monotonicNanoseconds()
                now = t
                let wasDue = subscribers[s].lastWriteAt + hold
                if t < wasDue && !subscribers[s].urgent {
                    // Held past the turn: its lines leave the turn's buffer.
                    subscribers[s].settle(turnLines.bytes)
                    holding = true
                    due = min(due, wasDue)
                    continue
                }
                // Written after the pause that was for it, its window counts from its due time,
                // not from the write: the client's window is its own whatever the reads' rhythm.
                let pausedFor = (paused ?? .min) >= wasDue && t - wasDue <= pauseLateness
                subscribers[s].lastWriteAt = pausedFor ? wasDue : t
            }
            write(s)
        }
        // Every run was written or copied out: the buffer may be emptied (as `makeRoomForLines`
        // would, mid-turn, next time).
        if turnLines.bytes.count > Self.scratchLimit { emptyLines() }
        guard holding, let now else { return nil }
        // The latest time known to have passed: the newest frame read, if later than the input
        // time the lines were held against.
        heldAt = max(now, pacing.lastFrame)
        return due
    }

    /// The end of a loop turn in one call: `flush`, then when held lines are due, when to read
    /// the panels next (`readAgain`), and whether `notices` has something for the server.
    mutating func endTurn(turnClock: Int64?, deadline: Int64?) -> (holdingDue: Int64?, readAgain: Int64?, notices: Bool) {
        let due = flush(turnClock: turnClock)
        let again = readAgain(deadline: deadline)
        // How far past a held write's due time that pause may end (the panel's half period then:
        // a period measured later, over a rest, could be any length).
        pauseLateness = pacing.period / 2
        return (due, again, !notices.isEmpty)
    }

    /// What bounds the input pacing (`InputPacing`) after the last `flush`.
    enum PacingBound {
        /// Read each frame as it comes: the turn had no input, or a client takes every frame
        /// (`coalesce_ms` 0).
        case everyFrame
        /// Clients are being streamed a continuous gesture (a `changed` or touch line came for
        /// them within their window): their earliest next write, and the shortest such window.
        case held(due: Int64, window: Int64)
        /// No client is streamed (none connected, or none that takes continuous updates now):
        /// only the frames and the engines' deadlines bound the pause.
        case unheld
    }

    @inline(__always)  // from `endTurn`: a call passed the fan-out through a 190-byte temporary
    func pacingBound() -> PacingBound {
        guard let now = flushedInput else { return .everyFrame }
        var due = Int64.max, window = Int64.max
        for s in subscribers where s.isLive {
            let hold = s.coalesceNs ?? coalesceNs
            guard hold > 0 else { return .everyFrame }
            guard s.streamedAt >= now - hold else { continue }
            // A window that has passed with nothing held: the next line goes out when it
            // comes, so the pause is bounded by a window from now.
            let next = s.lastWriteAt + hold
            due = min(due, next > now ? next : now + hold)
            window = min(window, hold)
        }
        return due == .max ? .unheld : .held(due: due, window: window)
    }

    /// When to read the panels next after this turn (monotonic ns), or nil for at once: the
    /// input pacing, asked only on a panel fast enough to pace.
    @inline(__always)  // from `endTurn`: a call passed the fan-out through a 190-byte temporary
    func readAgain(deadline: Int64?) -> Int64? {
        // `[daemon] coalesce_ms = 0`: every frame as it comes, whatever a client asked for.
        guard paceInput, coalesceNs > 0, pacing.mayPace(within: longestWindow) else { return nil }
        switch pacingBound() {
        case .everyFrame: return nil
        case .held(let due, let window): return pacing.readAgain(heldDue: due, coalesce: window, deadline: deadline)
        case .unheld: return pacing.readAgain(heldDue: nil, coalesce: coalesceNs, deadline: deadline)
        }
    }

    /// Writes slot `s`'s queue as far as the kernel takes it. A change of its write side
    /// (blocked, unblocked, back under the bound) is reported in `notices`.
    mutating func write(_ s: Int) {
        let bound = outputBufferBytes
        let wasPaused = subscribers[s].queued > bound
        let wasBlocked = subscribers[s].link == .blocked
        // The subscriber drains its own queue: one access to it, not one per field.
        switch subscribers[s].drain(keepingUpTo: bound, lines: turnLines.bytes) {
        case .notLive:
            return
        case .written(let count, let pendingSince):
            writes += count
            if let since = pendingSince, latencySampledAt.map({ since - $0 >= Self.latencySpacing }) ?? true {
                latencies.add(monotonicNanoseconds() - since)
                latencySampledAt = since
            }
            if subscribers[s].closeWhenWritten {
                drop(s, reason: "closed the connection")
                return
            }
            if wasPaused { notices.append(.resumed(slot: s)) }
            if wasBlocked || wasPaused { notices.append(.interest(slot: s)) }
        case .blocked(let count):
            writes += count
            if wasPaused && subscribers[s].queued <= bound { notices.append(.resumed(slot: s)) }
            if !wasBlocked { notices.append(.interest(slot: s)) }
        case .failed(let reason):
            drop(s, reason: reason)
        }
    }
}
