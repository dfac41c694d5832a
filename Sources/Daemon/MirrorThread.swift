import GestureEngine
import Logging
import Synchronization
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

#if canImport(Glibc)
    import Glibc
#endif

/// What the loop's wake watch shares with the panels' threads (`WakeWatch` sets them): the kiosk
/// sleeps (`[idle] after`), and a touch after a pause may find the displays dark (`[idle] display`).
final class WakeFlags: Sendable {
    let asleep = Atomic<Bool>(false)
    let watchesDisplay = Atomic<Bool>(false)
}

/// What a live panel's mirror is made of (its screen, its description, how it ends a touch,
/// its geometry, whether the screen was taken back from the store): made into the `Mirror` on
/// the panel's thread's side, so no one else holds it.
struct MirrorParts: Sendable {
    let screen: any TouchSink & Sendable
    let described: DeviceDescription
    let cancel: MirrorCancel
    let geometry: MirrorGeometry?
    let adopted: Bool
}

/// A pass-through panel's own thread (the read → filter → mirror path, ahead of the loop): it
/// reads the panel, decodes each read with a decoder of its own (a copy of the loop's, given
/// every read the loop gets, so the two stay in step), writes the mirror's frames at once while
/// the engine takes and holds nothing of the panel's contacts (`ahead`, the loop's say), and then
/// relays the read to the loop (`Relay`: a message on a socket pair), where the engine and every
/// other consumer take it as a read of the panel. So the app's touch waits neither for the
/// engine's work on the frame before nor for anything else the loop does. The loop writes the
/// mirror itself, through the lock, while the engine may take or hold contacts, and for a
/// landing that may wake the kiosk (the loop's wake stage decides, and swallows it).
final class MirrorThread: Sendable {
    /// What the thread and the loop share, behind the lock.
    struct Shared {
        /// The thread's decoder: a copy of the loop's, fed the same reads.
        var decoder: FrameDecoder
        var mirror: Mirror
        /// The loop let the panel go (removed, or the daemon stops): the thread writes no more.
        var stopped = false
        /// The thread's last frame (monotonic ns): a landing long after it may wake the kiosk.
        var lastFrameAt: Int64?
        /// The last read ended inside a frame: no frame of the filters' own until it is whole.
        var midFrame = false
        /// Room for the contacts the filters ended as stuck, kept (no frame allocates).
        var stuck: [UInt32] = []
    }

    let shared: Mutex<Shared>
    /// The loop's say, kept as it changes: the engine takes and holds nothing of the contacts.
    let ahead = Atomic<Bool>(false)
    /// A landing that may wake the kiosk was left to the loop, which shows the frames until that
    /// sequence ends (set by the thread, cleared by the loop).
    let loopShows = Atomic<Bool>(false)
    let wake: WakeFlags
    let node: String
    let slots: Int
    let log: Logger
    private let trace: HopTrace?

    /// The relay's end the loop reads, in the panel's place (closed with this object).
    let loopEnd: Int32

    private init(_ shared: consuming sending Shared, wake: WakeFlags, node: String, slots: Int, log: Logger, trace: HopTrace?, loopEnd: Int32) {
        self.shared = Mutex(shared)
        self.loopEnd = loopEnd
        self.wake = wake
        self.node = node
        self.slots = slots
        self.log = log
        self.trace = trace
    }

    /// Starts the thread for the panel read on `panel` (a descriptor of its own is made for the
    /// thread); the loop reads the relay's end (`loopEnd`) in the panel's place.
    static func start(
        panel: Int32, node: String, slots: Int, decoder: FrameDecoder, mirror parts: MirrorParts, wake: WakeFlags, log: Logger,
        trace: HopTrace?
    ) -> Result<MirrorThread, SystemCallError> {
        let pair: DescriptorPair
        let own: Descriptor
        switch Posix.sequentialPacketPair() {
        case .success(let p): pair = p
        case .failure(let e): return .failure(e)
        }
        switch Posix.duplicate(panel) {
        case .success(let d): own = d
        case .failure(let e): return .failure(e)
        }
        let (loopEnd, relay) = pair.release()
        let panelFD = own.release()
        let thread = MirrorThread(
            Shared(decoder: decoder, mirror: mirror(parts)), wake: wake, node: node, slots: slots, log: log, trace: trace, loopEnd: loopEnd)
        if let e = Threads.start(named: "touchgestured-p", { thread.run(panel: panelFD, relay: relay) }) {
            Posix.close(panelFD)
            Posix.close(relay)
            return .failure(e)  // (the thread object closes the loop's end)
        }
        return .success(thread)
    }

    deinit { Posix.close(loopEnd) }

    private static func mirror(_ p: MirrorParts) -> Mirror {
        Mirror(screen: p.screen, described: p.described, cancel: p.cancel, geometry: p.geometry, adopted: p.adopted)
    }

    /// The loop lets the panel go (it went, the configuration ignores it, the daemon stops): the
    /// thread writes nothing more, and ends (revoking the panel's access, `panel` being the loop's
    /// descriptor of it, wakes the thread and fails its reads).
    func stop(revoking panel: Int32) {
        shared.withLock { $0.stopped = true }
        _ = EvdevDevice.revoke(panel)
    }

    /// A reload gave the panel a new decoder (`fresh`, the loop's, before it went on from the
    /// old): the thread's goes on from its own old one, as the loop's does.
    func replaceDecoder(with fresh: FrameDecoder) {
        shared.withLock {
            var decoder = fresh
            decoder.keepsPanel = true
            decoder.continueFrom($0.decoder)
            $0.decoder = decoder
        }
    }

    private enum Wait {
        case readable
        case tick(Timestamp)
        case end
    }

    /// The thread: until the panel goes, the loop stops it, or the loop's end of the relay closes.
    private func run(panel: Int32, relay relayFD: Int32) {
        defer {
            Posix.close(panel)
            Posix.close(relayFD)
        }
        let buffer = EventReadBuffer(capacity: Relay.readCapacity)
        var owed = false
        var failures = 0
        while true {
            switch wait(on: panel) {
            case .end: return
            case .tick(let due): shared.withLock { $0.tick(at: due, thread: self) }
            case .readable:
                var lost = false
                var relayed = true
                do throws(EvdevError) {
                    let end = try EvdevDevice.readBatch(panel, into: buffer, "read(\(node))") { batch in
                        trace?.noteRead()
                        lost = shared.withLock { $0.take(batch, thread: self) }
                        relayed = relay(batch, panel: panel, to: relayFD, owed: &owed)
                        return lost
                    }
                    failures = 0
                    if end == .removed || !relayed { return }
                    if end == .dropped && !resynchronize(panel, relay: relayFD, buffer: buffer, owed: &owed) { return }
                } catch {
                    // As the loop drops a panel: gone, or the third failure in a row.
                    failures += 1
                    log.warning("\(node): \(error)")
                    if error.isRemoval || failures >= 3 { return }
                }
            }
        }
    }

    /// Waits for the panel, or for the filters' own frame when one is due first.
    private func wait(on panel: Int32) -> Wait {
        let (stopped, due) = shared.withLock { s -> (Bool, Timestamp?) in (s.stopped, s.midFrame ? nil : s.decoder.nextTick) }
        if stopped { return .end }
        var timeout: Int32 = -1
        if let due {
            let left = due.nanoseconds - Posix.monotonicNanoseconds()
            guard left > 0 else { return .tick(due) }
            timeout = Int32(clamping: (left + 999_999) / 1_000_000)
        }
        switch Posix.poll(panel, events: Int16(POLLIN), timeoutMs: timeout) {
        case .success(0): return due.map { .tick($0) } ?? .readable
        case .success: return .readable
        case .failure(let e):
            log.warning("\(node): \(e)")
            return .end
        }
    }

    /// Passes a read on to the loop; false when the loop's end is gone. A read the loop could
    /// not take (its socket full: the loop far behind) is owed: the next read goes as lost
    /// events and the kernel's state instead, as the kernel itself would tell it.
    private func relay(_ batch: InputBatch, panel: Int32, to fd: Int32, owed: inout Bool) -> Bool {
        if owed { return sendState(of: panel, to: fd, owed: &owed, dropped: true) }
        switch Relay.send(batch, to: fd) {
        case .done: return true
        case .wouldBlock:
            owed = true
            return true
        case .removed, .failed: return false
        }
    }

    /// The kernel's state of `panel` to the loop (after a lone SYN_DROPPED when `dropped`); false
    /// when the loop's end is gone.
    func sendState(of panel: Int32, to fd: Int32, owed: inout Bool, dropped: Bool) -> Bool {
        guard let state = try? EvdevDevice.kernelState(panel, slots: slots, node) else { return true }
        if dropped {
            let marker = InputEvent(time: Timestamp(nanoseconds: Posix.monotonicNanoseconds()), type: Evdev.EV_SYN, code: Evdev.SYN_DROPPED, value: 0)
            switch Relay.send([marker], to: fd) {
            case .done: break
            case .wouldBlock: return true
            case .removed, .failed: return false
            }
        }
        switch Relay.send(state, to: fd) {
        case .done: owed = false
        case .wouldBlock: owed = true
        case .removed, .failed: return false
        }
        return true
    }
}
