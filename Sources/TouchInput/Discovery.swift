import CUdev
import GestureEngine
import SystemCalls
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// An input node as discovery sees it: what udev says of it (when udev initialized it), and
/// whether touchgestured takes it, and why.
public struct InputNode: Sendable {
    public var path: String
    public var syspath: String?
    /// udev's properties of interest (ID_INPUT_TOUCHSCREEN, TOUCHGESTURED_IGNORE,
    /// LIBINPUT_CALIBRATION_MATRIX, ID_INPUT_WIDTH_MM, ID_INPUT_HEIGHT_MM, ID_PATH), when udev
    /// initialized it.
    public var properties: [String: String] = [:]
    public var udevInitialized = false

    public init(path: String) { self.path = path }

    /// LIBINPUT_CALIBRATION_MATRIX as six numbers, if set and well-formed.
    public var calibration: [Double]? {
        guard let m = properties["LIBINPUT_CALIBRATION_MATRIX"] else { return nil }
        let v = m.split(separator: " ").compactMap { Double($0) }
        return v.count == 6 && v.allSatisfy(\.isFinite) ? v : nil
    }

    /// ID_INPUT_WIDTH_MM / HEIGHT_MM, if udev measured the panel.
    public var sizeMM: (width: Double, height: Double)? {
        guard let w = properties["ID_INPUT_WIDTH_MM"].flatMap(Double.init),
            let h = properties["ID_INPUT_HEIGHT_MM"].flatMap(Double.init), w > 0, h > 0
        else { return nil }
        return (w, h)
    }
}

/// The verdict on a node.
public enum Classification: Sendable, Equatable {
    case taken(reason: String)
    case skipped(reason: String)
}

/// Finds touchscreens: with libudev when udev initialized the devices (ID_INPUT_TOUCHSCREEN=1),
/// else from the device's own capabilities (INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y, or ABS_X/Y
/// with BTN_TOUCH) — minimal kiosk images often run no udevd. Nodes are found by their name
/// (eventN), never by position.
public enum Discovery {
    /// Ends the name of every mirror (pass-through's virtual touchscreen, `VirtualTouchscreen`):
    /// discovery and the udev rule never take a device named so (this daemon's, or another's).
    public static let mirrorNameSuffix = " (touchgestured)"

    static let keys = ["ID_INPUT_TOUCHSCREEN", "TOUCHGESTURED_IGNORE", "LIBINPUT_CALIBRATION_MATRIX", "ID_INPUT_WIDTH_MM", "ID_INPUT_HEIGHT_MM", "ID_INPUT", "ID_PATH"]

    /// Every /dev/input/eventN, with what udev knows of it.
    public static func nodes(directory: String = "/dev/input") -> [InputNode] {
        var byPath: [String: InputNode] = [:]
        if let udev = udev_new() {
            defer { udev_unref(udev) }
            if let e = udev_enumerate_new(udev) {
                defer { udev_enumerate_unref(e) }
                udev_enumerate_add_match_subsystem(e, "input")
                udev_enumerate_scan_devices(e)
                var entry = udev_enumerate_get_list_entry(e)
                while let item = entry {
                    if let sys = udev_list_entry_get_name(item), let dev = udev_device_new_from_syspath(udev, sys) {
                        if let node = describe(dev) { byPath[node.path] = node }
                        udev_device_unref(dev)
                    }
                    entry = udev_list_entry_get_next(item)
                }
            }
        }
        // Nodes udev did not list (no sysfs view, or a directory elsewhere): from the directory.
        for name in Posix.directoryNames(directory) ?? [] where name.hasPrefix("event") {
            let path = directory + "/" + name
            if byPath[path] == nil { byPath[path] = InputNode(path: path) }
        }
        return byPath.values.sorted { eventNumber($0.path) < eventNumber($1.path) }
    }

    /// What udev says of one node (by its device path), for hotplug.
    public static func node(devnode path: String) -> InputNode {
        var node = InputNode(path: path)
        guard let udev = udev_new() else { return node }
        defer { udev_unref(udev) }
        guard case .success(let st) = Posix.status(path),
            let dev = udev_device_new_from_devnum(udev, Int8(UInt8(ascii: "c")), dev_t(st.deviceNumber))
        else {
            return node
        }
        defer { udev_device_unref(dev) }
        if let n = describe(dev) { node = n }
        return node
    }

    static func describe(_ dev: OpaquePointer) -> InputNode? {
        guard let devnode = udev_device_get_devnode(dev).map({ String(cString: $0) }), devnode.contains("/event") else {
            return nil
        }
        var node = InputNode(path: devnode)
        node.syspath = udev_device_get_syspath(dev).map { String(cString: $0) }
        node.udevInitialized = udev_device_get_is_initialized(dev) == 1
        for k in keys {
            if let v = udev_device_get_property_value(dev, k) { node.properties[k] = String(cString: v) }
        }
        return node
    }

    static func eventNumber(_ path: String) -> Int { Int(path.split(separator: "event").last ?? "") ?? Int.max }

    /// Does touchgestured take this device? `description` is what the device itself reports.
    public static func classify(_ node: InputNode, _ description: DeviceDescription, excluded: (InputNode, DeviceDescription) -> String?)
        -> Classification
    {
        if description.name.hasSuffix(Discovery.mirrorNameSuffix) { return .skipped(reason: "a virtual touchscreen of touchgestured's (pass-through)") }
        if node.properties["TOUCHGESTURED_IGNORE"] == "1" { return .skipped(reason: "udev TOUCHGESTURED_IGNORE=1") }
        if let why = excluded(node, description) { return .skipped(reason: why) }
        if node.udevInitialized && node.properties["ID_INPUT_TOUCHSCREEN"] == "1" {
            guard description.touchKind != nil else { return .skipped(reason: "udev says touchscreen, but it reports no touch axes") }
            return .taken(reason: "udev ID_INPUT_TOUCHSCREEN=1")
        }
        if let kind = description.touchKind {
            return .taken(reason: "capabilities (\(kind.rawValue)\(description.properties.contains(Evdev.INPUT_PROP_DIRECT) ? ", INPUT_PROP_DIRECT" : ""))")
        }
        if node.udevInitialized { return .skipped(reason: "not a touchscreen (udev)") }
        return .skipped(reason: "not a touchscreen (capabilities)")
    }
}
