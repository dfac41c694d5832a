import GestureEngine
import Logging
import Synchronization
import SystemCalls
import TouchFrames
import TouchInput
import TouchMirror

/// What the loop's wake watch shares with the input thread (`WakeWatch` keeps them here): the
/// kiosk sleeps (`[idle] after`), and the displays watched for darkness (`[idle] display`).
final class WakeFlags: Sendable {
    let asleep = Atomic<Bool>(false)
    let display = Mutex<DisplayWatch?>(nil)

    /// The displays read dark now (sysfs, read fresh); false when none is watched.
    func displayIsDark() -> Bool { display.withLock { $0?.isDark() == true } }
}

/// What a live panel's mirror is made of (its screen, its description, how it ends a touch, its
/// geometry, whether the screen was taken back from the store): made into the `Mirror` inside
/// the panel's lock, so no one else holds it.
struct MirrorParts: Sendable {
    let screen: any TouchSink & Sendable
    let described: DeviceDescription
    let cancel: MirrorCancel
    let geometry: MirrorGeometry?
    let adopted: Bool
}

extension Mirror {
    /// The mirror made of `parts`.
    init(_ parts: MirrorParts) {
        self.init(screen: parts.screen, described: parts.described, cancel: parts.cancel, geometry: parts.geometry, adopted: parts.adopted)
    }
}

/// A pass-through panel read by the input thread (`InputThread`): its descriptor of the panel,
/// a decoder of its own (a copy of the loop's, given every read the loop gets, so the two stay in
/// step), its mirror, and the relay (`Relay`, a socket pair) that passes each read on to the loop,
/// which reads its end (`loopEnd`) in the panel's place. The thread shows each frame on the mirror
/// while the loop says the engine decides nothing of it (`ahead`); otherwise the loop writes the
/// mirror itself, through the lock. The thread decides touch to wake for the panel (it reads the
/// landing first): it swallows the sequence on the mirror and notes it for the loop's wake stage.
final class ThreadedPanel: Sendable {
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
        /// A message the loop could not take (its socket full): lost events are owed to it (the
        /// kernel's state, sent once there is room), since when (monotonic ns).
        var owed = false
        var owedSince: Int64?
        /// Resyncs sent so far, and copies of the decoder from before the newest (at most 8),
        /// each taken by the loop as it routes that resync (`takeSnapshot`).
        var resyncs: Int32 = 0
        var snapshots: [(number: Int32, decoder: FrameDecoder)] = []
        /// Failed reads in a row (the third drops the panel, as the loop's reads do).
        var failures = 0
        /// The landings that woke the kiosk (their frames' times, and whether on a dark display),
        /// each taken by the loop's wake stage when it routes that frame (at most 16 kept).
        var wakes: [(at: Int64, inTheDark: Bool)] = []
    }

    let shared: Mutex<Shared>
    /// The loop's say, kept as it changes: the engine takes and holds nothing of the contacts.
    let ahead = Atomic<Bool>(false)
    /// The last frame the thread showed (its decoder's `frameCount`, the loop's the same frame
    /// for frame): the loop, writing the mirror once the engine may take contacts, shows none of
    /// those again.
    let shownThrough = Atomic<Int>(-1)
    let wake: WakeFlags
    /// The thread's own descriptor of the panel, the relay's two ends (closed with this object).
    let panelFD: Int32
    let relayFD: Int32
    let loopEnd: Int32
    let node: String
    let slots: Int
    let log: Logger
    let trace: HopTrace?

    /// The panel read on `panel` (a descriptor of the thread's own is made), with `decoder` (a
    /// copy of the loop's), the mirror made of `parts`, and the loop's say at the start (`ahead`:
    /// set before the thread reads, which may be at once).
    init(
        panel: Int32, node: String, slots: Int, decoder: FrameDecoder, mirror parts: MirrorParts, ahead: Bool, wake: WakeFlags, log: Logger,
        trace: HopTrace?
    ) throws(SystemCallError) {
        let pair = try Posix.sequentialPacketPair().get()
        let own = try Posix.duplicate(panel).get()
        (loopEnd, relayFD) = pair.release()
        panelFD = own.release()
        var decoder = decoder
        decoder.keepsPanel = true
        decoder.feedsEngine = false
        shared = Mutex(Shared(decoder: decoder, mirror: Mirror(parts)))
        self.ahead.store(ahead, ordering: .relaxed)
        self.wake = wake
        self.node = node
        self.slots = slots
        self.log = log
        self.trace = trace
    }

    deinit {
        Posix.close(panelFD)
        Posix.close(relayFD)
        Posix.close(loopEnd)
    }

    /// The loop lets the panel go: the thread writes nothing more to its mirror.
    func stop() { shared.withLock { $0.stopped = true } }

    /// A reload gave the panel a new decoder (`fresh`, the loop's, before it went on from the
    /// old): the thread's goes on from its own old one here, between two reads, and a mark in the
    /// relay tells the loop where, so its own goes on from the same place. False when the mark
    /// could not go (the relay full: the loop then takes the thread's decoder at the resync).
    func replaceDecoder(with fresh: FrameDecoder) -> Bool {
        shared.withLock {
            var decoder = fresh
            decoder.keepsPanel = true
            decoder.feedsEngine = false
            decoder.continueFrom($0.decoder)
            $0.decoder = decoder
            guard !$0.owed else { return false }
            let sent = Relay.sendSwap(to: relayFD)
            if case .done = sent { return true }
            $0.note(sent, self)
            return false
        }
    }

    /// How often a resync owed to the loop is tried again.
    static let retryNanoseconds: Int64 = 10_000_000

    /// When the thread must act for this panel without a read: the filters' next frame of their
    /// own (none mid-frame), or the next try of a resync owed to the loop; nil once stopped.
    var nextTick: Timestamp? {
        shared.withLock { s in
            guard !s.stopped else { return nil }
            let tick = s.midFrame ? nil : s.decoder.nextTick
            guard let since = s.owedSince else { return tick }
            let retry = Timestamp(nanoseconds: since + Self.retryNanoseconds)
            return tick.map { min($0, retry) } ?? retry
        }
    }

    /// The filters' own frames due by `now`, each shown as a read's.
    func tick(before now: Timestamp) { shared.withLock { $0.ticks(before: now, panel: self) } }
}
