/// Phases follow UIKit. Discrete gestures (tap, swipe) are `recognized` once.
public enum GesturePhase: String, Hashable, Sendable {
    case began, changed, ended, cancelled, recognized
}

/// One output of the engine. A plain value (no heap storage), so emitting it allocates nothing;
/// fields that do not apply to a gesture kind stay at their zero value and are not encoded.
public struct GestureEvent: Hashable, Sendable {
    public var kind: GestureKind
    public var phase: GesturePhase
    /// Unique per gesture instance: every event of one pan carries the pan's id.
    public var id: UInt64 = 0
    /// Index of the gesture in `CompiledConfiguration.gestures` (its name and region), of the
    /// configuration numbered `generation` (see `Engine.configurationGeneration`).
    public var gesture: Int = 0
    public var generation: Int = 0
    /// The sequence the gesture belongs to: numbered as sequences start, one per region (a
    /// region's sequence runs from the first contact landing in it, or in a region nested in
    /// it, to the last of them lifting). Gestures of one sequence saw the same contacts.
    public var sequence: Int = 0
    public var fingers: Int = 0
    public var time: Timestamp
    /// Centroid of the gesture's fingers, screen pixels.
    public var position: PixelPoint
    /// Tap: how many taps.
    public var count: Int = 0
    /// Pan, edge swipe: translation since the gesture started (px); locked axis zeroed.
    public var translation: PixelPoint = .zero
    /// Pan: velocity (px/s) fitted over the velocity horizon.
    public var velocity: PixelPoint = .zero
    /// Pan: the axis it is locked to, when constrained.
    public var axis: PanAxis = .free
    /// Pan in a region with drag constraints: the constrained offset and, on ended/cancelled, the rest target.
    public var offset: PixelPoint? = nil
    public var target: PixelPoint? = nil
    /// Pan in a chained drag (`DragChain`): what this event moved this region's offset by, before
    /// its bounds (px); the `consumed` of a frame's chained events add up to the finger's move. A
    /// `changed` event goes to the regions a frame moved (`DragRests.applyChain`).
    public var consumed: PixelPoint? = nil
    /// Swipe: direction and release speed (px/s).
    public var direction: SwipeDirection? = nil
    public var speed: Double = 0
    /// Pinch: scale since the fingers landed, rotation in degrees (clockwise positive).
    public var scale: Double = 1
    public var rotation: Double = 0
    /// Edge swipe: the edge it came from.
    public var edge: ScreenEdge? = nil
    /// Stroke: the shape's place in `CompiledConfiguration.shapeNames`, its score (0...1), and
    /// whether the path turned clockwise.
    public var shape: Int = 0
    public var score: Double = 0
    public var clockwise = false

    public init(kind: GestureKind, phase: GesturePhase, time: Timestamp, position: PixelPoint) {
        self.kind = kind
        self.phase = phase
        self.time = time
        self.position = position
    }
}
