/// Every tunable of the recognizers, in physical units. Config-file keys are these property
/// names in snake_case (`tap_slop`, `long_press_duration`, ...), in `[thresholds]` for all
/// gestures or inside one `[[region.gesture]]` to override it for that gesture alone.
///
/// Provenance: Android's `ViewConfiguration` (dp = 1/160 in = 0.159 mm), Flutter's
/// `gestures/constants.dart` (logical pixel taken as 1/160 in, as Flutter does on Android),
/// UIKit's documented defaults, libinput's touchpad tap code, and the EP0430M09 recordings in
/// shared/recordings (fingers of a 4-finger drag land over about 110 ms).
public struct Thresholds: Hashable, Sendable {
    /// How far (mm) any finger of a tap may travel from where it landed before the tap fails.
    /// Read by TapRecognizer. Android's touch slop is 8 dp = 1.3 mm, libinput's touchpad tap
    /// threshold 1.3 mm, Flutter's kTouchSlop 18 lp = 2.9 mm. Kiosk glass is touched by larger,
    /// hurried, sometimes gloved fingers: we take Flutter's 3 mm. Default 3 mm.
    public var tapSlop: Millimeters = 3

    /// How long (ms) a finger may stay down and still make a tap. Read by TapRecognizer.
    /// Equal to `longPressDuration` so that every press is either a tap or a long press, never
    /// neither (libinput's 180 ms is for touchpads, where a press has no meaning). Default 500 ms.
    public var tapMaxDuration: Duration = .milliseconds(500) { didSet { ns.tapMax = tapMaxDuration.nanosecondsClamped } }

    /// The longest gap (ms) from one tap's lift to the next tap's touch-down in a multi-tap.
    /// Read by TapRecognizer. Android DOUBLE_TAP_TIMEOUT and Flutter kDoubleTapTimeout are both
    /// 300 ms. Default 300 ms.
    public var multiTapInterval: Duration = .milliseconds(300) { didSet { ns.multiTapInterval = multiTapInterval.nanosecondsClamped } }

    /// How far (mm) the next tap of a multi-tap may land from the first. Read by TapRecognizer.
    /// Android DOUBLE_TAP_SLOP and Flutter kDoubleTapSlop are 100 dp = 15.9 mm. Default 15 mm.
    public var multiTapSlop: Millimeters = 15

    /// How long (ms) the fingers must stay down, still, for a long press. Read by
    /// LongPressRecognizer; the press fires at this deadline, not at the next event.
    /// Flutter kLongPressTimeout 500 ms; UIKit minimumPressDuration 0.5 s. Default 500 ms.
    public var longPressDuration: Duration = .milliseconds(500) { didSet { ns.longPress = longPressDuration.nanosecondsClamped } }

    /// How far (mm) a finger may drift during a long press before it fails. Read by
    /// LongPressRecognizer. UIKit's allowableMovement is 10 pt = 1.6 mm on a phone; we keep it
    /// equal to `tapSlop` so a press that is too wobbly for a long press is also no tap. Default 3 mm.
    public var longPressTolerance: Millimeters = 3

    /// How far (mm) the centroid must move before a pan begins. Read by PanRecognizer.
    /// Flutter's kPanSlop is 2 × kTouchSlop = 5.7 mm; Android's touch slop 1.3 mm. Equal to
    /// `tapSlop` so no movement falls between a tap and a pan. Default 3 mm.
    public var panSlop: Millimeters = 3

    /// For a pan constrained to one axis: once the centroid has moved this far (mm), the axis
    /// with the larger movement wins, once for the whole sequence: the other axis's pan fails,
    /// and the winner keeps the drag whatever the finger does afterwards, beginning when its own
    /// axis has travelled `panSlop` (so a lock below the slop never turns a tap's wobble into a
    /// pan). Read by PanRecognizer. UIScrollView's directional lock and SwiftUI's scroll-vs-row
    /// pattern (about 10 pt) commit the same way. Default 3 mm.
    public var axisLockThreshold: Millimeters = 3

    /// How long (ms) after the first finger lands the others may still land before an N-finger
    /// gesture counts its fingers. Read by every multi-finger recognizer and by the arena, which
    /// lets a gesture with more fingers outrank one with fewer during this window. The EP0430M09
    /// 4-finger recordings land their fingers over about 110 ms. Default 150 ms.
    public var fingerSettle: Duration = .milliseconds(150) { didSet { ns.fingerSettle = fingerSettle.nanosecondsClamped } }

    /// The least distance (mm) the centroid must travel for a swipe. Read by SwipeRecognizer.
    /// Android flings need no distance, lisgd 125 px (device dependent); 10 mm tells a flick
    /// from a jab on any panel size. Default 10 mm.
    public var swipeMinDistance: Millimeters = 10

    /// The least release speed (mm/s) for a swipe. Read by SwipeRecognizer. Android's
    /// MINIMUM_FLING_VELOCITY 50 dp/s = 8 mm/s is for scrolling momentum; a swipe as a command
    /// wants a deliberate flick: 100 mm/s. Default 100 mm/s.
    public var swipeMinVelocity: Double = 100

    /// The longest a swipe may take (ms) from touch-down to lift. Read by SwipeRecognizer, which
    /// fails at this deadline (so a pan that waits for the swipe to fail is not held longer).
    /// lisgd uses 800 ms; we take 500 ms. Default 500 ms.
    public var swipeMaxDuration: Duration = .milliseconds(500) { didSet { ns.swipeMax = swipeMaxDuration.nanosecondsClamped } }

    /// The window (ms) over which release velocity is fitted by least squares. Read by the
    /// velocity tracker of pan and swipe. Flutter's VelocityTracker horizon is 100 ms. Default 100 ms.
    public var velocityHorizon: Duration = .milliseconds(100)

    /// How much (mm) the fingers' mean distance from their centroid must change before a pinch
    /// begins. Read by PinchRecognizer. Flutter kScaleSlop 18 lp = 2.9 mm. Default 3 mm.
    public var pinchSlop: Millimeters = 3

    /// How far (degrees) two fingers must turn before a pinch begins by rotation alone. Read by
    /// PinchRecognizer. Chosen so a pinch's natural wobble (about 5 degrees) does not start it.
    /// Default 10 degrees.
    public var rotationSlop: Double = 10

    /// How close (mm) to a screen edge a finger must land for an edge swipe. Read by
    /// EdgeSwipeRecognizer. Android's system-gesture inset is 24 dp = 3.8 mm; kiosk bezels make
    /// the outermost millimetres hard to reach, so we widen it to 6 mm. Default 6 mm.
    public var edgeBand: Millimeters = 6

    /// How far (mm) an edge swipe must move inward before it begins. Read by
    /// EdgeSwipeRecognizer. Default 5 mm.
    public var edgeMinDistance: Millimeters = 5

    /// The least size (mm) of a stroke: the diagonal of the box its path fits in. Read by
    /// StrokeRecognizer; smaller strokes fail (`too small`), so a tap's or a long press's tremor
    /// is never a shape. A tap moves at most `tapSlop` (3 mm) and a resting finger's noise spans
    /// a few mm; a letter written on a phone is about 10 mm high. Default 10 mm.
    public var strokeMinSize: Millimeters = 10

    /// The least score (cosine similarity, 0...1) for a stroke to be its best template's shape.
    /// Read by StrokeRecognizer. On the synthetic hand of docs/BENCHMARKS.md ("Strokes") nearly
    /// every drawing of a learned shape scores 0.9 or more (the lowest 0.865, tilted 45°), while
    /// a drawing of a shape with no template reaches 0.85 against the nearest one in about a third
    /// of drawings (a quarter at 0.9): the default keeps the shapes that were learned; a kiosk that
    /// fears a stranger's scribble more raises it. A stroke also has to score better than any
    /// straight line or plain arc (a pan, a swipe). Default 0.85.
    public var strokeMinScore: Double = 0.85

    /// How far (degrees) a template that is not rotation-invariant may be turned to match a
    /// stroke: a hand's tilt. Read by StrokeRecognizer. $1 searches ±45 degrees; on the synthetic
    /// hand of docs/BENCHMARKS.md ("Strokes") drawings tilted up to ±60° are their shape 97.3 % of
    /// the time at 45 and 98.8 % at 60, tilted up to ±90° 92.7 % and 94.8 %; a Z turned a quarter
    /// (an N) scores as a Z turned 30°, below an N's own template where one is taught. Default 60
    /// degrees.
    public var strokeRotationTolerance: Double = 60

    /// The longest a stroke may take (ms) from touch-down to the last lift; it fails at this
    /// deadline (so a gesture that waits for it to fail is held no longer). Read by
    /// StrokeRecognizer. A deliberate Z or circle takes 0.5 to 2 s, a star or a first try up to
    /// about 4 s. Default 5000 ms.
    public var strokeMaxDuration: Duration = .milliseconds(5000) { didSet { ns.strokeMax = strokeMaxDuration.nanosecondsClamped } }

    /// The durations above in nanoseconds, kept by their setters: recognizers compute their
    /// deadlines every frame, and converting a `Duration` (128-bit arithmetic) each time cost more
    /// than the rest of the deadline.
    public private(set) var ns = Nanoseconds()

    public struct Nanoseconds: Hashable, Sendable {
        public var tapMax: Int64 = 500_000_000
        public var multiTapInterval: Int64 = 300_000_000
        public var longPress: Int64 = 500_000_000
        public var fingerSettle: Int64 = 150_000_000
        public var swipeMax: Int64 = 500_000_000
        public var strokeMax: Int64 = 5_000_000_000
    }

    public init() {}

    /// The defaults documented above.
    public static let standard = Thresholds()
}
