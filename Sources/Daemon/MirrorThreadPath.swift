import GestureEngine
import Logging
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

/// The thread's path for a read (`MirrorThread`): decoded, each frame shown on the mirror while
/// the thread shows frames, one write a read; and the resynchronization after lost events.
extension MirrorThread {
    /// After a SYN_DROPPED (the read that carried it relayed, so the loop waits for the state):
    /// the panel's queue drained, the kernel's state taken into the thread's decoder and the
    /// mirror, then relayed to the loop. False when the panel or the loop's end went.
    func resynchronize(_ panel: Int32, relay: Int32, buffer: EventReadBuffer, owed: inout Bool) -> Bool {
        drain: while true {
            switch try? EvdevDevice.readBatch(panel, into: buffer, "read(\(node))", decode: { _ in false }) {
            case .full?: continue
            case .drained?, .dropped?: break drain
            case .removed?, nil: return false
            }
        }
        guard let state = try? EvdevDevice.kernelState(panel, slots: slots, node) else { return false }
        InputBatch.lending(kernel: state.map(KernelInputEvent.init(_:)), resynced: true) { batch in
            _ = shared.withLock { $0.take(batch, thread: self) }
        }
        log.notice("\(node): events dropped (SYN_DROPPED); resynchronized with the kernel's state")
        switch Relay.send(state, to: relay) {
        case .done: return true
        case .wouldBlock:
            owed = true
            return true
        case .removed, .failed: return false
        }
    }
}

extension MirrorThread.Shared {
    /// A read through the thread's decoder, each frame it ends shown while the thread shows
    /// frames, in one write; true when it stopped at a SYN_DROPPED (the rest is stale).
    mutating func take(_ batch: InputBatch, thread: MirrorThread) -> Bool {
        guard !stopped else { return false }
        if batch.resynced { decoder.markDiscontinuity() }
        let events = batch.kernelEvents.span
        var i = 0
        var whole = true
        var shown = false
        var lost = false
        while i < events.count {
            whole = decoder.feed(events, from: &i)
            if whole {
                if frameMade(thread) { shown = true }
            } else if decoder.lostEvents {
                lost = true
                break
            }
        }
        midFrame = !whole && !lost
        if shown { flush(thread) }
        return lost
    }

    /// The filters' own frame due at `due` (a held lift, a young contact), shown as a read's.
    mutating func tick(at due: Timestamp, thread: MirrorThread) {
        guard !stopped, !midFrame, decoder.tick(at: due) else { return }
        if frameMade(thread) { flush(thread) }
    }

    /// The decoder ended a frame: a landing that may wake the kiosk is left to the loop (asleep,
    /// or after a pause where the displays may be dark: `WakeStage`'s test); else, while the loop
    /// says so, the frame goes to the mirror. Whether it did.
    private mutating func frameMade(_ thread: MirrorThread) -> Bool {
        let now = decoder.frame.time.nanoseconds
        if decoder.landed && !decoder.hadContacts {
            let quiet = lastFrameAt.map { now - $0 >= DisplayWatch.quietNanoseconds } ?? true
            if thread.wake.asleep.load(ordering: .relaxed) || (quiet && thread.wake.watchesDisplay.load(ordering: .relaxed)) {
                thread.loopShows.store(true, ordering: .releasing)
            }
        }
        lastFrameAt = now
        guard thread.ahead.load(ordering: .relaxed), !thread.loopShows.load(ordering: .relaxed) else { return false }
        mirror.frame(aheadOf: decoder, stuck: &stuck, now: now)
        return true
    }

    /// The frames made, in one write; a failure logged as the loop logs its own (throttled).
    private mutating func flush(_ thread: MirrorThread) {
        guard mirror.flush(), let (error, count) = mirror.failures.take() else { return }
        thread.log.warning("\(thread.node): its virtual touchscreen's write failed (\(count) so far): \(error)")
    }
}
