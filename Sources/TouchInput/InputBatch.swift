import GestureEngine
import TouchFrames

/// Events as a reader hands them on: one `read(2)`'s worth, valid during the call only. A live
/// device's come in the kernel's layout (`kernelEvents`), a replay's and a resync's decoded
/// (`events`); one of the two is empty.
///
/// It lives here, beside the reads that fill it: it is a view of the reader's buffer (a
/// pointer and a count, valid during the `deliver` call only), which a Swift 6.3 value cannot
/// hold as a `Span` without lifetime annotations. Those who decode it take `events.span` and
/// `kernelEvents.span` (the decoder, the mirror: `Span`s only).
// Safe: (Sendable) a view lent for one call, never stored nor passed to another thread; a
// reader's lock may take it (`ThreadedPanel`), in the same call, on the same thread.
public struct InputBatch: @unchecked Sendable {
    // Safe: a batch is made only around a `deliver` call and never stored (see the type's comment).
    public let events: UnsafeBufferPointer<InputEvent>
    public let kernelEvents: UnsafeBufferPointer<KernelInputEvent>
    /// Events were lost before this batch (SYN_DROPPED) and it carries the kernel's state as it
    /// is now: the frame it ends with is a discontinuity (what was under way is cancelled).
    public let resynced: Bool

    // Safe: the caller's buffer, valid for the call in which the batch lives.
    public init(_ events: UnsafeBufferPointer<InputEvent>, resynced: Bool = false) {
        self.events = events
        kernelEvents = UnsafeBufferPointer(start: nil, count: 0)
        self.resynced = resynced
    }

    // Safe: as `init(_:resynced:)`.
    public init(kernel events: UnsafeBufferPointer<KernelInputEvent>, resynced: Bool = false) {
        self.events = UnsafeBufferPointer(start: nil, count: 0)
        kernelEvents = events
        self.resynced = resynced
    }

    /// `events` lent to `body` as a batch (a replay's due events, a resync's state).
    public static func lending<R>(_ events: [InputEvent], resynced: Bool = false, _ body: (InputBatch) -> R) -> R {
        // Safe: the array is lent for `body`, which the batch does not outlive.
        events.withUnsafeBufferPointer { body(InputBatch($0, resynced: resynced)) }
    }

    /// `events`, in the kernel's layout, lent to `body` as a live read's batch (a rehearsal's).
    public static func lending<R>(kernel events: [KernelInputEvent], resynced: Bool = false, _ body: (InputBatch) -> R) -> R {
        // Safe: the array is lent for `body`, which the batch does not outlive.
        events.withUnsafeBufferPointer { body(InputBatch(kernel: $0, resynced: resynced)) }
    }

    /// How many events the batch holds.
    public var count: Int { events.count + kernelEvents.count }

    /// Every event, decoded (for a recorder that keeps them).
    public var decoded: [InputEvent] { Array(events) + kernelEvents.map(\.event) }
}

/// A buffer that reads of input devices go into, allocated once for its owner's life (the daemon
/// reads every device into one): `EvdevDevice.readBatch` lends it to a batch at a time.
public final class EventReadBuffer {
    // Safe: allocated once, freed in deinit; `readBatch` reads at most its count.
    let events: UnsafeMutableBufferPointer<KernelInputEvent>

    public init(capacity: Int) { events = .allocate(capacity: capacity) }

    deinit { events.deallocate() }
}
