import GestureEngine
import Logging
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

#if canImport(Glibc)
    import Glibc
#endif

/// The input thread's path for one panel (`ThreadedPanel`): a read decoded, each frame shown on
/// the mirror in one write, the read relayed to the loop, all in one hold of the panel's lock (so
/// the loop sees the reads, the filters' frames and the lost events in the thread's order); the
/// resynchronization after lost events, the kernel's or the relay's.
extension ThreadedPanel {
    /// What a read of the panel came to.
    enum ReadEnd {
        /// Events, down the path.
        case read
        /// None: the queue was empty (a non-blocking read, or a blocking one the wake signal
        /// ended: `InputThread`).
        case empty
        /// The panel or the loop's end went: the loop reads the end of the relay and lets the
        /// panel go.
        case ended
    }

    /// One read of the panel (epoll said it is ready, or the thread blocks in it) down the path.
    func read(into buffer: EventReadBuffer) -> ReadEnd {
        var going = true
        var got = false
        let end: EvdevDevice.BatchEnd
        do throws(EvdevError) {
            end = try EvdevDevice.readBatch(panelFD, into: buffer, "read(\(node))") { batch in
                got = true
                trace?.noteRead(batch)
                return shared.withLock { s in
                    let lost = s.take(batch, panel: self)
                    going = s.relay(batch, upToTheDrop: lost, panel: self)
                    if lost && going { going = s.resynchronize(self, drain: true) }
                    return lost
                }
            }
        } catch {
            // As the loop drops a panel: gone, or the third failure in a row.
            let failures = shared.withLock {
                $0.failures += 1
                return $0.failures
            }
            log.warning("\(node): \(error)")
            return error.isRemoval || failures >= 3 ? ended() : .read
        }
        shared.withLock { $0.failures = 0 }
        guard end != .removed && going else { return ended() }
        return got ? .read : .empty
    }

    /// The panel's reads end here: the loop reads the end of the relay.
    private func ended() -> ReadEnd {
        Posix.shutdownSending(relayFD)
        return .ended
    }
}

extension ThreadedPanel.Shared {
    /// A read through the thread's decoder, each frame it ends shown while the thread shows
    /// frames, in one write; true when it stopped at a SYN_DROPPED (the rest is stale).
    mutating func take(_ batch: InputBatch, panel: ThreadedPanel) -> Bool {
        if batch.resynced { decoder.markDiscontinuity() }
        let events = batch.kernelEvents.span
        var i = 0
        var whole = true
        var shown = false
        var lost = false
        while i < events.count {
            whole = decoder.feed(events, from: &i)
            if whole {
                if frameMade(panel) { shown = true }
            } else if decoder.lostEvents {
                lost = true
                break
            }
        }
        midFrame = !whole && !lost && !decoder.betweenFrames
        if shown { flush(panel) }
        return lost
    }

    /// The filters' own frames due by `now` (a held lift, a young contact), shown as a read's and
    /// each told to the loop at its place among the reads; a resync owed to the loop, sent.
    mutating func ticks(before now: Timestamp, panel: ThreadedPanel) {
        var shown = false
        while !stopped, !midFrame, let due = decoder.nextTick, due <= now, decoder.tick(at: due) {
            if frameMade(panel) { shown = true }
            if !owed { note(Relay.sendTick(at: due, to: panel.relayFD), panel) }
        }
        if shown { flush(panel) }
        if owed && !stopped, let at = owedSince, Posix.monotonicNanoseconds() - at >= ThreadedPanel.retryNanoseconds,
            !resynchronize(panel, drain: false)
        {
            // The panel went: no more tries (its read ends it).
            (owed, owedSince) = (false, nil)
        }
    }

    /// A read to the loop (up to its SYN_DROPPED when `upToTheDrop`: the rest is stale), unless
    /// a resync is owed (it goes instead, at the next chance). False when the loop's end is gone.
    mutating func relay(_ batch: InputBatch, upToTheDrop: Bool, panel: ThreadedPanel) -> Bool {
        // (Stopped: the loop reads the relay no more; a read the wake came too late for.)
        guard !owed && !stopped else { return true }
        return note(Relay.send(batch, upToTheDrop: upToTheDrop, to: panel.relayFD), panel)
    }

    /// A send's outcome: the loop's end gone (false), or full (a resync is owed: it goes once
    /// there is room, or the relay tried again, and the loop takes the kernel's state then).
    @discardableResult
    mutating func note(_ io: Posix.IO, _ panel: ThreadedPanel) -> Bool {
        switch io {
        case .done: return true
        case .failed(let e) where e.errno == .brokenPipe || e.errno == .connectionReset: return false
        case .wouldBlock, .removed, .failed:
            (owed, owedSince) = (true, Posix.monotonicNanoseconds())
            return true
        }
    }

    /// Lost events, the kernel's (`drain`: the panel's queue is stale, drained and dropped, at
    /// most 64 reads: a flood is cut there) or the loop's (messages it could not take): the
    /// kernel's state sent to the loop as one message (SYN_DROPPED, its value this resync's
    /// number, then the state), and taken into the thread's decoder and the mirror. The loop
    /// takes the same state from a copy of this decoder as it stands before it (`snapshots`):
    /// its own may be behind. A message that finds the relay full is tried again 10 ms on.
    /// False when the panel or the loop's end went.
    mutating func resynchronize(_ panel: ThreadedPanel, drain: Bool) -> Bool {
        if drain {
            // A thread blocking in its reads (`InputThread`) made the descriptor blocking: a
            // drain ending on a full read would wait there, holding the lock. It finds the
            // descriptor non-blocking at its next read, and makes it blocking again.
            _ = ReadWake.setBlocking(panel.panelFD, false)
            let room = EventReadBuffer(capacity: Relay.readCapacity)
            for _ in 0..<64 {
                guard case .full? = try? EvdevDevice.readBatch(panel.panelFD, into: room, "read(\(panel.node))", decode: { _ in false }) else { break }
            }
        }
        let state: [InputEvent]
        do throws(EvdevError) {
            guard let s = try EvdevDevice.kernelState(panel.panelFD, slots: panel.slots, panel.node) else { return false }
            state = s
        } catch {
            // Not gone, not read now: tried again 10 ms on, as a full relay is.
            (owed, owedSince) = (true, Posix.monotonicNanoseconds())
            return true
        }
        let kernel = state.map(KernelInputEvent.init(_:))
        resyncs &+= 1
        let mark = InputEvent(time: state.last?.time ?? Timestamp(nanoseconds: 0), type: Evdev.EV_SYN, code: Evdev.SYN_DROPPED, value: resyncs)
        let sent = Relay.send([KernelInputEvent(mark)] + kernel, to: panel.relayFD)
        switch sent {
        case .done:
            if snapshots.count >= 8 { snapshots.removeFirst() }
            snapshots.append((resyncs, decoder))
            (owed, owedSince) = (false, nil)
        case .failed(let e) where e.errno == .brokenPipe || e.errno == .connectionReset: return false
        default:
            (owed, owedSince) = (true, Posix.monotonicNanoseconds())
            // Not sent: only the kernel's drop is the thread's to take now (the loop's goes later).
            guard drain else { return true }
        }
        _ = InputBatch.lending(kernel: kernel, resynced: true) { take($0, panel: panel) }
        return true
    }

    /// The copy of the thread's decoder from before resync `number`, for the loop (taken once).
    mutating func takeSnapshot(_ number: Int32) -> FrameDecoder? {
        guard let i = snapshots.firstIndex(where: { $0.number == number }) else { return nil }
        let decoder = snapshots[i].decoder
        snapshots.removeSubrange(...i)
        return decoder
    }

    /// The decoder ended a frame: a landing that wakes the kiosk (`WakeStage`'s test: asleep, or
    /// the displays dark after a pause) swallows its sequence on the mirror, noted for the loop;
    /// then, while the loop says so, the frame goes to the mirror. Whether it did.
    private mutating func frameMade(_ panel: ThreadedPanel) -> Bool {
        let now = decoder.frame.time.nanoseconds
        if decoder.landed { wakeIfAsleep(panel, now: now) }
        lastFrameAt = now
        guard !stopped, panel.ahead.load(ordering: .relaxed) else { return false }
        mirror.frameAhead(
            decoder.panel, others: decoder.others, discontinuity: decoder.frame.discontinuity, stuck: decoder.contactsEndedAsStuck, now: now)
        panel.shownThrough.store(decoder.frameCount, ordering: .relaxed)
        return true
    }

    private mutating func wakeIfAsleep(_ panel: ThreadedPanel, now: Int64) {
        let flags = panel.wake
        let quiet = lastFrameAt.map { now - $0 >= DisplayWatch.quietNanoseconds } ?? true
        let dark = !decoder.hadContacts && quiet && !flags.asleep.load(ordering: .relaxed) && flags.displayIsDark()
        guard dark || flags.asleep.exchange(false, ordering: .acquiringAndReleasing) else { return }
        flags.asleep.store(false, ordering: .relaxed)
        // Shown by the thread: swallowed here. Else the loop shows the frames, behind these, and
        // swallows it as it routes this one (`RouteDevice.swallowThreadedSequence`).
        if panel.ahead.load(ordering: .relaxed) { mirror.swallowNewTouches() }
        if wakes.count >= 16 { wakes.removeFirst() }
        wakes.append((now, dark))
    }

    /// The wake the thread noted for the frame at `time` (the loop routes it), taken; older ones
    /// (frames the loop never routed) go.
    mutating func takeWake(at time: Int64) -> (at: Int64, inTheDark: Bool)? {
        while let first = wakes.first, first.at <= time {
            wakes.removeFirst()
            if first.at == time { return first }
        }
        return nil
    }

    /// The frames made, in one write; a failure logged (throttled, as the loop logs its own).
    private mutating func flush(_ panel: ThreadedPanel) {
        guard mirror.flush(), let (error, count) = mirror.failures.take() else { return }
        panel.log.warning("\(panel.node): its virtual touchscreen's write failed (\(count) so far): \(error)")
    }
}
