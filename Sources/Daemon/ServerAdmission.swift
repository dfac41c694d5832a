import GestureProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Who the server takes and keeps: `max_clients` in all, `max_clients_per_user` of one uid (so
/// one user's connections cannot lock out the kiosk app's), and no connection that takes no
/// lines and sends nothing for `idle_timeout_ms`. A connection turned away or closed is told
/// why in an error line first.
extension Server {
    func acceptAll(_ listener: Listener, _ state: inout FrameState) {
        while true {
            let fd: Int32
            switch Posix.accept(listener.fd) {
            case .success(let accepted): fd = accepted
            case .failure(let e):
                switch e.errno {
                case .resourceTemporarilyUnavailable, .wouldBlock: return
                case .tooManyOpenFiles, .tooManyOpenFilesInSystem: turnAwayWithoutFDs(listener)
                default: log.warning("\(e)")
                }
                return
            }
            let peer: PeerCredentials
            switch Posix.peerCredentials(fd) {
            case .success(let p): peer = p
            case .failure(let e):
                // Without credentials the set_regions policy cannot be applied: fail closed.
                log.warning("refused a client: \(e)")
                Posix.close(fd)
                continue
            }
            let (pid, uid, gid) = (peer.pid, peer.uid, peer.gid)
            if let why = turnedAway(uid: uid) {
                refused += 1
                refuse(fd, code: .tooManyClients, message: why)
                if let more = refusals.note(at: monotonicNanoseconds()) {
                    log.warning("refused a client (pid \(pid), uid \(uid)): \(why)\(more)")
                }
                continue
            }
            if let more = refusals.flush() {
                log.notice("a client slot is free again\(more)")
            }
            admit(fd, pid: pid, uid: uid, gid: gid, quiet: listener.quiet, &state)
        }
    }

    /// Writes one error line to a connection being turned away and closes it.
    func refuse(_ fd: Int32, code: ErrorCode, message: String) {
        var w = JSONLineWriter(capacity: 256)
        Messages.error(&w, id: nil, code: code, message: message)
        // Best effort: the connection is closed either way, and a peer that cannot take one
        // line has nothing to lose by missing it.
        _ = Posix.write(fd, w.bytes)
        Posix.close(fd)
    }

    /// Out of fds: accept the waiting connection with the reserve fd, tell it why, close it.
    func turnAwayWithoutFDs(_ listener: Listener) {
        refused += 1
        if reserve != nil {
            reserve = nil  // closed: one fd free for the accept
            if case .success(let fd) = Posix.accept(listener.fd) {
                refuse(fd, code: .tooManyClients, message: "the daemon is out of file descriptors")
            }
            reserve = Self.openReserve()
        }
        if let more = refusals.note(at: monotonicNanoseconds()) {
            log.warning("refused a client: out of file descriptors (\(clients.count) clients)\(more)")
        }
        // Without the reserve (it could not be reopened) the connection stays queued; the
        // listening sockets are left out of the loop until a client goes, so the loop cannot spin.
        if reserve == nil { pauseAccepting(true) }
    }

    /// An fd kept open to be closed when the others run out: with it, a connection can still be
    /// accepted to be told why it is turned away (nil: /dev/null could not be opened).
    static func openReserve() -> Descriptor? {
        switch Posix.open("/dev/null", O_RDONLY) {
        case .success(let d): d
        case .failure: nil
        }
    }

    /// Takes the listening sockets out of the loop (out of fds), or puts them back.
    func pauseAccepting(_ pause: Bool) {
        for l in listeners {
            if let e = loop.modify(l.fd, events: pause ? 0 : Posix.readable) {
                log.error("cannot \(pause ? "pause" : "resume") accepting: \(e)")
            }
        }
    }

    /// Why a connection of `uid` is turned away now, or nil to take it; `besides`, a client
    /// already in (a page's connection changing user), counts as the newcomer.
    func turnedAway(uid: UInt32, besides: Client? = nil) -> String? {
        if besides == nil && clients.count >= settings.maxClients { return "the daemon serves \(settings.maxClients) clients at most" }
        let share = min(settings.maxClientsPerUser, settings.maxClients)
        let mine = allClients.reduce(0) { $0 + ($1.uid == uid && $1 !== besides ? 1 : 0) }
        if mine >= share {
            return "uid \(uid) has \(mine) connections, the most one user may have ([daemon] max_clients_per_user)"
        }
        return nil
    }

    /// A client that takes no lines may go idle: the idle timer is armed for it (no-op when
    /// the limit is off or the timer fires sooner).
    func watchIdle(_ client: Client, in state: borrowing FrameState) {
        guard settings.idleNs > 0, takesNothing(client, in: state) else { return }
        let due = client.lastRequestAt + settings.idleNs
        if idleTimer.armedAt == 0 || due < idleTimer.armedAt {
            if let e = idleTimer.arm(at: due) { log.error("idle timer: \(e)") }
        }
    }

    /// Subscribed to no gesture or touch line, and holding no regions (a connection that set
    /// regions is there to keep them: `touchgesturectl regions set` waits quietly).
    func takesNothing(_ client: Client, in state: borrowing FrameState) -> Bool {
        let s = state.fanout.subscribers[client.slot].subscription
        return !s.gestures && !s.touches && client.ownedRegions.isEmpty
    }

    /// The idle timer fired: clients that took no lines and sent nothing for the limit are told
    /// and closed; the timer is armed again for the next one that could be.
    func closeIdle(_ state: inout FrameState) {
        idleTimer.acknowledge()
        guard settings.idleNs > 0 else { return }
        let now = monotonicNanoseconds()
        var next: Int64?
        for c in allClients where takesNothing(c, in: state) && !c.closed {
            // Requests waiting for their turn, their user's time or the client's reading of its
            // answers are no idleness.
            let waiting = c.readSide != .ready || queued(c, in: state) > settings.outputBufferBytes
            let due = waiting ? now + settings.idleNs : c.lastRequestAt + settings.idleNs
            guard due <= now else {
                next = min(next ?? due, due)
                continue
            }
            closedIdle += 1
            var w = JSONLineWriter(capacity: 256)
            let seconds = Double(settings.idleNs) / 1e9
            Messages.error(
                &w, id: nil, code: .idleTimeout,
                message: "no request for \(seconds) s and subscribed to nothing ([daemon] idle_timeout_ms); closing")
            state.fanout.reply(w.bytes[...], to: c.slot)
            state.fanout.write(c.slot)
            disconnect(c, reason: "idle for \(seconds) s with no subscription", &state)
        }
        if let e = idleTimer.arm(at: next) { log.error("idle timer: \(e)") }
    }
}
