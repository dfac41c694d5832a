import GestureEngine
import GestureProtocol
import SystemCalls
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// Where the calibrator's touches come from: one finger's touch at a time, from landing to lift,
/// as a position on the panel's own axes (0…1, before any calibration or rotation).
protocol CalibrationTouches {
    /// The next single-finger touch (its median position: a finger that rolls a little as it
    /// lands and lifts is where it rested), nil when `deadline` (CLOCK_MONOTONIC ns) passed or
    /// the source ended. A touch of two fingers or more is skipped, with `onSkip` told.
    mutating func next(deadline: Int64, onSkip: (String) -> Void) throws -> (u: Double, v: Double)?
}

/// Follows one touch through frames of contacts (id and position): the first finger's
/// positions from landing to lift, spoiled when a second finger comes down.
struct TouchFollower {
    private var us: [Double] = [], vs: [Double] = []
    private var fingers = 0

    /// A frame's contacts (id, u, v); the finished touch once every finger lifted.
    mutating func frame(_ contacts: [(u: Double, v: Double)]) -> Result<(u: Double, v: Double), Spoiled>? {
        if contacts.isEmpty {
            defer { (us, vs, fingers) = ([], [], 0) }
            guard fingers > 0 else { return nil }
            guard fingers == 1, !us.isEmpty else { return .failure(Spoiled()) }
            return .success((median(us), median(vs)))
        }
        fingers = max(fingers, contacts.count)
        if contacts.count == 1 {
            us.append(contacts[0].u)
            vs.append(contacts[0].v)
        }
        return nil
    }

    struct Spoiled: Error {}

    private func median(_ a: [Double]) -> Double {
        let s = a.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// Touches from the daemon: its `touch` lines for one device (subscribed to touches only), whose
/// contacts carry `u` and `v`.
struct DaemonTouches: CalibrationTouches {
    let connection: Connection
    let device: Int
    private var follower = TouchFollower()

    init(_ connection: Connection, device: Int) {
        self.connection = connection
        self.device = device
        connection.send(#"{"op":"subscribe","id":1,"gestures":false,"touches":true,"devices":[\#(device)]}"#)
    }

    mutating func next(deadline: Int64, onSkip: (String) -> Void) throws -> (u: Double, v: Double)? {
        while true {
            guard let line = connection.readLine(until: deadline) else {
                if connection.timedOut { return nil }
                throw fail("the daemon closed the connection")
            }
            guard line.hasPrefix(#"{"type":"touch""#) || line.hasPrefix(#"{"type":"error""#),
                let v = try? parseJSON(Array(line.utf8))
            else { continue }
            if case .string("error")? = v["type"] { throw fail("the daemon refused the subscription: \(line)") }
            guard case .array(let list)? = v["contacts"] else { continue }
            var contacts: [(u: Double, v: Double)] = []
            for c in list.prefix(64) {
                guard c["u"] != nil, c["v"] != nil else {
                    throw fail("the daemon's touch lines carry no u/v (a daemon older than this tool, or a replayed recording): calibrate with --node")
                }
                // The panel's own axes, 0 to 1 (a little past them on a panel's edge).
                guard let u = c.number("u", in: -0.5...1.5), let w = c.number("v", in: -0.5...1.5) else {
                    throw fail("the daemon sent a touch off the panel's axes (u, v from 0 to 1)")
                }
                contacts.append((u, w))
            }
            switch follower.frame(contacts) {
            case .success(let p)?: return p
            case .failure?: onSkip("two fingers or more: touch with one finger")
            case nil: continue
            }
        }
    }
}

/// Touches read from the panel itself (`--node`): when no daemon runs, or it reads the panel
/// beside the compositor (`observe`); a daemon that grabbed the panel leaves nothing to read.
struct PanelTouches: CalibrationTouches {
    let panel: EvdevDevice
    private var decoder: FrameDecoder
    private var follower = TouchFollower()
    private var pending: [(u: Double, v: Double)]?

    init(_ panel: EvdevDevice) throws {
        self.panel = panel
        guard let d = FrameDecoder(description: panel.description, geometry: GeometryConfiguration()) else {
            throw fail("\(panel.description.name) is not a touchscreen")
        }
        decoder = d
    }

    mutating func next(deadline: Int64, onSkip: (String) -> Void) throws -> (u: Double, v: Double)? {
        while true {
            let left = (deadline - Posix.monotonicNanoseconds()) / 1_000_000
            guard left > 0, let ready = try? Posix.poll(panel.fd, events: Int16(POLLIN), timeoutMs: Int32(min(left, 60_000))).get() else {
                return nil
            }
            if ready == 0 { continue }
            var frames: [[(u: Double, v: Double)]] = []
            var decoder = decoder
            let end: EvdevDevice.ReadEnd
            do {
                end = try panel.read { batch in
                    for e in batch.decoded {
                        guard let f = decoder.feed(e) else { continue }
                        frames.append(f.contacts.compactMap { decoder.unitPosition(ofContact: $0.id) })
                    }
                }
            } catch {
                throw fail("\(error)")
            }
            self.decoder = decoder
            for contacts in frames {
                switch follower.frame(contacts) {
                case .success(let p)?: return p
                case .failure?: onSkip("two fingers or more: touch with one finger")
                case nil: continue
                }
            }
            if end == .removed { throw fail("the panel went away") }
        }
    }
}

/// The panel being calibrated: what the configuration matches it by, its size, and its touches.
struct CalibrationPanel {
    var node: String, name: String
    var vendor: UInt16, product: UInt16
    /// The active area (mm), when the daemon or the axis resolution tells it.
    var sizeMM: (width: Double, height: Double)?
    /// The daemon's screen (its hello), when the daemon is asked.
    var screen: PixelRect?
    /// The connection to the daemon, when it gives the touches, and the file it read (nil: its
    /// built-in configuration, or no daemon).
    var daemon: Connection?
    var daemonConfig: String?
    var touches: any CalibrationTouches
}

extension CalibrationPanel {
    /// A device object of the daemon's hello (PROTOCOL.md). Every number within the range the
    /// daemon's own configuration allows (a screen of 1-65536 px, a panel of 10-4000 mm), else
    /// refused: a server at the socket's path is not trusted.
    init(daemonDevice d: JSONValue, hello: JSONValue, connection: Connection) throws {
        guard let id = d.whole("id", in: 0...Int(UInt32.max)), case .string(let name)? = d["name"], case .string(let node)? = d["node"] else {
            throw fail("the daemon's device object lacks id, name or node, or its id is not a device id")
        }
        guard name.utf8.count <= 256, node.utf8.count <= 4096 else { throw fail("the daemon's device name or node is too long") }
        func hex(_ k: String) -> UInt16 { if case .string(let s)? = d[k], s.utf8.count == 4 { return UInt16(s, radix: 16) ?? 0 } else { return 0 } }
        var size: (Double, Double)?
        if case .array(let wh)? = d["size_mm"] {
            let mm = JSONValue.object([("w", wh.first ?? .null), ("h", wh.count == 2 ? wh[1] : .null)])
            guard let w = mm.number("w", in: 10...4_000), let h = mm.number("h", in: 10...4_000) else {
                throw fail("the daemon's size_mm for the panel is not two sizes of 10 to 4000 mm")
            }
            size = (w, h)
        }
        var screen: PixelRect?
        if let s = hello["screen"] {
            guard let w = s.number("width", in: 1...65_536), let h = s.number("height", in: 1...65_536) else {
                throw fail("the daemon's screen is not 1 to 65536 px each way")
            }
            screen = PixelRect(x: 0, y: 0, width: w, height: h)
        }
        self.init(
            node: node, name: name, vendor: hex("vendor"), product: hex("product"), sizeMM: size, screen: screen, daemon: connection,
            touches: DaemonTouches(connection, device: id))
    }
}

extension GeometryConfiguration {
    /// The panel's size as the configuration gives it, else the documented default.
    var defaultSize: (width: Double, height: Double) {
        if let w = widthMM, let h = heightMM { return (w, h) }
        return Self.defaultPanelSize
    }
}
