import GestureEngine

/// One evdev event: what `read(2)` gives on /dev/input/eventN, or an `E:` line of an evemu recording.
public struct InputEvent: Hashable, Sendable {
    public var time: Timestamp
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
        (self.time, self.type, self.code, self.value) = (time, type, code, value)
    }
}


/// The evdev codes this project reads (from linux/input-event-codes.h).
public enum Evdev {
    public static let EV_SYN: UInt16 = 0x00
    public static let EV_KEY: UInt16 = 0x01
    public static let EV_ABS: UInt16 = 0x03
    public static let EV_MSC: UInt16 = 0x04
    public static let EV_SW: UInt16 = 0x05
    public static let EV_MAX: UInt16 = 0x1f

    public static let SYN_REPORT: UInt16 = 0
    public static let SYN_MT_REPORT: UInt16 = 2
    public static let SYN_DROPPED: UInt16 = 3

    public static let EV_REL: UInt16 = 0x02

    /// The mouse buttons, BTN_LEFT (0x110) to BTN_TASK (0x117).
    public static let BTN_MOUSE: ClosedRange<UInt16> = 0x110...0x117
    public static let BTN_TOUCH: UInt16 = 0x14a
    public static let BTN_TOOL_FINGER: UInt16 = 0x145

    public static let ABS_X: UInt16 = 0x00
    public static let ABS_Y: UInt16 = 0x01
    public static let ABS_PRESSURE: UInt16 = 0x18
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    public static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30
    public static let ABS_MT_POSITION_X: UInt16 = 0x35
    public static let ABS_MT_POSITION_Y: UInt16 = 0x36
    public static let ABS_MT_TOOL_TYPE: UInt16 = 0x37
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39
    public static let ABS_MT_PRESSURE: UInt16 = 0x3a
    public static let ABS_MAX: UInt16 = 0x3f

    public static let MT_TOOL_FINGER: Int32 = 0
    public static let MT_TOOL_PALM: Int32 = 2

    public static let INPUT_PROP_POINTER: UInt16 = 0x00
    public static let INPUT_PROP_DIRECT: UInt16 = 0x01
}

/// An event as `read(2)` on /dev/input/eventN returns it on a 64-bit system: `struct
/// input_event`, a timeval (seconds, microseconds) then type, code and value, 24 bytes. A live
/// reader reads into these and hands them on as they are; the decoder takes the time only of
/// the SYN_REPORT that ends a frame (converting every event's time would be a tenth of a frame's work).
public struct KernelInputEvent: Sendable {
    public var seconds: Int
    public var microseconds: Int
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(seconds: Int, microseconds: Int, type: UInt16, code: UInt16, value: Int32) {
        (self.seconds, self.microseconds, self.type, self.code, self.value) = (seconds, microseconds, type, code, value)
    }

    public var time: Timestamp { Timestamp(seconds: Int64(seconds), microseconds: Int64(microseconds)) }
    public var event: InputEvent { InputEvent(time: time, type: type, code: code, value: value) }
}

/// What the frame decoder reads of an event, in either layout.
public protocol EvdevEvent {
    var time: Timestamp { get }
    var type: UInt16 { get }
    var code: UInt16 { get }
    var value: Int32 { get }
}

extension InputEvent: EvdevEvent {}
extension KernelInputEvent: EvdevEvent {}
