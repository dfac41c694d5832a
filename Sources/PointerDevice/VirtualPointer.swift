import GestureEngine
import PointerEmulation
import SystemCalls
import TouchFrames
import TouchInput

/// The daemon's virtual pointer, made through /dev/uinput while some region has
/// `emulate = "pointer"`: absolute position over the screen (ABS_X/ABS_Y in screen pixels, so the
/// pointer jumps to the finger), the left, right and middle buttons, the wheel in notches and in
/// high resolution (REL_WHEEL/REL_HWHEEL and their _HI_RES, 120 a notch), and Ctrl for zoom steps.
/// It has buttons and no touch, so udev classifies it `ID_INPUT_MOUSE` and libinput reads it as a
/// pointer with absolute motion.
public final class VirtualPointer: PointerSink {
    public static let name = "touchgestured pointer"
    private let device: UInputDevice
    /// The screen it spans (pixels).
    public let width: Int32
    public let height: Int32
    /// The events of one `send`, kept between calls so that a send allocates nothing.
    private var scratch: [KernelInputEvent] = []

    /// The node the kernel made (/dev/input/eventN), when it could be found.
    public var devnode: String? { device.devnode }

    public init(screenWidth: Double, screenHeight: Double) throws(EvdevError) {
        width = Int32(max(2, screenWidth.rounded()))
        height = Int32(max(2, screenHeight.rounded()))
        device = try UInputDevice(Self.description(width: width, height: height))
        scratch.reserveCapacity(64)
    }

    static let EV_REL: UInt16 = 0x02
    static let REL_HWHEEL: UInt16 = 0x06
    static let REL_WHEEL: UInt16 = 0x08
    static let REL_WHEEL_HI_RES: UInt16 = 0x0b
    static let REL_HWHEEL_HI_RES: UInt16 = 0x0c
    static let KEY_LEFTCTRL: UInt16 = 29

    static func code(_ b: PointerButton) -> UInt16 {
        switch b {
        case .left: 0x110
        case .right: 0x111
        case .middle: 0x112
        }
    }

    /// What the device has: its axes over the screen, its buttons, wheels and key.
    public static func description(width: Int32, height: Int32) -> DeviceDescription {
        var d = DeviceDescription(name: name)
        d.bustype = 0x06  // BUS_VIRTUAL
        d.vendor = 0x7467  // "tg"
        d.product = 0x7074  // "pt"
        d.version = 1
        d.codes[Evdev.EV_KEY] = [code(.left), code(.right), code(.middle), KEY_LEFTCTRL]
        d.codes[EV_REL] = [REL_WHEEL, REL_HWHEEL, REL_WHEEL_HI_RES, REL_HWHEEL_HI_RES]
        d.codes[Evdev.EV_ABS] = [Evdev.ABS_X, Evdev.ABS_Y]
        d.axes[Evdev.ABS_X] = AbsAxis(minimum: 0, maximum: width - 1)
        d.axes[Evdev.ABS_Y] = AbsAxis(minimum: 0, maximum: height - 1)
        return d
    }

    /// The evdev frames for `ops`, each ended by its SYN_REPORT (what `send` writes).
    public static func events(_ ops: [PointerOp], width: Int32, height: Int32, into out: inout [KernelInputEvent]) {
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            out.append(KernelInputEvent(seconds: 0, microseconds: 0, type: type, code: code, value: value))
        }
        for op in ops {
            switch op.kind {
            case .move(let p):
                add(Evdev.EV_ABS, Evdev.ABS_X, min(max(0, Int32(clamping: Int64(p.x.rounded()))), width - 1))
                add(Evdev.EV_ABS, Evdev.ABS_Y, min(max(0, Int32(clamping: Int64(p.y.rounded()))), height - 1))
            case .press(let b): add(Evdev.EV_KEY, code(b), 1)
            case .release(let b): add(Evdev.EV_KEY, code(b), 0)
            case .ctrl(let pressed): add(Evdev.EV_KEY, KEY_LEFTCTRL, pressed ? 1 : 0)
            case .wheel(let w):
                // The kernel's order: the high-resolution axes first, then the notches they complete.
                if w.vertical != 0 { add(EV_REL, REL_WHEEL_HI_RES, w.vertical) }
                if w.horizontal != 0 { add(EV_REL, REL_HWHEEL_HI_RES, w.horizontal) }
                if w.verticalNotches != 0 { add(EV_REL, REL_WHEEL, w.verticalNotches) }
                if w.horizontalNotches != 0 { add(EV_REL, REL_HWHEEL, w.horizontalNotches) }
            }
            add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        }
    }

    /// Writes `ops` in one `write(2)`; the kernel stamps each event with its own time.
    public func send(_ ops: [PointerOp]) -> SystemCallError? {
        guard !ops.isEmpty else { return nil }
        scratch.removeAll(keepingCapacity: true)
        Self.events(ops, width: width, height: height, into: &scratch)
        // Safe: the buffer is the array's own storage, alive and unchanged for the call.
        return scratch.withUnsafeBytes { Posix.writeAll(device.fd, $0, "write(uinput pointer)") }
    }
}

/// Where pointer ops go: the virtual pointer, or a test's list.
public protocol PointerSink: AnyObject {
    /// Writes `ops` in one go; the error if it failed.
    func send(_ ops: [PointerOp]) -> SystemCallError?
}
