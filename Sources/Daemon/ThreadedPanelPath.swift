import GestureEngine
import Logging
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

/// The input thread's path for one panel (`ThreadedPanel`): a read decoded, each frame shown on
/// the mirror in one write, the read relayed to the loop; the resynchronization after lost events.
extension ThreadedPanel {
    /// One read of the panel (epoll said it is ready) down the path; false when the panel or the
    /// loop's end went (then the loop's end reads the end of the relay, and the loop lets the panel go).
    func read(into buffer: EventReadBuffer) -> Bool {
        var relayed = true
        let end: EvdevDevice.BatchEnd
        do throws(EvdevError) {
            end = try EvdevDevice.readBatch(panelFD, into: buffer, "read(\(node))") { batch in
                trace?.noteRead()
                let (lost, owed) = shared.withLock { s in (s.take(batch, panel: self), s.owed) }
                relayed = relay(batch, owed: owed)
                return lost
            }
        } catch {
            // As the loop drops a panel: gone, or the third failure in a row.
            let failures = shared.withLock {
                $0.failures += 1
                return $0.failures
            }
            log.warning("\(node): \(error)")
            return error.isRemoval || failures >= 3 ? ended() : true
        }
        shared.withLock { $0.failures = 0 }
        if end == .removed || !relayed { return ended() }
        if end == .dropped && !resynchronize(buffer) { return ended() }
        return true
    }

    /// The panel's reads end here: the loop reads the end of the relay.
    private func ended() -> Bool {
        Posix.shutdownSending(relayFD)
        return false
    }

    /// Passes a read on to the loop; false when the loop's end is gone. A read the loop could
    /// not take (its socket full: the loop far behind) is owed: the next goes as lost events and
    /// the kernel's state instead, as the kernel itself would tell it.
    private func relay(_ batch: InputBatch, owed: Bool) -> Bool {
        if owed { return sendState(dropped: true) }
        switch Relay.send(batch, to: relayFD) {
        case .done: return true
        case .wouldBlock:
            shared.withLock { $0.owed = true }
            return true
        case .removed, .failed: return false
        }
    }

    /// The kernel's state to the loop (after a lone SYN_DROPPED when `dropped`); false when the
    /// loop's end is gone.
    private func sendState(dropped: Bool) -> Bool {
        guard let state = try? EvdevDevice.kernelState(panelFD, slots: slots, node) else { return true }
        if dropped {
            let marker = InputEvent(time: Timestamp(nanoseconds: Posix.monotonicNanoseconds()), type: Evdev.EV_SYN, code: Evdev.SYN_DROPPED, value: 0)
            switch Relay.send([marker], to: relayFD) {
            case .done: break
            case .wouldBlock: return true
            case .removed, .failed: return false
            }
        }
        switch Relay.send(state, to: relayFD) {
        case .done:
            shared.withLock { $0.owed = false }
            return true
        case .wouldBlock:
            shared.withLock { $0.owed = true }
            return true
        case .removed, .failed: return false
        }
    }

    /// After a SYN_DROPPED (the read that carried it relayed, so the loop waits for the state):
    /// the panel's queue drained, the kernel's state taken into the thread's decoder and the
    /// mirror, then relayed to the loop. False when the panel or the loop's end went.
    private func resynchronize(_ buffer: EventReadBuffer) -> Bool {
        drain: while true {
            switch try? EvdevDevice.readBatch(panelFD, into: buffer, "read(\(node))", decode: { _ in false }) {
            case .full?: continue
            case .drained?, .dropped?: break drain
            case .removed?, nil: return false
            }
        }
        guard let state = try? EvdevDevice.kernelState(panelFD, slots: slots, node) else { return false }
        InputBatch.lending(kernel: state.map(KernelInputEvent.init(_:)), resynced: true) { batch in
            _ = shared.withLock { $0.take(batch, panel: self) }
        }
        // (The loop logs it, as it routes the state.)
        return sendState(dropped: false)
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
        midFrame = !whole && !lost
        if shown { flush(panel) }
        return lost
    }

    /// The filters' own frames due by `now` (a held lift, a young contact), shown as a read's.
    mutating func ticks(before now: Timestamp, panel: ThreadedPanel) {
        var shown = false
        while !stopped, !midFrame, let due = decoder.nextTick, due <= now, decoder.tick(at: due) {
            if frameMade(panel) { shown = true }
        }
        if shown { flush(panel) }
    }

    /// The decoder ended a frame: a landing that wakes the kiosk (`WakeStage`'s test: asleep, or
    /// the displays dark after a pause) swallows its sequence on the mirror, noted for the loop;
    /// then, while the loop says so, the frame goes to the mirror. Whether it did.
    private mutating func frameMade(_ panel: ThreadedPanel) -> Bool {
        let now = decoder.frame.time.nanoseconds
        if decoder.landed { wakeIfAsleep(panel.wake, now: now) }
        lastFrameAt = now
        guard !stopped, panel.ahead.load(ordering: .relaxed) else { return false }
        mirror.frame(aheadOf: decoder, stuck: &stuck, now: now)
        return true
    }

    private mutating func wakeIfAsleep(_ flags: WakeFlags, now: Int64) {
        let quiet = lastFrameAt.map { now - $0 >= DisplayWatch.quietNanoseconds } ?? true
        let dark = !decoder.hadContacts && quiet && !flags.asleep.load(ordering: .relaxed) && flags.displayIsDark()
        guard dark || flags.asleep.exchange(false, ordering: .acquiringAndReleasing) else { return }
        flags.asleep.store(false, ordering: .relaxed)
        mirror.swallowNewTouches()
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
