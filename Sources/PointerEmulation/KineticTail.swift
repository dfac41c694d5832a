import GestureEngine

/// The wheel turning on after a scroll's lift (kinetic scrolling), as UIScrollView decelerates:
/// every `PointerMapping.kineticInterval` the pointer scrolls by the velocity times the interval,
/// and the velocity keeps `deceleration` of itself per millisecond. A tick is a deadline
/// (`next`), fired by the owner at its own time: no timer, no clock read.
///
/// From a lift at velocity v (px/s), with q = deceleration^(interval in ms) and the interval
/// dt in seconds, the n-th tick scrolls v·qⁿ·dt, and the whole tail v·dt·q/(1 − q) (about half
/// a second's worth of v at 0.998), less what the ticks it never reaches would have added: it
/// ends once a tick would carry under one wheel unit, or at `kineticLimit`.
struct KineticTail: Hashable, Sendable {
    let region: Int
    let start: Timestamp
    private let decayPerTick: Double
    private let limit: Timestamp
    /// Pixels a tick scrolls now (the velocity times the interval), and the scroll so far (the
    /// pan's travel at its lift, then each tick's added), in the pan's wheel units.
    private var step: PixelPoint
    private var travel: PixelPoint
    private var wheel: WheelAccumulator
    /// The next tick; nil once the tail has ended.
    private(set) var next: Timestamp?

    /// A tail for a pan lifted at `time` with `velocity` (px/s) after `travel` (px), scrolling
    /// through `wheel`; nil when even its first tick would carry under one unit or come after
    /// `kineticLimit`.
    init?(region: Int, at time: Timestamp, velocity: PixelPoint, travel: PixelPoint, wheel: WheelAccumulator, mapping: PointerMapping) {
        let dt = Double(PointerMapping.kineticInterval.nanosecondsClamped) / 1e9
        var q = 1.0
        for _ in 0..<Int(PointerMapping.kineticInterval.nanosecondsClamped / 1_000_000) { q *= mapping.deceleration }
        self.region = region
        start = time
        decayPerTick = q
        limit = time + mapping.kineticLimit
        step = velocity * (dt * q)
        self.travel = travel
        self.wheel = wheel
        let first = time + PointerMapping.kineticInterval
        next = first
        guard Self.carries(step, wheel.pixelsPerNotch), first <= limit else { return nil }
    }

    /// Does a step of this many pixels turn the wheel at least one unit on some axis?
    private static func carries(_ step: PixelPoint, _ pixelsPerNotch: Double) -> Bool {
        max(abs(step.x), abs(step.y)) * Double(PointerWheel.unitsPerNotch) / pixelsPerNotch >= 1
    }

    /// The tick due at `next`: the wheel's turn for it (nil when it rounds to nothing), and the
    /// next tick scheduled, or none when the tail has decayed under one unit or reached its limit.
    mutating func tick() -> (time: Timestamp, wheel: PointerWheel?)? {
        guard let now = next else { return nil }
        travel += step
        let turn = wheel.turn(to: travel)
        step = step * decayPerTick
        let after = now + PointerMapping.kineticInterval
        next = Self.carries(step, wheel.pixelsPerNotch) && after <= limit ? after : nil
        return (now, turn)
    }
}

