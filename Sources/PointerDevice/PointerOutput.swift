import PointerEmulation
import SystemCalls

/// The route's pointer consumer: the virtual pointer the pointer regions drive (`emulate =
/// "pointer"`; made and replaced by `Devices.configurePointer`), each input's ops written to it
/// in one write, failures counted and throttled.
public struct PointerOutput {
    public var device: VirtualPointer? { didSet { sink = device } }
    /// Where the ops go: the device (a test's list in the route's tests).
    public var sink: (any PointerSink)?
    public private(set) var failures = FailureThrottle()
    /// Ops written so far (`stats`).
    public private(set) var ops = 0

    public init() {}

    /// Writes `ops`; whether it failed (nothing to write to: no failure).
    public mutating func write(_ ops: [PointerOp]) -> Bool {
        guard let sink else { return false }
        self.ops += ops.count
        return failures.note(sink.send(ops))
    }

    /// The failure to log now, if any (throttled), with the count.
    public mutating func takeFailure() -> (error: SystemCallError, count: Int)? { failures.take() }
}
