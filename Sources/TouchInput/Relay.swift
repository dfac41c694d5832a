import GestureEngine
import SystemCalls
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// A panel's reads passed from the thread that reads it to the loop (`MirrorThread`): each read
/// one message on a SOCK_SEQPACKET pair, in the kernel's layout, so the loop reads the relay's
/// end as it would the panel (`EvdevDevice.readBatch`). After lost events, the message that
/// ends in SYN_DROPPED is followed by one that carries the kernel's state (`resynced` on the
/// loop's side).
public enum Relay {
    /// A thread's read is at most this many events, so a message fits the loop's read buffer.
    public static let readCapacity = 256
    /// A state message's most events: every slot's five and the five after them.
    public static let stateCapacity = 5 * 64 + 8

    /// `batch`'s events (the kernel's layout: a live read's) as one message, not waiting.
    public static func send(_ batch: InputBatch, to fd: Int32) -> Posix.IO {
        // Safe: the batch's events, valid for the call (a batch lives in its reader's call).
        Posix.send(fd, UnsafeRawBufferPointer(batch.kernelEvents), "send(relay)")
    }

    /// `events` as one message in the kernel's layout (a state, a lone SYN_DROPPED).
    public static func send(_ events: [InputEvent], to fd: Int32) -> Posix.IO {
        let kernel = events.map(KernelInputEvent.init(_:))
        // Safe: the array's bytes, lent for the call.
        return kernel.withUnsafeBytes { Posix.send(fd, $0, "send(relay)") }
    }

    /// The state message after a SYN_DROPPED, waited for up to `timeoutMs`, lent to `deliver` as
    /// a `resynced` batch; false when none came (the thread is late or gone).
    public static func receiveState(from fd: Int32, timeoutMs: Int32, deliver: (InputBatch) -> Void) -> Bool {
        guard case .success(let events) = Posix.poll(fd, events: Int16(POLLIN), timeoutMs: timeoutMs), events != 0 else { return false }
        var buffer = [KernelInputEvent](repeating: KernelInputEvent(seconds: 0, microseconds: 0, type: 0, code: 0, value: 0), count: stateCapacity)
        // Safe: the array's storage, lent for the read, which writes at most its bytes.
        let io = buffer.withUnsafeMutableBytes { Posix.read(fd, into: $0, "read(relay)") }
        guard case .done(let n) = io, n > 0 else { return false }
        let count = n / MemoryLayout<KernelInputEvent>.stride
        // Safe: the events the read wrote, lent for the call.
        buffer.withUnsafeBufferPointer { deliver(InputBatch(kernel: UnsafeBufferPointer(rebasing: $0[0..<count]), resynced: true)) }
        return true
    }
}

extension KernelInputEvent {
    /// `e` in the kernel's layout (its time in seconds and microseconds).
    public init(_ e: InputEvent) {
        let ns = e.time.nanoseconds
        self.init(seconds: Int(ns / 1_000_000_000), microseconds: Int(ns % 1_000_000_000 / 1000), type: e.type, code: e.code, value: e.value)
    }
}
