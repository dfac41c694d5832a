/// A contact as the panel reports it, beside the engine's `Contact` (screen pixels): its slot,
/// its position on the panel's own axes and every other per-contact axis the panel carries,
/// as the input stage decoded it at the frame's SYN_REPORT. What a consumer that writes the
/// panel's touches on (the mirror) reads; the engine reads the `TouchFrame`.
public struct PanelContact: Sendable, Equatable {
    /// The decoder's contact id (the engine's `Contact.id`): unique for the contact's life.
    public var id: UInt32
    /// The panel's slot (0 on a single-touch panel).
    public var slot: Int32
    /// ABS_MT_POSITION_X/Y (ABS_X/Y on a single-touch panel), in the panel's units.
    public var x: Int32
    public var y: Int32
    /// The other multitouch axes (ABS_MT_TOUCH_MAJOR … ABS_MT_TOOL_Y), as last reported in the slot.
    public var axes: PanelAxes

    public init(id: UInt32, slot: Int32, x: Int32, y: Int32, axes: PanelAxes = PanelAxes()) {
        self.id = id
        self.slot = slot
        self.x = x
        self.y = y
        self.axes = axes
    }
}

/// A slot's values of the multitouch axes from ABS_MT_TOUCH_MAJOR (0x30) to ABS_MT_TOOL_Y (0x3d),
/// by code; position and tracking id among them are unused (the contact carries those). On a
/// single-touch panel, ABS_PRESSURE is kept as ABS_MT_PRESSURE. Every value starts at 0, as the
/// kernel's slot values do.
public struct PanelAxes: Sendable, Equatable {
    public static let first: UInt16 = 0x30
    public static let last: UInt16 = 0x3d
    @usableFromInline var values = InlineArray<14, Int32>(repeating: 0)

    public init() {}

    /// Every axis at `value` (`Int32.min`: a value no panel sends, for "not known").
    public init(all value: Int32) { values = InlineArray(repeating: value) }

    /// The value of `code` (0 for a code outside the range).
    @inline(__always)
    public subscript(code: UInt16) -> Int32 {
        get { code >= Self.first && code <= Self.last ? values[Int(code &- Self.first)] : 0 }
        set {
            guard code >= Self.first && code <= Self.last else { return }
            values[Int(code &- Self.first)] = newValue
        }
    }

    /// Every value compared, the differences OR-ed with no branch: a loop the compiler turns into
    /// a few vector instructions (stopping at the first difference cost ~300 instructions a call;
    /// the mirror compares each contact's axes every frame). Inlined where it is used: a call
    /// was given a copy of one side on the stack.
    @inlinable
    public static func == (a: PanelAxes, b: PanelAxes) -> Bool {
        let x = a.values.span, y = b.values.span
        var differ: Int32 = 0
        for i in 0..<14 { differ |= x[i] ^ y[i] }
        return differ == 0
    }
}

/// Touch to wake: the touch that wakes the kiosk (every finger landing within this many ns of
/// its first frame) goes to no one until it lifts. A finger landing later while it is still
/// down (a drop of water, a stuck contact woke the kiosk) is an ordinary touch.
public enum WakeTouch {
    public static let windowNanoseconds: Int64 = 500_000_000
}

/// An event of a panel's frame that is no contact's (a key other than BTN_TOUCH and BTN_TOOL_*,
/// a switch, a misc event): the mirror passes it on as it came.
public struct PanelEvent: Sendable, Equatable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    /// Kept in one frame at most; the rest of a frame that has more is dropped.
    public static let mostInAFrame = 64

    public init(type: UInt16, code: UInt16, value: Int32) {
        (self.type, self.code, self.value) = (type, code, value)
    }

    /// Kept for the mirror: keys but the touch keys (BTN_TOUCH, BTN_TOOL_FINGER … QUINTTAP,
    /// which the mirror derives), switches, misc events.
    @inline(__always)
    public static func passes(_ type: UInt16, _ code: UInt16) -> Bool {
        switch type {
        case Evdev.EV_KEY: code != Evdev.BTN_TOUCH && !(0x145...0x148).contains(code) && !(0x14d...0x14f).contains(code)
        case Evdev.EV_SW, Evdev.EV_MSC: true
        default: false
        }
    }
}
