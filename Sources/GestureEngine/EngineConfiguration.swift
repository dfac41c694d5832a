/// The gesture kinds the engine recognizes. Tap count and finger count are parameters.
public enum GestureKind: String, CaseIterable, Hashable, Sendable {
    case tap
    case longPress = "long_press"
    case pan
    case swipe
    case pinch
    case edgeSwipe = "edge_swipe"
    case stroke

    /// Discrete gestures are `recognized` once; continuous ones go began, changed, ended/cancelled.
    public var isDiscrete: Bool { self == .tap || self == .swipe || self == .stroke }
}

/// How a gesture ranks against the gestures of the regions nested inside its own region,
/// after SwiftUI's `.gesture`, `.highPriorityGesture` and `.simultaneousGesture`.
public enum Priority: String, CaseIterable, Hashable, Sendable {
    /// The nested (inner) regions' gestures win over this one.
    case normal
    /// This gesture wins over the gestures of regions nested inside its region.
    case high
    /// This gesture and those of nested regions may both be recognized.
    case simultaneous
}

/// The axis a pan is constrained to.
public enum PanAxis: String, CaseIterable, Hashable, Sendable {
    case free
    case horizontal
    case vertical
}

public enum SwipeDirection: String, CaseIterable, Hashable, Sendable {
    case right, downRight = "down_right", down, downLeft = "down_left"
    case left, upLeft = "up_left", up, upRight = "up_right"
}

public enum ScreenEdge: String, CaseIterable, Hashable, Sendable {
    case left, right, top, bottom
}

/// Bounds for one axis of a region's drag offset, in pixels.
public struct AxisConstraint: Hashable, Sendable {
    public enum Mode: String, CaseIterable, Hashable, Sendable {
        /// Beyond a bound the offset stops.
        case clamp
        /// Beyond a bound the excess is multiplied by `rubberBandFactor`.
        case rubberBand = "rubber_band"
        /// Beyond a bound the excess x becomes limit × (1 − e^(−x/limit)), limit = `rubberBandLimit`.
        case rubberBandExp = "rubber_band_exp"
    }
    /// The least offset (px); `-infinity` for none. A pull-down-only drag has min 0.
    public var min: Double = -.infinity
    /// The greatest offset (px); `+infinity` for none.
    public var max: Double = .infinity
    public var mode: Mode = .clamp
    /// Linear rubber band: the share of the excess that still moves. Default 0.3.
    public var rubberBandFactor: Double = 0.3
    /// Exponential rubber band: the most the offset can overshoot a bound (px). Default 100 px.
    public var rubberBandLimit: Double = 100
    /// Rest positions (px). On release the rest offset is the snap point nearest the
    /// (projected) release offset; with none, the release offset clamped into bounds.
    public var snapPoints: [Double] = []

    public init(
        min: Double = -.infinity, max: Double = .infinity, mode: Mode = .clamp, rubberBandFactor: Double = 0.3,
        rubberBandLimit: Double = 100, snapPoints: [Double] = []
    ) {
        self.min = min
        self.max = max
        self.mode = mode
        (self.rubberBandFactor, self.rubberBandLimit, self.snapPoints) = (rubberBandFactor, rubberBandLimit, snapPoints)
    }

    /// The offset shown for a raw (unconstrained) offset.
    public func constrain(_ raw: Double) -> Double { bounds.constrain(raw) }

    /// The bounds alone (no snap points: nothing to retain), for the per-frame paths.
    public var bounds: Bounds { Bounds(min: min, max: max, mode: mode, factor: rubberBandFactor, limit: rubberBandLimit) }

    /// An axis's bounds and what lies past them.
    public struct Bounds: Hashable, Sendable {
        public var min: Double, max: Double
        public var mode: Mode
        public var factor: Double, limit: Double

        /// No bounds: every offset shown as it is.
        static let none = Bounds(min: -.infinity, max: .infinity, mode: .clamp, factor: 0, limit: 0)

        /// The offset shown for a raw (unconstrained) offset.
        public func constrain(_ raw: Double) -> Double {
            if raw > max { return max + excess(raw - max) }
            if raw < min { return min - excess(min - raw) }
            return raw
        }

        private func excess(_ x: Double) -> Double {
            switch mode {
            case .clamp: return 0
            case .rubberBand: return x * factor
            case .rubberBandExp:
                guard limit > 0 else { return 0 }
                return limit * (1 - (-x / limit).exponential)
            }
        }
    }

    /// Where the content comes to rest after a release at `offset` moving at `velocity` px/s,
    /// projected over `projection`.
    public func rest(offset: Double, velocity: Double, projection: Duration) -> Double {
        let projected = offset + velocity * projection.secondsDouble
        guard let first = snapPoints.first else { return Swift.min(Swift.max(projected, min), max) }
        var best = first
        for p in snapPoints where abs(p - projected) < abs(best - projected) { best = p }
        return best
    }
}

extension Double {
    /// e^x by the standard library alone (GestureEngine imports no Glibc).
    var exponential: Double {
        // Range reduction: e^x = 2^k · e^r with |r| ≤ ln2/2, then a Taylor series for e^r.
        if self.isNaN { return self }
        if self > 709 { return .infinity }
        if self < -745 { return 0 }
        let ln2 = 0.693_147_180_559_945_3
        let k = (self / ln2).rounded()
        let r = self - k * ln2
        var term = 1.0
        var sum = 1.0
        var n = 1.0
        while n < 20 {
            term *= r / n
            sum += term
            n += 1
        }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }
}

/// A region's drag constraints: applied to the offset of that region's pans.
public struct DragConstraints: Hashable, Sendable {
    public var x: AxisConstraint?
    public var y: AxisConstraint?
    /// How far ahead (ms) the release velocity projects the offset before the nearest snap point
    /// is chosen (UIScrollView-style projection). 0 turns projection off. Default 0.
    public var projection: Duration = .zero
    /// The rest offset before the first drag (px).
    public var initial: PixelPoint = .zero
    /// Scroll chaining: this region's pan hands the stroke's motion to an enclosing region's
    /// drag (a list in a sheet), as iOS sheets and Android's nested scrolling do.
    public var chain: DragChain?

    public init(
        x: AxisConstraint? = nil, y: AxisConstraint? = nil, projection: Duration = .zero, initial: PixelPoint = .zero,
        chain: DragChain? = nil
    ) {
        (self.x, self.y, self.projection, self.initial, self.chain) = (x, y, projection, initial, chain)
    }
}

/// A chain from a region's drag to an enclosing region's (`[region.drag] chain`), on the axis
/// of the inner region's pan. The rule is Android's: moving toward `outerFirst`, the outer
/// region's offset moves first until it reaches its bound, then the inner's takes the rest;
/// moving the other way, the inner's moves first until it reaches its bound, then the outer's.
/// A bottom sheet holding a list: `outerFirst = up` (an upward stroke opens the sheet, then
/// scrolls the list; a downward one scrolls the list back to its top, then pulls the sheet down).
public struct DragChain: Hashable, Sendable {
    public enum Direction: String, CaseIterable, Hashable, Sendable {
        case up, down, left, right
        /// The sign of an offset's change in this direction (screen y grows downward).
        public var sign: Double { self == .down || self == .right ? 1 : -1 }
        public var isVertical: Bool { self == .up || self == .down }
    }
    /// The enclosing region whose drag takes the motion (by name).
    public var region: String
    public var outerFirst: Direction

    public init(region: String, outerFirst: Direction = .up) {
        (self.region, self.outerFirst) = (region, outerFirst)
    }
}

/// One gesture of a region: a recognizer with its parameters and its rules against others.
public struct GestureSpec: Hashable, Sendable {
    /// The name rules refer to (unique within its region). Defaults to the kind's name.
    public var name: String
    public var kind: GestureKind
    /// How many fingers: exactly for tap, long press and edge swipe; a range for pan, swipe and pinch.
    public var minFingers: Int
    public var maxFingers: Int
    /// Taps in a row for a tap (1 single, 2 double, 3 triple).
    public var tapCount: Int = 1
    public var axis: PanAxis = .free
    /// 4 or 8 sectors for a swipe's direction.
    public var directionCount: Int = 4
    /// Directions a swipe accepts (empty: all).
    public var directions: Set<SwipeDirection> = []
    /// Edges an edge swipe starts from (empty: all four).
    public var edges: Set<ScreenEdge> = []
    /// Shapes a stroke takes, by name (`EngineConfiguration.strokes` and the built-in ones;
    /// empty: every shape).
    public var shapes: [String] = []
    public var priority: Priority = .normal
    /// Names of gestures (in this region, or `region/name`) that must fail before this one fires.
    public var requiresFailureOf: [String] = []
    /// Names of gestures (in this region, or `region/name`) this one may be recognized with.
    public var simultaneousWith: [String] = []
    public var thresholds: Thresholds = .standard
    /// In pass-through mode, when it begins (or is recognized) its touches are cancelled on the
    /// virtual touchscreen the app reads (`cancels_touches`); nil: when it is bound to an action.
    public var cancelsTouches: Bool?
    /// In pass-through mode, a touch this gesture may still take is held back from the app this
    /// long at most (`delays_touches_began`, ns; 0: not held), for a gesture that takes its touches.
    public var delaysTouchesBegan: Int64 = 0
    /// A system gesture: one the configuration file binds an `[[action]]` to (Back, the admin
    /// hold). It outranks every gesture of a client's region it meets, whatever their nesting
    /// and priority, and a touch landing both in its region and in a client's overlapping one
    /// goes to its region: no client can switch off what the kiosk's own file does.
    public var outranksClients = false

    public init(
        _ kind: GestureKind, name: String? = nil, fingers: Int = 1, maxFingers: Int? = nil, tapCount: Int = 1,
        axis: PanAxis = .free, thresholds: Thresholds = .standard
    ) {
        self.kind = kind
        self.name = name ?? kind.rawValue
        self.minFingers = fingers
        self.maxFingers = maxFingers ?? fingers
        (self.tapCount, self.axis, self.thresholds) = (tapCount, axis, thresholds)
    }
}

/// A named screen rectangle with its gestures. A region inside another is its child.
public struct RegionSpec: Hashable, Sendable {
    public var name: String
    /// The rectangle in screen pixels; nil covers the whole screen.
    public var rect: PixelRect?
    public var gestures: [GestureSpec]
    public var drag: DragConstraints?
    /// Set by a client (`set_regions`), not by the configuration file: its gestures yield to the
    /// file's system gestures (`GestureSpec.outranksClients`).
    public var fromClient = false
    /// The most contacts down in it the virtual touchscreen shows (pass-through); more stay
    /// hidden from the app until they lift, while the gestures see them all. Nil: no limit.
    public var maxContacts: Int?
    /// An area out of gesture recognition (an on-screen keyboard's while it is shown): a contact
    /// landing in it is no gesture's, this region's, an enclosing one's or a system gesture's,
    /// is never taken from the app, and counts in no `max_contacts`. It has no gestures itself.
    public var exclude = false

    public init(name: String, rect: PixelRect? = nil, gestures: [GestureSpec], drag: DragConstraints? = nil) {
        (self.name, self.rect, self.gestures, self.drag) = (name, rect, gestures, drag)
    }
}

/// Everything the engine needs: the screen's size and its regions.
public struct EngineConfiguration: Hashable, Sendable {
    /// The screen in pixels; edge swipes measure from its borders, regions default to it.
    public var screen: PixelRect
    public var regions: [RegionSpec]
    /// The shapes strokes are matched against (`[[stroke]]`), beside the built-in ones
    /// (`StrokeTemplate.builtIn`: matched when there is no template here or a stroke's `shapes`
    /// names them; a template of a built-in shape's name replaces it).
    public var strokes: [StrokeTemplate] = []

    public init(screen: PixelRect, regions: [RegionSpec], strokes: [StrokeTemplate] = []) {
        (self.screen, self.regions, self.strokes) = (screen, regions, strokes)
    }

    /// The name of the built-in full-screen region; events from it carry no `region` field.
    public static let screenRegionName = "screen"

    /// The gestures of the built-in default: one full-screen region with tap (waiting for double
    /// tap), double tap, long press, pan (1-5 fingers), swipe (1-5 fingers, with the pan), pinch
    /// (2-5 fingers) and edge swipes. Pan and swipe report their finger count, so a kiosk can tell a
    /// one-finger scroll from a four-finger drag without configuring anything.
    public static func standardGestures(thresholds: Thresholds = .standard) -> [GestureSpec] {
        var doubleTap = GestureSpec(.tap, name: "double_tap", tapCount: 2, thresholds: thresholds)
        doubleTap.tapCount = 2
        var tap = GestureSpec(.tap, thresholds: thresholds)
        tap.requiresFailureOf = ["double_tap"]
        let longPress = GestureSpec(.longPress, thresholds: thresholds)
        var pan = GestureSpec(.pan, fingers: 1, maxFingers: 5, thresholds: thresholds)
        pan.requiresFailureOf = ["edge_swipe"]
        pan.simultaneousWith = ["swipe"]
        var swipe = GestureSpec(.swipe, fingers: 1, maxFingers: 5, thresholds: thresholds)
        swipe.requiresFailureOf = ["edge_swipe"]
        let pinch = GestureSpec(.pinch, fingers: 2, maxFingers: 5, thresholds: thresholds)
        let edge = GestureSpec(.edgeSwipe, thresholds: thresholds)
        // Every touch platform, lisgd and touchegg give multi-finger taps out of the box. They need
        // no rule: a one-finger tap fails when a second finger lands, and during finger_settle
        // the arena ranks a gesture with more fingers above one with fewer.
        let twoFingerTap = GestureSpec(.tap, name: "two_finger_tap", fingers: 2, thresholds: thresholds)
        let threeFingerTap = GestureSpec(.tap, name: "three_finger_tap", fingers: 3, thresholds: thresholds)
        return [doubleTap, tap, twoFingerTap, threeFingerTap, longPress, pan, swipe, pinch, edge]
    }

    /// The built-in default for a screen of the given size.
    public static func standard(screen: PixelRect = PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        -> EngineConfiguration
    {
        EngineConfiguration(
            screen: screen, regions: [RegionSpec(name: screenRegionName, gestures: standardGestures())])
    }
}
