import GestureEngine

/// A client's request line, read and checked (docs/PROTOCOL.md, "Requests"): what the daemon
/// acts on is a typed value, never a JSON tree looked into with strings.
public enum Request: Equatable, Sendable {
    /// The requests that take no fields, by op.
    static let withoutFields: [String: Request] = [
        "ping": .ping, "clear_regions": .clearRegions, "list_devices": .listDevices, "get_config": .getConfig, "stats": .stats,
        "reload": .reload,
    ]

    case ping
    case subscribe(Subscription)
    /// Region objects in the config's `[[region]]` schema, read by the config loader.
    case setRegions([JSONValue])
    case clearRegions
    case listDevices
    case getConfig
    case stats
    /// The web bridge says whose page this connection carries: the page's TCP connection to the
    /// bridge, as `HOST:PORT` of each end, for the daemon to look up in the kernel.
    case page(page: String, bridge: String)
    /// Touches on targets: a panel's calibration fitted, and with `save` kept and applied.
    case calibrate(CalibrationRequest)
    /// The configuration read again (what SIGHUP does), for a client with the rights to save.
    case reload

    /// Every op, as the protocol spells it.
    public static let ops = ["ping", "subscribe", "set_regions", "clear_regions", "list_devices", "get_config", "stats", "page", "calibrate", "reload"]

    public var op: String {
        switch self {
        case .ping: return "ping"
        case .subscribe: return "subscribe"
        case .setRegions: return "set_regions"
        case .clearRegions: return "clear_regions"
        case .listDevices: return "list_devices"
        case .getConfig: return "get_config"
        case .stats: return "stats"
        case .page: return "page"
        case .calibrate: return "calibrate"
        case .reload: return "reload"
        }
    }
}

/// What a client wants to hear. Nil filters mean all.
public struct Subscription: Equatable, Sendable {
    public var gestures = true
    public var kinds: Set<GestureKind>?
    public var regions: Set<String>?
    public var devices: Set<UInt32>?
    public var touches = false
    /// The client's own coalescing time (ms, 0...100); nil keeps the daemon's `coalesce_ms`.
    public var coalesceMilliseconds: Int?
    public init() {}
}

/// A request line that cannot be acted on: the error line's code and message, and the id when
/// the line had one that could be read.
public struct RequestFailure: Error, Equatable, Sendable {
    public var code: ErrorCode
    public var message: String
    public var id: RequestID?
    public init(_ code: ErrorCode, _ message: String, id: RequestID? = nil) {
        self.code = code
        self.message = message
        self.id = id
    }
}

extension Request {
    /// Reads one request line (without its newline).
    public static func parse(_ line: ArraySlice<UInt8>) -> Result<(id: RequestID?, request: Request), RequestFailure> {
        guard String(validating: line, as: UTF8.self) != nil else {
            return .failure(RequestFailure(.invalidUTF8, "the line is not valid UTF-8"))
        }
        let value: JSONValue
        let text: [String: String]
        do {
            (value, text) = try parseJSONKeepingText(line)
        } catch {
            return .failure(RequestFailure(.parseError, "not JSON: \(error)"))
        }
        guard case .object = value else {
            return .failure(RequestFailure(.notAnObject, "a request is a JSON object, found \(value.typeName)"))
        }
        var id: RequestID?
        if let given = value["id"] {
            switch given {
            case .string(let s): id = .string(s)
            case .number: id = .number(text: text["id"] ?? "0")
            default:
                return .failure(RequestFailure(.invalidField, "'id' must be a string or a number, found \(given.typeName)"))
            }
        }
        do {
            return .success((id, try request(value)))
        } catch var failure {
            failure.id = id
            return .failure(failure)
        }
    }

    private static func request(_ v: JSONValue) throws(RequestFailure) -> Request {
        guard let opValue = v["op"] else { throw RequestFailure(.missingOp, "a request needs an 'op'") }
        guard case .string(let op) = opValue else {
            throw RequestFailure(.invalidField, "'op' must be a string, found \(opValue.typeName)")
        }
        switch op {
        case "subscribe":
            try fields(v, allowed: ["gestures", "regions", "devices", "touches", "coalesce_ms"], op: op)
            return .subscribe(try subscription(v))
        case "set_regions":
            try fields(v, allowed: ["regions"], op: op)
            guard case .array(let items)? = v["regions"] else {
                throw RequestFailure(.invalidField, "'regions' must be an array of region objects")
            }
            return .setRegions(items)
        case "page":
            try fields(v, allowed: ["page", "bridge"], op: op)
            guard case .string(let page)? = v["page"], case .string(let bridge)? = v["bridge"] else {
                throw RequestFailure(.invalidField, "'page' and 'bridge' must be the two ends of the page's connection, \"HOST:PORT\"")
            }
            return .page(page: page, bridge: bridge)
        case "calibrate":
            try fields(v, allowed: ["device", "points", "save", "max_error_mm"], op: op)
            return .calibrate(try CalibrationRequest.read(v))
        case "ping", "clear_regions", "list_devices", "get_config", "stats", "reload":
            // Requests without fields of their own.
            try fields(v, allowed: [], op: op)
            return Self.withoutFields[op]!  // every op of this case is a key
        default:
            throw RequestFailure(.unknownOp, "unknown op '\(op)' (\(ops.joined(separator: ", ")))")
        }
    }

    private static func subscription(_ v: JSONValue) throws(RequestFailure) -> Subscription {
        var s = Subscription()
        switch v["gestures"] {
        case nil: break
        case .bool(let b): s.gestures = b
        case .array?:
            var kinds: Set<GestureKind> = []
            for name in try strings(v["gestures"], "gestures") ?? [] {
                guard let k = GestureKind(rawValue: name) else {
                    throw RequestFailure(
                        .invalidField, "unknown gesture kind '\(name)' (\(GestureKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                kinds.insert(k)
            }
            s.kinds = kinds
        case let other?:
            throw RequestFailure(.invalidField, "'gestures' must be true, false or an array of kinds, found \(other.typeName)")
        }
        s.regions = try strings(v["regions"], "regions").map(Set.init)
        if let d = v["devices"] {
            guard case .array(let items) = d else { throw RequestFailure(.invalidField, "'devices' must be an array of device ids") }
            var devices: Set<UInt32> = []
            for item in items {
                // Range-checked before it is converted.
                guard case .number(let n) = item, n >= 0, n < 4_294_967_296, n == n.rounded() else {
                    throw RequestFailure(.invalidField, "'devices' must hold device ids (whole numbers)")
                }
                devices.insert(UInt32(n))
            }
            s.devices = devices
        }
        if let t = v["touches"] {
            guard case .bool(let b) = t else { throw RequestFailure(.invalidField, "'touches' must be true or false, found \(t.typeName)") }
            s.touches = b
        }
        if let t = v["coalesce_ms"] {
            guard case .number(let n) = t, n >= 0, n <= 100, n == n.rounded() else {
                throw RequestFailure(.invalidField, "'coalesce_ms' must be a whole number of milliseconds from 0 to 100")
            }
            s.coalesceMilliseconds = Int(n)
        }
        return s
    }

    private static func fields(_ v: JSONValue, allowed: [String], op: String) throws(RequestFailure) {
        guard case .object(let members) = v else { return }
        for (k, _) in members where !allowed.contains(k) && k != "op" && k != "id" {
            let known = (["op", "id"] + allowed).joined(separator: ", ")
            throw RequestFailure(.invalidField, "unknown field '\(k)' for \(op) (known: \(known))")
        }
    }

    private static func strings(_ v: JSONValue?, _ name: String) throws(RequestFailure) -> [String]? {
        guard let v else { return nil }
        guard case .array(let items) = v else { throw RequestFailure(.invalidField, "'\(name)' must be an array of strings") }
        var out: [String] = []
        for item in items {
            guard case .string(let s) = item else { throw RequestFailure(.invalidField, "'\(name)' must hold strings only") }
            out.append(s)
        }
        return out
    }
}
