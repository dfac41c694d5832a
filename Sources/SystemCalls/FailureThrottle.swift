/// A write that may fail on every frame (a mirror or a pointer whose uinput device went bad):
/// each failure counted, the last kept, and logged the first time and every 1000th after. The
/// one place the route's write failures are counted and throttled.
public struct FailureThrottle: Sendable {
    public private(set) var count = 0
    private var unreported: SystemCallError?

    /// A write's outcome (nil: it went through); whether it failed.
    public init() {}

    public mutating func note(_ error: SystemCallError?) -> Bool {
        guard let error else { return false }
        count += 1
        unreported = error
        return true
    }

    /// The failure to log now, with the count so far; nil between the first and each 1000th.
    public mutating func take() -> (error: SystemCallError, count: Int)? {
        defer { unreported = nil }
        guard let e = unreported, count == 1 || count % 1000 == 0 else { return nil }
        return (e, count)
    }
}
