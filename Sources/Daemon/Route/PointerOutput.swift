import PointerEmulation
import SystemCalls
import TouchInput

/// The route's pointer consumer: the virtual pointer the pointer regions drive (`emulate =
/// "pointer"`; made and replaced by `Devices.configurePointer`), each input's ops written to it
/// in one write, failures counted and throttled.
struct PointerOutput {
    var device: VirtualPointer? { didSet { sink = device } }
    /// Where the ops go: the device (a test's list in the route's tests).
    var sink: (any PointerSink)?
    private(set) var failures = FailureThrottle()
    /// Ops written so far (`stats`).
    private(set) var ops = 0

    /// Writes `ops`; whether it failed (nothing to write to: no failure).
    mutating func write(_ ops: [PointerOp]) -> Bool {
        guard let sink else { return false }
        self.ops += ops.count
        return failures.note(sink.send(ops))
    }

    /// The failure to log now, if any (throttled), with the count.
    mutating func takeFailure() -> (error: SystemCallError, count: Int)? { failures.take() }
}
