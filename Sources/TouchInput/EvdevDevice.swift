import CEvdev
import GestureEngine
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// A libevdev call that failed: the call's name and the errno it returned.
public struct EvdevError: Error, CustomStringConvertible {
    public var call: String
    public var code: Int32
    public init(_ call: String, _ code: Int32) {
        self.call = call
        self.code = code
    }
    public var description: String { "\(call): \(String(cString: strerror(code)))" }
    /// The device went away (unplugged): an expected event, not a failure.
    public var isRemoval: Bool { code == ENODEV }
}

/// One /dev/input node read with libevdev: opened non-blocking on CLOCK_MONOTONIC, read until
/// EAGAIN at each wake-up, resynchronized after SYN_DROPPED. No C type leaves this module.
public final class EvdevDevice {
    public let path: String
    public let fd: Int32
    private let dev: OpaquePointer
    public private(set) var description: DeviceDescription
    /// SYN_DROPPED resyncs so far.
    public private(set) var resyncs = 0

    public init(path: String) throws(EvdevError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw EvdevError("open(\(path))", errno) }
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &dev)
        guard rc == 0, let dev else {
            close(fd)
            throw EvdevError("libevdev_new_from_fd(\(path))", -rc)
        }
        self.fd = fd
        self.dev = dev
        _ = libevdev_set_clock_id(dev, CLOCK_MONOTONIC)
        description = Self.describe(dev)
    }

    deinit {
        libevdev_free(dev)
        close(fd)
    }

    /// Exclusive access (no other reader, e.g. libinput, sees the touches).
    public func grab(_ on: Bool) throws(EvdevError) {
        let rc = libevdev_grab(dev, on ? libevdev_grab_mode(rawValue: UInt32(CEV_GRAB)) : libevdev_grab_mode(rawValue: UInt32(CEV_UNGRAB)))
        guard rc == 0 else { throw EvdevError("libevdev_grab", -rc) }
    }

    public enum ReadEnd {
        /// Everything available was read (EAGAIN).
        case drained
        /// The device is gone (ENODEV).
        case removed
    }

    /// Reads every available event into `deliver`. After SYN_DROPPED, `resynced` is called first
    /// and then libevdev's sync events follow (they bring the state to exactly the kernel's:
    /// lifted contacts lift, new ones begin, no phantom remains), ending with a SYN_REPORT.
    public func read(deliver: (InputEvent) -> Void, resynced: () -> Void) throws(EvdevError) -> ReadEnd {
        var ev = input_event()
        var flags = UInt32(CEV_READ_FLAG_NORMAL)
        while true {
            let rc = libevdev_next_event(dev, flags, &ev)
            if rc == -EAGAIN {
                if flags == UInt32(CEV_READ_FLAG_SYNC) {
                    flags = UInt32(CEV_READ_FLAG_NORMAL)
                    continue
                }
                return .drained
            }
            if rc == -EINTR { continue }
            if rc == -ENODEV { return .removed }
            if rc < 0 { throw EvdevError("libevdev_next_event(\(path))", -rc) }
            if rc == Int32(CEV_READ_STATUS_SYNC) {
                if flags != UInt32(CEV_READ_FLAG_SYNC) {
                    // The SYN_DROPPED itself: switch to sync mode and tell the caller.
                    flags = UInt32(CEV_READ_FLAG_SYNC)
                    resyncs += 1
                    resynced()
                    continue
                }
            }
            deliver(
                InputEvent(
                    time: Timestamp(nanoseconds: cev_event_nanoseconds(&ev)), type: ev.type, code: ev.code, value: ev.value))
        }
    }

    /// The device's identity and capabilities as a `DeviceDescription` (the form evemu uses).
    static func describe(_ dev: OpaquePointer) -> DeviceDescription {
        var d = DeviceDescription(name: libevdev_get_name(dev).map { String(cString: $0) } ?? "")
        d.bustype = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev))
        d.vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev))
        d.product = UInt16(truncatingIfNeeded: libevdev_get_id_product(dev))
        d.version = UInt16(truncatingIfNeeded: libevdev_get_id_version(dev))
        for p in UInt32(0)..<32 where libevdev_has_property(dev, p) == 1 { d.properties.insert(UInt16(p)) }
        let ranges: [(UInt16, UInt32)] = [(Evdev.EV_SYN, 16), (Evdev.EV_KEY, 0x300), (Evdev.EV_ABS, 0x40)]
        for (type, count) in ranges where libevdev_has_event_type(dev, UInt32(type)) == 1 {
            var set = Set<UInt16>()
            for code in UInt32(0)..<count where libevdev_has_event_code(dev, UInt32(type), code) == 1 {
                set.insert(UInt16(code))
            }
            d.codes[type] = set
        }
        for code in d.codes[Evdev.EV_ABS] ?? [] {
            guard let a = libevdev_get_abs_info(dev, UInt32(code)) else { continue }
            d.axes[code] = AbsAxis(
                minimum: a.pointee.minimum, maximum: a.pointee.maximum, fuzz: a.pointee.fuzz, flat: a.pointee.flat,
                resolution: a.pointee.resolution)
        }
        return d
    }
}
