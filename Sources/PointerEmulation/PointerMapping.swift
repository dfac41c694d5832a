import GestureEngine

/// A mouse button of the virtual pointer.
public enum PointerButton: String, CaseIterable, Hashable, Sendable {
    case left, right, middle
}

/// What the gestures of a region with `emulate = "pointer"` do with the virtual pointer
/// (`[region.pointer]`; docs/CONFIG.md has the table). Every default is what a kiosk app that
/// knows only a mouse expects of a finger.
public struct PointerMapping: Hashable, Sendable {
    /// A long press: a click of a button at the finger when it is recognized, or `drag`: the
    /// left button pressed then, the pointer following the finger, released at the lift (text
    /// selection, drag and drop).
    public enum LongPress: String, CaseIterable, Hashable, Sendable {
        case left, right, middle, drag, none
        public var button: PointerButton? { PointerButton(rawValue: rawValue) }
    }
    /// A one-finger pan: the wheel (content follows the finger), or a left-button drag.
    public enum Pan: String, CaseIterable, Hashable, Sendable {
        case scroll, drag, none
    }
    /// A pinch: Ctrl + wheel steps (browsers and most toolkits zoom on them).
    public enum Pinch: String, CaseIterable, Hashable, Sendable {
        case zoom, none
    }

    /// A one-finger tap clicks this button at the finger (nil: nothing). Default left.
    public var tap: PointerButton? = .left
    /// A two-finger tap clicks this button at the fingers' centre. Default middle (X11's paste,
    /// a browser's open-in-new-tab); `right` for apps whose menus are on the right button.
    public var twoFingerTap: PointerButton? = .middle
    /// Default `right`: a context menu where the finger rests, when the long press is recognized.
    public var longPress = LongPress.right
    /// Default `scroll`.
    public var pan = Pan.scroll
    /// Default `zoom`.
    public var pinch = Pinch.zoom
    /// Scrolling locked to the axis the finger starts along (the engine's axis lock: a vertical
    /// and a horizontal pan compete), as browsers and UIScrollView do. Default true.
    public var axisLock = true
    /// Finger travel, in screen pixels, that turns the wheel one notch (120 high-resolution
    /// units). Default 50: Chromium and Firefox scroll about 50 px a notch, so content then
    /// follows the finger about one to one.
    public var pixelsPerNotch: Double = 50
    /// A pan lifted while moving keeps the wheel turning, slowing down (kinetic scrolling).
    public var kinetic = true
    /// The least speed at the lift (mm/s) that coasts: a slower lift is a drag put down, and the
    /// content rests where the finger left it. Default 100, the engine's `swipe_min_velocity`
    /// (a lift as fast as a swipe is a fling).
    public var kineticMinSpeed: Double = 100
    /// The share of its velocity a kinetic tail keeps each millisecond: UIScrollView's
    /// `DecelerationRate.normal` is 0.998, `.fast` 0.99. The tail travels
    /// velocity / (1000 × −ln(deceleration)) pixels in all: half a second's worth at 0.998.
    public var deceleration = 0.998
    /// The longest a kinetic tail turns the wheel (it ends sooner once a wheel event would
    /// carry less than one unit). Default 3 s.
    public var kineticLimit: Duration = .seconds(3)
    /// The pinch scale one Ctrl + wheel notch stands for. Default 1.25 (browsers step zoom by
    /// 10 to 25 %).
    public var zoomStep = 1.25
    /// A click this soon after the last, this close to it, lands where the last did, so that
    /// the compositor's double-click rule (two clicks in the same place) sees a double tap as a
    /// double click. The engine's `multi_tap_interval` and `multi_tap_slop`.
    public var doubleClickInterval: Duration = .milliseconds(300)
    public var doubleClickSlop: Millimeters = 10

    public init() {}

    /// How often a kinetic tail turns the wheel: 100 times a second, faster than a 60 Hz display
    /// draws.
    public static let kineticInterval: Duration = .milliseconds(10)
}

/// The part a gesture of a pointer region plays, from its kind and fingers: a one-finger tap,
/// a two-finger tap, a one-finger long press, a pan that starts with one finger, a pinch.
/// Gestures of other kinds (swipes, edge swipes, three-finger taps) drive no pointer.
public enum PointerRole: Hashable, Sendable {
    case tap, twoFingerTap, longPress, pan, pinch

    public init?(_ spec: GestureSpec) {
        switch spec.kind {
        case .tap where spec.tapCount == 1 && spec.minFingers == 1 && spec.maxFingers == 1: self = .tap
        case .tap where spec.tapCount == 1 && spec.minFingers == 2 && spec.maxFingers == 2: self = .twoFingerTap
        case .longPress where spec.minFingers == 1: self = .longPress
        case .pan where spec.minFingers == 1: self = .pan
        case .pinch: self = .pinch
        default: return nil
        }
    }
}
