import CEvdev
import GestureEngine
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's one virtual keyboard, made through /dev/uinput when a key action is configured.
/// The compositor (Wayland, X11) or the console sees a real keyboard, so a chord works the same
/// everywhere, with no xdotool and no compositor protocol. It has every key below BTN_MISC (so
/// udev classifies it `ID_INPUT_KEYBOARD=1`) and any higher key an action names.
public final class VirtualKeyboard {
    public static let name = "touchgestured virtual keyboard"
    private let dev: OpaquePointer
    private let uidev: OpaquePointer
    /// The node the kernel made (/dev/input/eventN), when it could be found.
    public let devnode: String?
    public let keys: Set<UInt16>

    /// `extraKeys`: codes at or above BTN_MISC (0x100) that actions use (KEY_OK and later).
    public init(extraKeys: Set<UInt16> = []) throws(EvdevError) {
        guard let dev = libevdev_new() else { throw EvdevError("libevdev_new", ENOMEM) }
        libevdev_set_name(dev, Self.name)
        libevdev_set_id_bustype(dev, 0x06)  // BUS_VIRTUAL
        libevdev_set_id_vendor(dev, 0x7467)  // "tg"
        libevdev_set_id_product(dev, 0x6b62)  // "kb"
        libevdev_set_id_version(dev, 1)
        libevdev_enable_event_type(dev, UInt32(Evdev.EV_KEY))
        var keys = Set<UInt16>()
        for code in UInt16(1)..<0x100 { keys.insert(code) }
        keys.formUnion(extraKeys)
        for code in keys.sorted() { libevdev_enable_event_code(dev, UInt32(Evdev.EV_KEY), UInt32(code), nil) }
        (uidev, devnode) = try UInputDevice.create(dev, what: "creating the virtual keyboard (/dev/uinput)")
        self.dev = dev
        self.keys = keys
    }

    deinit {
        libevdev_uinput_destroy(uidev)
        libevdev_free(dev)
    }

    /// Presses the keys in order and releases them in reverse, a SYN_REPORT after each, as a
    /// person pressing the chord would.
    public func press(_ chord: [UInt16]) throws(EvdevError) {
        for code in chord { try key(code, 1) }
        for code in chord.reversed() { try key(code, 0) }
    }

    private func key(_ code: UInt16, _ value: Int32) throws(EvdevError) {
        var rc = libevdev_uinput_write_event(uidev, UInt32(Evdev.EV_KEY), UInt32(code), value)
        if rc == 0 { rc = libevdev_uinput_write_event(uidev, UInt32(Evdev.EV_SYN), UInt32(Evdev.SYN_REPORT), 0) }
        guard rc == 0 else { throw EvdevError("writing to the virtual keyboard", -rc) }
    }
}
