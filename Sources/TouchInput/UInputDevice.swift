import CEvdev
import GestureEngine
import Synchronization
import SystemCalls
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// A virtual input device made through /dev/uinput from a `DeviceDescription` (an evemu
/// recording's), so a recording can be played into the kernel: `touchgesturectl play --uinput`.
public final class UInputDevice: Sendable {
    /// What stands behind the device: one this object made (libevdev's handles, and the
    /// /dev/uinput descriptor it opened itself to give the device a `phys`, closed after the
    /// device; nil when libevdev opened and closes its own), or one a process before made and
    /// systemd's file descriptor store handed back (only its descriptor).
    // Safe: (Sendable) libevdev's handles are used at init, in deinit and by `write` (`play`'s
    // own devices, one thread); a mirror's thread only writes to `fd`, which never changes.
    private enum Backing: @unchecked Sendable {
        case made(dev: OpaquePointer, uidev: OpaquePointer, ownFD: Int32?)
        case adopted(fd: Int32)
    }
    private let backing: Backing
    /// The node the kernel made (/dev/input/eventN), when it could be found.
    public let devnode: String?
    /// The kernel's name of an adopted device ("input12"; nil for one this object made).
    public let sysname: String?
    /// The kernel device outlives this object (set when its descriptor is in systemd's store and
    /// the daemon stops: systemd's copy keeps it for the next start, and destroys it when it
    /// closes that copy on a stop).
    public var keepsDevice: Bool {
        get { keeps.load(ordering: .relaxed) }
        set { keeps.store(newValue, ordering: .relaxed) }
    }
    private let keeps = Atomic<Bool>(false)

    /// `name` replaces the description's; `phys`, the device's physical place (its `phys` in
    /// sysfs, which udev rules can match and name a link after).
    public init(_ d: DeviceDescription, name: String? = nil, phys: String? = nil) throws(EvdevError) {
        guard let dev = libevdev_new() else { throw EvdevError("libevdev_new", ENOMEM) }
        libevdev_set_name(dev, name ?? d.name)
        libevdev_set_id_bustype(dev, Int32(d.bustype))
        libevdev_set_id_vendor(dev, Int32(d.vendor))
        libevdev_set_id_product(dev, Int32(d.product))
        libevdev_set_id_version(dev, Int32(d.version))
        for p in d.properties { libevdev_enable_property(dev, UInt32(p)) }
        for (type, codes) in d.codes.sorted(by: { $0.key < $1.key }) where type != Evdev.EV_SYN {
            libevdev_enable_event_type(dev, UInt32(type))
            for code in codes.sorted() {
                if type == Evdev.EV_ABS, let a = d.axes[code] {
                    var info = input_absinfo(value: 0, minimum: a.minimum, maximum: a.maximum, fuzz: a.fuzz, flat: a.flat, resolution: a.resolution)
                    libevdev_enable_event_code(dev, UInt32(type), UInt32(code), &info)
                } else if type != Evdev.EV_ABS {
                    libevdev_enable_event_code(dev, UInt32(type), UInt32(code), nil)
                }
            }
        }
        let ownFD = try phys.map { (p) throws(EvdevError) in try Self.openUinput(phys: p, freeing: dev) }
        do {
            let (uidev, devnode) = try Self.create(dev, what: "libevdev_uinput_create_from_device", fd: ownFD)
            (backing, self.devnode, sysname) = (.made(dev: dev, uidev: uidev, ownFD: ownFD), devnode, nil)
        } catch {
            if let ownFD { Posix.close(ownFD) }
            throw error
        }
    }

    /// The live device made on /dev/uinput descriptor `fd` by an earlier process (systemd's
    /// file descriptor store passed it back): this object owns `fd` from here, and closes it
    /// when it fails. Fails when `fd` is not /dev/uinput or no device is made on it (UI_GET_SYSNAME).
    public init(adopting fd: Int32) throws(EvdevError) {
        guard Self.isUinput(fd) == true else {
            Posix.close(fd)
            throw EvdevError(call: "fstat (not /dev/uinput)", errno: ENODEV)
        }
        guard let sysname = Self.sysname(fd) else {
            Posix.close(fd)
            throw EvdevError(call: "UI_GET_SYSNAME", errno: ENOENT)
        }
        let node = Posix.directoryNames("/sys/class/input/\(sysname)")?.first { $0.hasPrefix("event") }
        (backing, devnode, self.sysname) = (.adopted(fd: fd), node.map { "/dev/input/\($0)" }, sysname)
    }

    /// Whether `fd` is open on /dev/uinput (nil: not open at all).
    public static func isUinput(_ fd: Int32) -> Bool? {
        switch cev_is_uinput(fd) {
        case 1: true
        case 0: false
        default: nil
        }
    }

    /// The name the kernel gave the device made on /dev/uinput descriptor `fd` ("input12"), if any.
    public static func sysname(_ fd: Int32) -> String? {
        var name = [CChar](repeating: 0, count: 64)
        // Safe: the ioctl writes at most `name.count` bytes, NUL-terminated, into the array it is lent.
        let rc = name.withUnsafeMutableBufferPointer { cev_uinput_sysname(fd, $0.baseAddress, UInt32($0.count)) }
        guard rc == 0 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// /dev/uinput opened, with the device-to-be's `phys` set on it. On failure `dev` is freed.
    static func openUinput(phys: String, freeing dev: OpaquePointer) throws(EvdevError) -> Int32 {
        let fd: Int32
        switch Posix.open("/dev/uinput", O_RDWR) {
        case .success(let d): fd = d.release()  // this device's from here (closed in deinit, or below)
        case .failure(let e):
            libevdev_free(dev)
            throw e
        }
        let rc = cev_uinput_set_phys(fd, phys)
        guard rc == 0 else {
            Posix.close(fd)
            libevdev_free(dev)
            throw EvdevError("UI_SET_PHYS", -rc)
        }
        return fd
    }

    /// Makes the kernel device for `dev` through /dev/uinput (`fd`, or one libevdev opens and
    /// closes): the handle and its node. On failure `dev` is freed and `what` names the error.
    static func create(_ dev: OpaquePointer, what: String, fd: Int32? = nil) throws(EvdevError) -> (OpaquePointer, String?) {
        var ui: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, fd ?? Int32(CEV_UINPUT_OPEN_MANAGED), &ui)
        guard rc == 0, let ui else {
            libevdev_free(dev)
            throw EvdevError(what, -rc)
        }
        return (ui, libevdev_uinput_get_devnode(ui).map { String(cString: $0) })
    }

    /// The /dev/uinput descriptor: events written to it whole (`struct input_event`s) are the
    /// device's, as `write` sends them one at a time.
    public var fd: Int32 {
        switch backing {
        case .made(_, let uidev, _): libevdev_uinput_get_fd(uidev)
        case .adopted(let fd): fd
        }
    }

    deinit {
        switch backing {
        case .made(let dev, let uidev, let ownFD):
            // Kept: only the descriptor is closed (libevdev's handle has no way to go without
            // destroying the device: its few bytes are left, once, as the daemon stops).
            if keepsDevice, let ownFD {
                Posix.close(ownFD)
            } else {
                libevdev_uinput_destroy(uidev)
                if let ownFD { Posix.close(ownFD) }
            }
            libevdev_free(dev)
        case .adopted(let fd):
            if !keepsDevice { _ = cev_uinput_destroy(fd) }
            Posix.close(fd)
        }
    }

    /// One event (`touchgesturectl play`: devices it made itself).
    public func write(_ e: InputEvent) throws(EvdevError) {
        guard case .made(_, let uidev, _) = backing else { throw EvdevError("write", EBADF) }
        let rc = libevdev_uinput_write_event(uidev, UInt32(e.type), UInt32(e.code), e.value)
        guard rc == 0 else { throw EvdevError("libevdev_uinput_write_event", -rc) }
    }
}
