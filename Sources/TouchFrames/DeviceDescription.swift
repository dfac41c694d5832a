import GestureEngine

/// One absolute axis, as EVIOCGABS reports it. `resolution` is units per millimetre (0: unknown).
public struct AbsAxis: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// The axis's extent in millimetres, when the panel reports a resolution.
    public var lengthInMillimeters: Double? {
        guard resolution > 0 else { return nil }
        return Double(Int64(maximum) - Int64(minimum)) / Double(resolution)
    }

    public func clamp(_ v: Int32) -> Int32 { min(max(v, minimum), maximum) }
}

/// What an input device is: its identity and capabilities (an evemu description, or what
/// libevdev reports of a live device).
public struct DeviceDescription: Hashable, Sendable {
    public var name: String
    public var bustype: UInt16 = 0
    public var vendor: UInt16 = 0
    public var product: UInt16 = 0
    public var version: UInt16 = 0
    /// INPUT_PROP_* bits.
    public var properties: Set<UInt16> = []
    /// Supported codes per event type.
    public var codes: [UInt16: Set<UInt16>] = [:]
    public var axes: [UInt16: AbsAxis] = [:]

    public init(name: String) { self.name = name }

    public func supports(_ type: UInt16, _ code: UInt16) -> Bool { codes[type]?.contains(code) ?? false }

    /// `vvvv:pppp` in hex, as lsusb and config patterns write it.
    public var vendorProduct: String { Self.hex4(vendor) + ":" + Self.hex4(product) }

    public static func hex4(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 4 - s.count) + s
    }

    /// How the device reports touches, judged from its capabilities alone (no udev needed).
    public enum TouchKind: String, Sendable {
        /// Multitouch protocol B: slots with tracking ids.
        case multitouch
        /// One contact: ABS_X/ABS_Y and BTN_TOUCH.
        case singleTouch = "single-touch"
    }

    /// A touchscreen is a direct-input device with multitouch positions, or with ABS_X/Y and
    /// BTN_TOUCH. Touchpads (not direct) are not touchscreens.
    public var touchKind: TouchKind? {
        if axes[Evdev.ABS_MT_POSITION_X] != nil && axes[Evdev.ABS_MT_POSITION_Y] != nil
            && (properties.contains(Evdev.INPUT_PROP_DIRECT) || !properties.contains(Evdev.INPUT_PROP_POINTER))
        {
            return .multitouch
        }
        if axes[Evdev.ABS_X] != nil && axes[Evdev.ABS_Y] != nil && supports(Evdev.EV_KEY, Evdev.BTN_TOUCH)
            && !supports(Evdev.EV_KEY, Evdev.BTN_TOOL_FINGER)
        {
            return .singleTouch
        }
        return nil
    }

    /// The X and Y axes positions come on.
    public var positionAxes: (x: AbsAxis, y: AbsAxis)? {
        if touchKind == .multitouch, let x = axes[Evdev.ABS_MT_POSITION_X], let y = axes[Evdev.ABS_MT_POSITION_Y] {
            return (x, y)
        }
        if let x = axes[Evdev.ABS_X], let y = axes[Evdev.ABS_Y] { return (x, y) }
        return nil
    }

    /// Multitouch slots (1 for a single-touch panel; `protocolASlots` for a multitouch one
    /// without ABS_MT_SLOT, whose contacts the decoder tracks into slots of its own).
    public var slotCount: Int {
        guard touchKind == .multitouch else { return 1 }
        guard let s = axes[Evdev.ABS_MT_SLOT] else { return Self.protocolASlots }
        return Int(max(0, min(s.maximum, Int32(Self.maxSlots) - 1))) + 1
    }

    /// The slots read of a multitouch panel at most (a contact a bit in the decoder's masks):
    /// past any panel made; a panel that says it has more is read in its first 64.
    public static let maxSlots = 64

    /// Multitouch protocol A: positions without slots (contacts framed by SYN_MT_REPORT).
    public var isProtocolA: Bool { touchKind == .multitouch && axes[Evdev.ABS_MT_SLOT] == nil }

    /// The contacts a protocol A panel is read with at most (its mirror's slots): ten fingers.
    public static let protocolASlots = 10
}

extension DeviceDescription {
    /// A direct-touch multitouch panel (protocol B), `maxX` × `maxY` device units at `resolution`
    /// units/mm (0: unknown), with `slots` slots, BTN_TOUCH and the single-touch axes beside the
    /// multitouch ones, as panels report them: the description behind the project's synthetic
    /// recordings, tests, fuzzers and benchmarks.
    public static func multitouchPanel(
        name: String, maxX: Int32, maxY: Int32, slots: Int32, resolution: Int32 = 0
    ) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        d.properties = [Evdev.INPUT_PROP_DIRECT]
        d.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH]
        d.axes[Evdev.ABS_X] = AbsAxis(minimum: 0, maximum: maxX, resolution: resolution)
        d.axes[Evdev.ABS_Y] = AbsAxis(minimum: 0, maximum: maxY, resolution: resolution)
        d.axes[Evdev.ABS_MT_SLOT] = AbsAxis(minimum: 0, maximum: max(0, slots - 1))
        d.axes[Evdev.ABS_MT_TRACKING_ID] = AbsAxis(minimum: 0, maximum: 65535)
        d.axes[Evdev.ABS_MT_POSITION_X] = AbsAxis(minimum: 0, maximum: maxX, resolution: resolution)
        d.axes[Evdev.ABS_MT_POSITION_Y] = AbsAxis(minimum: 0, maximum: maxY, resolution: resolution)
        d.axes[Evdev.ABS_MT_TOOL_TYPE] = AbsAxis(minimum: 0, maximum: 2)
        d.codes[Evdev.EV_ABS] = Set(d.axes.keys)
        return d
    }
}
