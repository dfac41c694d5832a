import GestureEngine
import PointerEmulation
import Testing
import TouchFrames

@testable import PointerDevice

/// What the virtual pointer is (what udev and libinput classify) and the evdev frames it writes
/// for each pointer op; the device itself needs /dev/uinput (the qemu case `pointer`).
@Suite struct VirtualPointerTests {
    @Test func description_isAnAbsoluteMouse_overTheScreen() {
        let d = VirtualPointer.description(width: 1920, height: 1080)
        #expect(d.axes[Evdev.ABS_X]?.maximum == 1919 && d.axes[Evdev.ABS_Y]?.maximum == 1079)
        #expect(d.codes[Evdev.EV_KEY] == [0x110, 0x111, 0x112, 29], "left, right, middle, Ctrl: no BTN_TOUCH (a mouse, not a touchscreen)")
        #expect(d.codes[0x02] == [0x06, 0x08, 0x0b, 0x0c], "the wheels, with high resolution")
        #expect(!d.properties.contains(Evdev.INPUT_PROP_DIRECT))
        #expect(d.touchKind == nil)
    }

    static func shown(_ ops: [PointerOp.Kind]) -> [String] {
        var out: [KernelInputEvent] = []
        VirtualPointer.events(ops.map { PointerOp(time: .zero, kind: $0, region: 0) }, width: 1920, height: 1080, into: &out)
        return out.map { "\($0.type):\($0.code)=\($0.value)" }
    }

    @Test func eachOp_isOneFrame() {
        #expect(Self.shown([.move(PixelPoint(x: 300.4, y: 2000)), .press(.right), .release(.right)])
            == ["3:0=300", "3:1=1079", "0:0=0", "1:273=1", "0:0=0", "1:273=0", "0:0=0"])
        #expect(Self.shown([.wheel(PointerWheel(vertical: -180, horizontal: 0, verticalNotches: -1))]) == ["2:11=-180", "2:8=-1", "0:0=0"])
        #expect(Self.shown([.wheel(PointerWheel(vertical: 0, horizontal: 30))]) == ["2:12=30", "0:0=0"])
        #expect(Self.shown([.ctrl(pressed: true), .move(PixelPoint(x: -5, y: 3))]) == ["1:29=1", "0:0=0", "3:0=0", "3:1=3", "0:0=0"])
    }
}
