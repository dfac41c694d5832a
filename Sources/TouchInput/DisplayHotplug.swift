import CUdev
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Displays coming and going: the udev monitor for subsystem drm (a connector plugged or
/// unplugged raises a `change` on its card), so that the list of connectors the display check
/// reads is made again only then, never per touch. Without udevd there is none: the list is
/// made at start and on reload.
public final class DisplayHotplug {
    public let fd: Int32
    private let udev: OpaquePointer
    private let monitor: OpaquePointer

    public init?() {
        guard Posix.access("/run/udev/control", F_OK) == nil, let u = udev_new() else { return nil }
        guard let m = udev_monitor_new_from_netlink(u, "udev") else {
            udev_unref(u)
            return nil
        }
        udev_monitor_filter_add_match_subsystem_devtype(m, "drm", nil)
        guard udev_monitor_enable_receiving(m) == 0 else {
            udev_monitor_unref(m)
            udev_unref(u)
            return nil
        }
        (udev, monitor, fd) = (u, m, udev_monitor_get_fd(m))
        _ = Posix.setNonBlocking(fd)
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Reads every pending event; whether there was any.
    public func drain() -> Bool {
        var any = false
        while let dev = udev_monitor_receive_device(monitor) {
            udev_device_unref(dev)
            any = true
        }
        return any
    }
}
