import SystemCalls
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// A panel's mirror in pass-through mode (`[device] mode = "passthrough"`): a uinput touchscreen
/// with the panel's axes, ranges, resolutions, slot count, keys and properties (so udev
/// classifies it `ID_INPUT_TOUCHSCREEN` and libinput reads it as it would the panel), named
/// after it with " (touchgestured)". The compositor reads this one while the daemon holds the
/// panel (EVIOCGRAB). It goes when this object goes, or with the daemon's process: the kernel
/// then destroys the device and releases the grab, and the compositor has the panel again.
public final class VirtualTouchscreen: TouchSink, Sendable {
    /// Ends every mirror's name (`Discovery.mirrorNameSuffix`).
    public static var nameSuffix: String { Discovery.mirrorNameSuffix }

    private let device: UInputDevice
    /// The node the kernel made (/dev/input/eventN), when it could be found.
    public var devnode: String? { device.devnode }

    /// `described`: the mirror's description (`description(mirroring:)`), named after its panel;
    /// `place`: the panel's (`place(idPath:phys:node:)`), the mirror's `phys`, which the udev
    /// rule names its link after (/dev/input/touchgestured/PLACE).
    public init(_ described: DeviceDescription, place: String? = nil) throws(EvdevError) {
        device = try UInputDevice(described, name: Self.name(mirroring: described.name), phys: place)
    }

    /// The mirror an earlier process made on /dev/uinput descriptor `fd` (systemd's file
    /// descriptor store passed it back), taken back with every touch that process left down
    /// ended as `cancel` ends a touch; `described` is what it was made from (`fingerprint`
    /// said so). Owns `fd`.
    public init(adopting fd: Int32, described: DeviceDescription, cancel: MirrorCancel) throws(EvdevError) {
        device = try UInputDevice(adopting: fd)
        if let e = send(MirrorDevice(described).liftEverything(cancel: cancel)) { throw e }
    }

    /// The /dev/uinput descriptor (what systemd's store keeps).
    public var fd: Int32 { device.fd }

    /// The kernel's name of a mirror taken back ("input12"; nil for one made here).
    public var sysname: String? { device.sysname }

    /// The device outlives this object (`UInputDevice.keepsDevice`).
    public var keepsDevice: Bool {
        get { device.keepsDevice }
        set { device.keepsDevice = newValue }
    }

    /// How a kept mirror is made and what a mirror taken back assumes of it: a release that
    /// changes either counts this up, and its first start makes the mirrors anew.
    static let keptFormat = 1

    /// 16 hex digits that change with anything the mirror made from `described` at `place` is
    /// made of (name, ids, properties, codes, axes, phys): a kept mirror is taken back only by
    /// a panel that would make the same one (FNV-1a over the description as evemu writes it).
    public static func fingerprint(of described: DeviceDescription, place: String) -> String {
        var d = described
        d.name = name(mirroring: described.name)
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in (Evemu.format(Recording(description: d, events: [])) + "phys " + place + "\nformat \(keptFormat)").utf8 {
            h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Where a panel is, as a name that stays when the system restarts and the event numbers
    /// change: udev's `ID_PATH` (the bus path /dev/input/by-path names it by, so two identical
    /// panels differ), else the driver's `phys`, else the node's name (`event5`, which can
    /// change). Made of letters, digits and `._-` only (anything else, a dot after a dot, and the
    /// `:` of a USB or PCI path, which Qt's `QT_QPA_EVDEV_TOUCHSCREEN_PARAMETERS` would split at,
    /// become `-`), at most 120 bytes: a file name in /dev/input/touchgestured.
    public static func place(idPath: String?, phys: String?, node: String) -> String {
        let raw = [idPath, phys].compactMap { $0 }.first { !$0.isEmpty } ?? String(node.split(separator: "/").last ?? "")
        var out = ""
        for u in raw.unicodeScalars.prefix(120) {
            let ok = ("a"..."z").contains(u) || ("A"..."Z").contains(u) || ("0"..."9").contains(u) || "_-".unicodeScalars.contains(u)
                || (u == "." && out.unicodeScalars.last != ".")
            out.unicodeScalars.append(ok ? u : "-")
        }
        // Never "." nor the name of the link every mirror claims.
        return out.isEmpty || out == "." || out == sharedLink ? "panel-" + out : out
    }

    /// The link every mirror claims (udev points it at one of them, and at another when that one
    /// goes; with one panel, its mirror): /dev/input/touchgestured/touchscreen.
    public static let sharedLink = "touchscreen"

    /// `place`, or, when another mirror has it (two interfaces of one device, two panels on one
    /// Bluetooth adapter, a place cut at its length), `place-2`, `place-3`, ...: each mirror's
    /// link its own.
    public static func unique(_ place: String, among used: some Collection<String>) -> String {
        guard used.contains(place) else { return place }
        var n = 2
        while used.contains("\(place)-\(n)") { n += 1 }
        return "\(place)-\(n)"
    }

    /// The panel's description, with slots added to a protocol A panel (the mirror writes
    /// protocol B), tracking ids 0-65535 (its own) on any multitouch one, `ABS_MT_TOOL_TYPE` (0-2) added to a multitouch panel that
    /// lacks it (a touch a system gesture takes is cancelled as `MT_TOOL_PALM`, which the kernel
    /// drops on a device without the axis), and nothing a mouse has: no mouse button (a panel
    /// that advertises BTN_LEFT is `ID_INPUT_MOUSE` to udev, and a compositor may then treat it
    /// as a pointer and ignore its output mapping), no relative axis, and INPUT_PROP_DIRECT set.
    public static func description(mirroring panel: DeviceDescription, unfuzzed: Bool = false) -> DeviceDescription {
        var d = panel
        // `unfuzzed`: the panel's positions are filtered (`ContactFilter`); the kernel's own
        // smoothing (an axis's fuzz) would hold them back again.
        if unfuzzed {
            for code in [Evdev.ABS_X, Evdev.ABS_Y, Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y] where d.axes[code] != nil {
                d.axes[code]!.fuzz = 0
            }
        }
        // A protocol A panel is mirrored with slots (protocol B): the decoder tracks its contacts.
        if d.isProtocolA {
            d.axes[Evdev.ABS_MT_SLOT] = AbsAxis(minimum: 0, maximum: Int32(DeviceDescription.protocolASlots - 1))
            d.codes[Evdev.EV_ABS, default: []].insert(Evdev.ABS_MT_SLOT)
        }
        // Its tracking ids are its own (`MirrorContacts`), from 0 up: a panel's own range (some
        // advertise 0-3, or start past 0) would wrap them onto an id still shown.
        if d.touchKind == .multitouch {
            d.axes[Evdev.ABS_MT_TRACKING_ID] = AbsAxis(minimum: 0, maximum: 65535)
            d.codes[Evdev.EV_ABS, default: []].insert(Evdev.ABS_MT_TRACKING_ID)
        }
        if d.touchKind == .multitouch && d.axes[Evdev.ABS_MT_TOOL_TYPE] == nil {
            d.axes[Evdev.ABS_MT_TOOL_TYPE] = AbsAxis(minimum: 0, maximum: Int32(Evdev.MT_TOOL_PALM))
            d.codes[Evdev.EV_ABS, default: []].insert(Evdev.ABS_MT_TOOL_TYPE)
        }
        d.codes[Evdev.EV_KEY]?.subtract(Evdev.BTN_MOUSE)
        d.codes[Evdev.EV_REL] = nil
        d.properties.remove(Evdev.INPUT_PROP_POINTER)
        d.properties.insert(Evdev.INPUT_PROP_DIRECT)
        return d
    }

    /// "<panel's name> (touchgestured)", the panel's name shortened (at a character) so the
    /// whole fits uinput's 80 bytes with its NUL.
    public static func name(mirroring panel: String) -> String {
        let room = 79 - nameSuffix.utf8.count
        var name = Substring(panel)
        while name.utf8.count > room { name = name.dropLast() }
        return String(name) + nameSuffix
    }

    /// Does `name` belong to a mirror (this daemon's or another's)?
    public static func isMirror(named name: String) -> Bool { name.hasSuffix(nameSuffix) }

    /// Sends `events` (whole `struct input_event`s, frames ended by their SYN_REPORT) in one
    /// `write(2)`: the kernel takes them in order, as one batch for the readers.
    public func send(_ events: [KernelInputEvent]) -> SystemCallError? {
        guard !events.isEmpty else { return nil }
        // Safe: the buffer is the array's, lent for the call.
        return events.withUnsafeBytes { Posix.writeAll(device.fd, $0, "write(uinput)") }
    }
}

/// Where a mirror's frames go: its virtual touchscreen, or a test's list.
public protocol TouchSink: AnyObject {
    /// Writes whole frames in one go; the error if it failed.
    func send(_ events: [KernelInputEvent]) -> SystemCallError?
}
