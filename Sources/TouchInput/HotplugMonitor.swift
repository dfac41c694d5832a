import CUdev
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Input nodes coming and going. With udevd running, the udev monitor ("udev" netlink group,
/// subsystem input): its events come once udev has initialized the device (properties set).
/// Without udevd (no /run/udev/control), inotify on /dev/input: devtmpfs makes and removes the
/// nodes by itself, so devices are still seen to come and go.
public final class HotplugMonitor {
    public enum Change: Equatable, Sendable {
        case added(String)
        case removed(String)
    }
    public enum Mode: String, Sendable {
        case udev = "udev monitor"
        case inotify = "inotify on /dev/input"
    }

    public let fd: Int32
    public let mode: Mode
    private let directory: String
    private var udev: OpaquePointer?
    private var monitor: OpaquePointer?

    public init(directory: String = "/dev/input", preferUdev: Bool = true) throws(SystemCallError) {
        self.directory = directory
        if preferUdev && Posix.access("/run/udev/control", F_OK) == nil, let u = udev_new(),
            let m = udev_monitor_new_from_netlink(u, "udev")
        {
            udev_monitor_filter_add_match_subsystem_devtype(m, "input", nil)
            if udev_monitor_enable_receiving(m) == 0 {
                udev = u
                monitor = m
                fd = udev_monitor_get_fd(m)
                _ = Posix.setNonBlocking(fd)
                mode = .udev
                return
            }
            udev_monitor_unref(m)
            udev_unref(u)
        }
        let ifd = cud_inotify_watch_dir(directory)
        guard ifd >= 0 else { throw SystemCallError("inotify_add_watch(\(directory))", errno) }
        fd = ifd
        mode = .inotify
    }

    deinit {
        if let monitor { udev_monitor_unref(monitor) }
        if let udev { udev_unref(udev) }
        if mode == .inotify { Posix.close(fd) }
    }

    /// Reads every pending change.
    public func drain() -> [Change] {
        var changes: [Change] = []
        switch mode {
        case .udev:
            while let m = monitor, let dev = udev_monitor_receive_device(m) {
                defer { udev_device_unref(dev) }
                guard let node = udev_device_get_devnode(dev).map({ String(cString: $0) }), node.contains("/event"),
                    let action = udev_device_get_action(dev).map({ String(cString: $0) })
                else { continue }
                if action == "add" { changes.append(.added(node)) }
                if action == "remove" { changes.append(.removed(node)) }
            }
        case .inotify:
            final class Box {
                var changes: [Change] = []
                let directory: String
                init(_ d: String) { directory = d }
            }
            let box = Box(directory)
            // Unretained: `box` lives to the end of this scope, and the C function calls back only
            // during the call.
            let context = Unmanaged.passUnretained(box).toOpaque()
            _ = cud_inotify_drain(fd, context) { ctx, created, name in
                guard let ctx, let name else { return }
                let box = Unmanaged<Box>.fromOpaque(ctx).takeUnretainedValue()
                let n = String(cString: name)
                guard n.hasPrefix("event") else { return }
                let path = box.directory + "/" + n
                box.changes.append(created != 0 ? .added(path) : .removed(path))
            }
            changes = Self.collapse(box.changes)
        }
        return changes
    }

    /// IN_CREATE and IN_ATTRIB can both report one node's arrival: a change that repeats the last
    /// change seen for its path is dropped. Order is kept, so a node removed and made again for a
    /// new device within one batch (the kernel reuses `eventN` at once) is removed, then added.
    public static func collapse(_ changes: [Change]) -> [Change] {
        var last: [String: Change] = [:]
        var out: [Change] = []
        for c in changes {
            let path: String
            switch c {
            case .added(let p), .removed(let p): path = p
            }
            if last[path] == c { continue }
            last[path] = c
            out.append(c)
        }
        return out
    }
}
