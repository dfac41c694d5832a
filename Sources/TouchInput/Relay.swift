import GestureEngine
import SystemCalls
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// A panel's reads passed from the input thread to the loop (`ThreadedPanel`): each read one
/// message on a SOCK_SEQPACKET pair, in the kernel's layout, so the loop reads the relay's end as
/// it would the panel (`EvdevDevice.readBatch`). Two other messages keep the loop's decoder in
/// step with the thread's: the filters' own frame at a time (`sendTick`), and lost events, a
/// message of SYN_DROPPED then the kernel's state (`kind`, `state`).
public enum Relay {
    /// A thread's read is at most this many events, so a message fits the loop's read buffer.
    public static let readCapacity = 256
    /// A resync message's most events: SYN_DROPPED, every slot's five, and the five after them.
    public static let stateCapacity = 5 * 64 + 8

    /// `batch`'s events (the kernel's layout: a live read's) as one message, not waiting; only
    /// those before its SYN_DROPPED when `upToTheDrop` (the rest is stale; nothing is sent when
    /// that leaves none: `.done(0)`).
    public static func send(_ batch: InputBatch, upToTheDrop: Bool = false, to fd: Int32) -> Posix.IO {
        var events = batch.kernelEvents
        if upToTheDrop, let drop = events.firstIndex(where: { $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_DROPPED }) {
            // Safe: the batch's own events before the drop, within its call.
            events = UnsafeBufferPointer(rebasing: events[..<drop])
            if events.isEmpty { return .done(0) }
        }
        // Safe: the batch's events, valid for the call (a batch lives in its reader's call).
        return Posix.send(fd, UnsafeRawBufferPointer(events), "send(relay)")
    }

    /// `events` as one message in the kernel's layout (a resync: SYN_DROPPED, then the state).
    public static func send(_ events: [KernelInputEvent], to fd: Int32) -> Posix.IO {
        // Safe: the array's bytes, lent for the call.
        events.withUnsafeBytes { Posix.send(fd, $0, "send(relay)") }
    }

    /// The filters' own frame at `time`, made by the thread between two reads: a message of one
    /// event (EV_SYN, SYN_CONFIG, its value `tickMark` plus the time's nanoseconds past the
    /// microsecond) that the loop turns into the same frame at the same place among the reads.
    public static func sendTick(at time: Timestamp, to fd: Int32) -> Posix.IO {
        let rest = Int32(time.nanoseconds % 1000)
        return send([KernelInputEvent(InputEvent(time: time, type: Evdev.EV_SYN, code: 1, value: tickMark + rest))], to: fd)
    }

    /// The thread's decoder took a reload's settings here (`sendSwap`): the loop's takes them at
    /// the same place among the reads.
    public static func sendSwap(to fd: Int32) -> Posix.IO {
        send([KernelInputEvent(InputEvent(time: Timestamp(nanoseconds: Posix.monotonicNanoseconds()), type: Evdev.EV_SYN, code: 1, value: swapMark))], to: fd)
    }

    /// SYN_CONFIG's value that marks a decoder's swap.
    public static let swapMark: Int32 = 0x7377_0000

    /// SYN_CONFIG's value that marks a tick (no panel sends SYN_CONFIG); the low 16 bits carry the
    /// nanoseconds a kernel event's time has no room for.
    public static let tickMark: Int32 = 0x7469_0000

    /// What a relayed message is: a read, the filters' frame at a time, lost events (the resync's
    /// number) with the kernel's state after them (`state`), or a reload's decoder taken.
    public enum Message {
        case read
        case tick(Timestamp)
        case resync(Int32)
        case swap
    }

    /// `batch`'s kind, as the thread sent it.
    public static func kind(of batch: InputBatch) -> Message {
        guard let first = batch.kernelEvents.first, first.type == Evdev.EV_SYN else { return .read }
        if first.code == Evdev.SYN_DROPPED { return .resync(first.value) }
        if first.code == 1 && first.value == swapMark && batch.kernelEvents.count == 1 { return .swap }
        if first.code == 1 && first.value & ~0xFFFF == tickMark && batch.kernelEvents.count == 1 {
            return .tick(Timestamp(nanoseconds: first.time.nanoseconds + Int64(first.value & 0xFFFF)))
        }
        return .read
    }

    /// A resync message's state (the events after its SYN_DROPPED), lent to `body` as `resynced`.
    public static func state<R>(of batch: InputBatch, _ body: (InputBatch) -> R) -> R {
        // Safe: the batch's own events after the first, lent within its call.
        body(InputBatch(kernel: UnsafeBufferPointer(rebasing: batch.kernelEvents.dropFirst()), resynced: true))
    }

}

extension KernelInputEvent {
    /// `e` in the kernel's layout (its time in seconds and microseconds).
    public init(_ e: InputEvent) {
        let ns = e.time.nanoseconds
        self.init(seconds: Int(ns / 1_000_000_000), microseconds: Int(ns % 1_000_000_000 / 1000), type: e.type, code: e.code, value: e.value)
    }
}
