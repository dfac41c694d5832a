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
            if !connection.hasBufferedLine {
                let left = (deadline - Posix.monotonicNanoseconds()) / 1_000_000
                guard left > 0, let ready = try? Posix.poll(connection.fd, events: Int16(POLLIN), timeoutMs: Int32(min(left, 60_000))).get() else {
                    return nil
                }
                if ready == 0 { continue }
            }
            guard let line = connection.readLine() else { throw fail("the daemon closed the connection") }
            guard line.hasPrefix(#"{"type":"touch""#) || line.hasPrefix(#"{"type":"error""#),
                let v = try? parseJSON(Array(line.utf8))
            else { continue }
            if case .string("error")? = v["type"] { throw fail("the daemon refused the subscription: \(line)") }
            guard case .array(let list)? = v["contacts"] else { continue }
            var contacts: [(u: Double, v: Double)] = []
            for c in list {
                guard case .number(let u)? = c["u"], case .number(let w)? = c["v"] else {
                    throw fail("the daemon's touch lines carry no u/v (a daemon older than this tool, or a replayed recording): calibrate with --node")
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
    /// A device object of the daemon's hello (PROTOCOL.md).
    init(daemonDevice d: JSONValue, hello: JSONValue, connection: Connection) throws {
        guard case .number(let id)? = d["id"], case .string(let name)? = d["name"], case .string(let node)? = d["node"] else {
            throw fail("the daemon's device object lacks id, name or node")
        }
        func hex(_ k: String) -> UInt16 { if case .string(let s)? = d[k] { return UInt16(s, radix: 16) ?? 0 } else { return 0 } }
        var size: (Double, Double)?
        if case .array(let wh)? = d["size_mm"], wh.count == 2, case .number(let w) = wh[0], case .number(let h) = wh[1] { size = (w, h) }
        var screen: PixelRect?
        if case .number(let w)? = hello["screen"]?["width"], case .number(let h)? = hello["screen"]?["height"] {
            screen = PixelRect(x: 0, y: 0, width: w, height: h)
        }
        self.init(
            node: node, name: name, vendor: hex("vendor"), product: hex("product"), sizeMM: size, screen: screen, daemon: connection,
            touches: DaemonTouches(connection, device: Int(id)))
    }
}

extension GeometryConfiguration {
    /// The panel's size as the configuration gives it, else the documented default.
    var defaultSize: (width: Double, height: Double) {
        if let w = widthMM, let h = heightMM { return (w, h) }
        return Self.defaultPanelSize
    }
}
