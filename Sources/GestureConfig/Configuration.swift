#if canImport(Glibc)
    import Glibc
#endif
import GestureEngine
import PointerEmulation
import TouchFrames

/// Everything a config file says: the engine's regions and gestures, and the geometry that maps
/// panels to the screen. docs/CONFIG.md documents every key.
public struct Configuration: Sendable {
    public var engine: EngineConfiguration
    public var geometry: GeometryConfiguration
    public var daemon = DaemonSettings()
    /// Per-panel geometry (`[[panel]]`): the first whose `match` fits a device replaces `geometry`
    /// for it, e.g. two touchscreens on two monitors, each with its own output rectangle.
    public var panels: [PanelGeometry] = []
    /// `[[action]]`: what gestures do with no client (keys, commands), in file order.
    public var actions: [Action] = []
    /// `[idle] after`: seconds without a touch after which the kiosk is idle (`on = "idle"`
    /// actions fire; the next touch wakes it and is swallowed). 0: never.
    public var idleAfter: Double = 0
    /// `[idle] display`: a touch landing while every display the daemon can see is off (DRM
    /// connectors' `dpms`/`enabled`, backlights' `bl_power`/`brightness` under `sysfsRoot`) wakes
    /// the kiosk as a touch after `[idle] after` does (GUIDE.md, "Touch to wake").
    public var displayWakes = true
    /// `[idle] sysfs`: where those are read (a test's tree; "/sys" on a kiosk).
    public var sysfsRoot = "/sys"
    /// The regions with `emulate = "pointer"`, in file order, with their mappings: their
    /// gestures drive the daemon's virtual pointer as well as going to clients.
    public var pointerRegions: [PointerRegion] = []

    /// The geometry for a device: the first matching `[[panel]]`'s, else `[device]`'s.
    public func geometry(path: String, name: String, vendor: UInt16, product: UInt16) -> GeometryConfiguration {
        panels.first { devicePatternMatches($0.match, path: path, name: name, vendor: vendor, product: product) }?.geometry
            ?? geometry
    }
    /// This configuration as it applies to one device: its geometry the first matching
    /// `[[panel]]`'s (replay and trace of a recording, as the daemon's own devices get).
    public func applied(toPath path: String, name: String, vendor: UInt16, product: UInt16) -> Configuration {
        var c = self
        c.geometry = geometry(path: path, name: name, vendor: vendor, product: product)
        return c
    }

    /// The `[[panel]]` a device takes its geometry from (its `match`), if one fits.
    public func panelMatch(path: String, name: String, vendor: UInt16, product: UInt16) -> String? {
        panels.first { devicePatternMatches($0.match, path: path, name: name, vendor: vendor, product: product) }?.match
    }
    /// Where it came from (a path, or "built-in").
    public var source: String
    /// The files read, in order: the main file, then its drop-ins (ConfigDropIns.swift).
    public var files: [String] = []
    /// What the loader passed over and says as a warning (a drop-in whose name is not UTF-8).
    public var notices: [String] = []

    public init(engine: EngineConfiguration, geometry: GeometryConfiguration, source: String) {
        self.engine = engine
        self.geometry = geometry
        self.source = source
    }

    /// The built-in default: a 1920×1080 screen, one full-screen region with tap (waiting for
    /// double tap), double tap, long press, pan, swipe, pinch and edge swipes.
    public static var standard: Configuration {
        let g = GeometryConfiguration()
        return Configuration(engine: .standard(screen: g.screen), geometry: g, source: "built-in")
    }
}

/// One `[[panel]]`: which devices it is for, and their geometry.
public struct PanelGeometry: Hashable, Sendable {
    /// A node path (`/dev/input/event5`), `vvvv:pppp` (hex vendor:product), or a glob on the name.
    public var match: String
    public var geometry: GeometryConfiguration
}

/// Does a device pattern (`[[panel]] match`, `[daemon] ignore_devices`) name this device? A path
/// starting with `/`, `vvvv:pppp` in hex, or a shell glob on the device's name.
public func devicePatternMatches(_ pattern: String, path: String, name: String, vendor: UInt16, product: UInt16) -> Bool {
    if pattern.hasPrefix("/") { return pattern == path }
    if pattern.lowercased() == DeviceDescription.hex4(vendor) + ":" + DeviceDescription.hex4(product) { return true }
    return fnmatch(pattern, name, 0) == 0
}

/// The daemon's own keys, `[daemon]`.
public struct DaemonSettings: Hashable, Sendable {
    /// The listening socket's path (unless systemd passes one). Default /run/touchgestured/gestures.sock.
    public var socket = "/run/touchgestured/gestures.sock"
    /// The request socket, where connections start subscribed to nothing (one-shot clients):
    /// nil puts it beside `socket` (`SocketPaths.requests(besides:)`), "" opens none.
    public var requestSocket: String?
    /// Exec actions running at once; one more is skipped (and logged), never queued.
    public var maxActionChildren = 4
    /// The user the web bridge runs as (the web unit's `User=`): the only one, besides the
    /// daemon's own user, whose connections may say whose page they carry (`page`). Another user
    /// could name a TCP connection it made to someone else's listener, whose owner it would then
    /// be taken for. "" lets no other user. Default "touchgestured-web".
    public var bridgeUser = "touchgestured-web"
    /// The socket's group (mode 0660): members may connect. Nil keeps the daemon's group.
    public var group: String?
    /// The line of `group` in the file (for check-config's warning when it does not exist here).
    public var groupLine: Int?
    /// Clients at once; more are turned away with an error line. Default 64.
    public var maxClients = 64
    /// Connections one user (uid) may hold at once: a user that opens many (a runaway script,
    /// a hostile member of the socket's group) cannot lock out the kiosk app's user. A kiosk app
    /// needs one or two; `touchgesturectl` one at a time. Default 16 (a quarter of the default
    /// `max_clients`); taken as `max_clients` when larger.
    public var maxClientsPerUser = 16
    /// A connection that takes no lines (it subscribed to nothing: no gestures, no touches) and
    /// sends no request for this long is closed with an `idle_timeout` error line; 0 never. A
    /// client that takes lines is never idle (the stream is what it is there for). Default 30000.
    public var idleTimeoutMilliseconds = 30_000
    /// Milliseconds a second of the daemon's time that one user's requests (all its connections
    /// together) may take over time, with a burst of a tenth of a second's worth; past it the user's
    /// connections are not read until the time is paid back. A kiosk app's requests take well
    /// under 1 ms a second; a `set_regions` of 64 gestures about 1.5 ms. Default 100 (a tenth
    /// of one core).
    public var requestMsPerUser = 100
    /// The longest request line (bytes); a longer one gets an error and the connection is closed. Default 65536.
    public var maxLineBytes = 65_536
    /// Bytes of stream lines (gestures, touches, devices) queued for one client, beyond the
    /// kernel's socket buffer (about 200 KiB), before it is disconnected as too slow. The
    /// kernel's buffer behind it is already seconds of the busiest stream, more than a reader
    /// that is alive falls behind by; 8 KiB on top keeps 64 clients that never read well within
    /// 1 MiB (16 KiB measured +0.6 to +1.1 MiB in the soak: at the goal's edge). Default 8192.
    public var outputBufferBytes = 8192
    /// Continuous updates (a gesture's `changed` lines, touch lines) are written to a client at
    /// most once per this many ms; any other line goes out at once with what was held before it.
    /// 8 ms is at least one write per frame of a 120 Hz display (UIKit and browsers hand moves
    /// to apps once per display frame too); a 1 kHz panel then costs the daemon and each client
    /// 125 writes and wake-ups a second, not 1000. 0 writes every frame. Default 8.
    public var coalesceMilliseconds = 8
    /// `coalesceMilliseconds` in the nanoseconds the server holds lines by.
    public var coalesceNanoseconds: Int64 { Int64(coalesceMilliseconds) * 1_000_000 }
    /// The most that `max_clients × (output_buffer_bytes + max_line_bytes)` may be: what clients
    /// that never read, or send a line that never ends, can make the daemon hold. 64 MiB.
    public static let maxClientMemory = 64 << 20
    /// Who may send `set_regions`.
    public enum RegionPolicy: Hashable, Sendable {
        case everyone
        case nobody
        case only(uids: Set<UInt32>, gids: Set<UInt32>)
    }
    public var setRegions = RegionPolicy.everyone
    /// Devices not to read: a name glob (`*Pen*`), `vvvv:pppp` (hex vendor:product), or a node path.
    public var ignoreDevices: [String] = []
    /// How the daemon takes the touchscreens (`[device] mode`; `[daemon] grab = true` is the
    /// older spelling of `grab`).
    public var mode = DeviceMode.observe
    /// How a touch a system gesture takes ends on a virtual touchscreen (`[device] cancel`).
    public var cancel = MirrorCancel.lift

    public init() {}

    public func maySetRegions(uid: UInt32, gid: UInt32) -> Bool {
        switch setRegions {
        case .everyone: return true
        case .nobody: return false
        case .only(let uids, let gids): return uid == 0 || uids.contains(uid) || gids.contains(gid)
        }
    }
}

/// How touchscreens are read, and what the rest of the system sees of them.
public enum DeviceMode: String, CaseIterable, Hashable, Sendable {
    /// Read beside everyone else: the compositor sees every touch too.
    case observe
    /// Read exclusively (EVIOCGRAB): nothing else (libinput, a compositor) sees the touches.
    case grab
    /// Read exclusively, and every touch passed on to a virtual touchscreen that mirrors the
    /// panel, which is what the compositor reads.
    case passthrough
}

/// A configuration that cannot be used: file, line and reason.
public typealias ConfigError = FileLineError

/// The unit of a threshold key, for parsing and for docs.
public enum ThresholdUnit: String, Sendable {
    case millimeters = "mm"
    case milliseconds = "ms"
    case millimetersPerSecond = "mm/s"
    case degrees = "degrees"
    /// A similarity score, 0...1.
    case score = "score"
}

/// One threshold as a config key: its name, unit, the range a config may give (a physical one:
/// a kiosk's hands and panels, never a value that only a typo or an attack would set), and how to
/// read and write it.
public struct ThresholdKey: Sendable {
    public let key: String
    public let unit: ThresholdUnit
    public let range: ClosedRange<Double>
    let get: @Sendable (Thresholds) -> Double
    let set: @Sendable (inout Thresholds, Double) -> Void

    static func mm(_ key: String, _ range: ClosedRange<Double>, _ kp: WritableKeyPath<Thresholds, Millimeters> & Sendable) -> ThresholdKey {
        ThresholdKey(key: key, unit: .millimeters, range: range, get: { $0[keyPath: kp].value }, set: { $0[keyPath: kp] = Millimeters($1) })
    }
    static func ms(_ key: String, _ range: ClosedRange<Double>, _ kp: WritableKeyPath<Thresholds, Duration> & Sendable) -> ThresholdKey {
        ThresholdKey(
            key: key, unit: .milliseconds, range: range, get: { $0[keyPath: kp].milliseconds },
            set: { $0[keyPath: kp] = .nanoseconds(Int64(($1 * 1e6).rounded())) })
    }
    static func plain(
        _ key: String, _ unit: ThresholdUnit, _ range: ClosedRange<Double>, _ kp: WritableKeyPath<Thresholds, Double> & Sendable
    ) -> ThresholdKey {
        ThresholdKey(key: key, unit: unit, range: range, get: { $0[keyPath: kp] }, set: { $0[keyPath: kp] = $1 })
    }

    /// Every threshold, in the order docs/CONFIG.md lists them. Distances stop at 100 mm (a hand's
    /// width) where they bound a finger's drift, and at 2 m (the largest kiosk glass) where they
    /// are a travel; durations start where a panel's frame period (5-20 ms) makes them mean
    /// something and stop at a minute.
    public static let all: [ThresholdKey] = [
        .mm("tap_slop", 0...100, \.tapSlop), .ms("tap_max_duration", 10...60_000, \.tapMaxDuration),
        .ms("multi_tap_interval", 10...5_000, \.multiTapInterval), .mm("multi_tap_slop", 0...100, \.multiTapSlop),
        .ms("long_press_duration", 50...60_000, \.longPressDuration), .mm("long_press_tolerance", 0...100, \.longPressTolerance),
        .mm("pan_slop", 0...100, \.panSlop), .mm("axis_lock_threshold", 0...100, \.axisLockThreshold),
        .ms("finger_settle", 0...1_000, \.fingerSettle), .mm("swipe_min_distance", 0...2_000, \.swipeMinDistance),
        .plain("swipe_min_velocity", .millimetersPerSecond, 0...100_000, \.swipeMinVelocity),
        .ms("swipe_max_duration", 10...60_000, \.swipeMaxDuration), .ms("velocity_horizon", 5...1_000, \.velocityHorizon),
        .mm("pinch_slop", 0...100, \.pinchSlop), .plain("rotation_slop", .degrees, 0...180, \.rotationSlop),
        .mm("edge_band", 0.5...200, \.edgeBand), .mm("edge_min_distance", 0...2_000, \.edgeMinDistance),
        .mm("stroke_min_size", 1...2_000, \.strokeMinSize), .plain("stroke_min_score", .score, 0.5...1, \.strokeMinScore),
        .plain("stroke_rotation_tolerance", .degrees, 0...180, \.strokeRotationTolerance),
        .ms("stroke_max_duration", 100...60_000, \.strokeMaxDuration),
    ]

    /// The range as CONFIG.md writes it: `0-100`, `0.5-200`.
    public var rangeText: String { "\(format(range.lowerBound))-\(format(range.upperBound))" }

    static func named(_ key: String) -> ThresholdKey? { all.first { $0.key == key } }
}
