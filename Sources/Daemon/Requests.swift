import GestureConfig
import GestureEngine
import GestureProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Client requests (docs/PROTOCOL.md, "Requests"). Every bad line gets an error line and the
/// connection goes on; nothing a client sends can stop the daemon.
extension Daemon {
    struct RequestError: Error {
        var code: String
        var message: String
        init(_ code: String, _ message: String) {
            self.code = code
            self.message = message
        }
    }

    func request(_ c: Client, _ line: ArraySlice<UInt8>) {
        stats.requests += 1
        var id: RequestID?
        do {
            guard String(validating: line, as: UTF8.self) != nil else {
                throw RequestError("invalid_utf8", "the line is not valid UTF-8")
            }
            let value: JSONValue
            let text: [String: String]
            do {
                (value, text) = try parseJSONKeepingText(line)
            } catch {
                throw RequestError("parse_error", "not JSON: \(error)")
            }
            guard case .object = value else {
                throw RequestError("not_an_object", "a request is a JSON object, found \(value.typeName)")
            }
            if let given = value["id"] {
                switch given {
                case .string(let s): id = .string(s)
                case .number: id = .number(text: text["id"] ?? "0")
                default: throw RequestError("invalid_field", "'id' must be a string or a number, found \(given.typeName)")
                }
            }
            guard let opValue = value["op"] else { throw RequestError("missing_op", "a request needs an 'op'") }
            guard case .string(let op) = opValue else {
                throw RequestError("invalid_field", "'op' must be a string, found \(opValue.typeName)")
            }
            writer.reset()
            try answer(op, value, id: id, client: c)
        } catch let e as RequestError {
            stats.errors += 1
            writer.reset()
            Messages.error(&writer, id: id, code: e.code, message: e.message)
        } catch {
            stats.errors += 1
            writer.reset()
            Messages.error(&writer, id: id, code: "internal", message: "\(error)")
        }
        server.reply(writer.bytes[...], to: c)
        writer.reset()
    }

    private func fields(_ v: JSONValue, allowed: [String], op: String) throws {
        guard case .object(let members) = v else { return }
        for (k, _) in members where !allowed.contains(k) && k != "op" && k != "id" {
            throw RequestError("invalid_field", "unknown field '\(k)' for \(op) (known: \(allowed.joined(separator: ", ")))")
        }
    }

    private func strings(_ v: JSONValue?, _ name: String) throws -> [String]? {
        guard let v else { return nil }
        guard case .array(let items) = v else { throw RequestError("invalid_field", "'\(name)' must be an array of strings") }
        return try items.map {
            guard case .string(let s) = $0 else { throw RequestError("invalid_field", "'\(name)' must hold strings only") }
            return s
        }
    }

    private func answer(_ op: String, _ v: JSONValue, id: RequestID?, client c: Client) throws {
        switch op {
        case "ping":
            try fields(v, allowed: [], op: op)
            Messages.beginReply(&writer, id: id, op: op)
            writer.field("time", Double(monotonicNanoseconds()) / 1e9, decimals: 6)
            Messages.end(&writer)

        case "subscribe":
            try fields(v, allowed: ["gestures", "regions", "devices", "touches"], op: op)
            var gestures = true
            var kinds: Set<GestureKind>?
            switch v["gestures"] {
            case nil: break
            case .bool(let b): gestures = b
            case .array?:
                kinds = []
                for name in try strings(v["gestures"], "gestures") ?? [] {
                    guard let k = GestureKind(rawValue: name) else {
                        throw RequestError("invalid_field", "unknown gesture kind '\(name)' (\(GestureKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    kinds!.insert(k)
                }
            case let other?:
                throw RequestError("invalid_field", "'gestures' must be true, false or an array of kinds, found \(other.typeName)")
            }
            let regions = try strings(v["regions"], "regions").map(Set.init)
            var devices: Set<UInt32>?
            if let d = v["devices"] {
                guard case .array(let items) = d else { throw RequestError("invalid_field", "'devices' must be an array of device ids") }
                devices = try Set(items.map {
                    guard case .number(let n) = $0, n >= 0, n < 4_294_967_296, n == n.rounded() else {
                        throw RequestError("invalid_field", "'devices' must hold device ids (whole numbers)")
                    }
                    return UInt32(n)
                })
            }
            var touches = false
            if let t = v["touches"] {
                guard case .bool(let b) = t else { throw RequestError("invalid_field", "'touches' must be true or false, found \(t.typeName)") }
                touches = b
            }
            c.gestures = gestures
            c.kinds = kinds
            c.regions = regions
            c.devices = devices
            c.touches = touches
            Messages.beginReply(&writer, id: id, op: op)
            Messages.end(&writer)

        case "set_regions":
            try fields(v, allowed: ["regions"], op: op)
            guard base.daemon.maySetRegions(uid: c.uid, gid: c.gid) else {
                throw RequestError("forbidden", "this daemon does not take regions from uid \(c.uid) (see [daemon] set_regions)")
            }
            guard case .array(let items)? = v["regions"] else {
                throw RequestError("invalid_field", "'regions' must be an array of region objects")
            }
            var tables: [TOMLTable] = []
            for item in items {
                guard case .object(let members) = item else {
                    throw RequestError("invalid_regions", "each region is an object, found \(item.typeName)")
                }
                tables.append(try Self.table(members))
            }
            // Validate against the file's regions and every other client's.
            var others = base
            for o in server.allClients where o !== c { others.engine.regions += o.ownedRegions }
            let regions: [RegionSpec]
            do {
                regions = try ConfigLoader.clientRegions(tables, base: others, file: "client #\(c.number)")
            } catch {
                throw RequestError("invalid_regions", error.reason)
            }
            let othersGestures = server.allClients.reduce(0) { $0 + ($1 === c ? 0 : $1.ownedRegions.reduce(0) { $0 + $1.gestures.count }) }
            let mine = regions.reduce(0) { $0 + $1.gestures.count }
            guard othersGestures + mine <= ConfigLimits.gesturesOfAllClients else {
                throw RequestError(
                    "invalid_regions",
                    "clients may set \(ConfigLimits.gesturesOfAllClients) gestures at most together; the others have \(othersGestures)")
            }
            c.ownedRegions = regions
            try recompile()
            log.info("\(c.label) set regions: \(c.ownedRegions.map(\.name).joined(separator: ", "))")
            Messages.beginReply(&writer, id: id, op: op)
            writer.key("regions")
            writer.value(.array(c.ownedRegions.map { .string($0.name) }))
            Messages.end(&writer)

        case "clear_regions":
            try fields(v, allowed: [], op: op)
            if !c.ownedRegions.isEmpty {
                c.ownedRegions = []
                try recompile()
            }
            Messages.beginReply(&writer, id: id, op: op)
            Messages.end(&writer)

        case "list_devices":
            try fields(v, allowed: [], op: op)
            Messages.beginReply(&writer, id: id, op: op)
            writeDevices()
            Messages.end(&writer)

        case "get_config":
            try fields(v, allowed: [], op: op)
            Messages.beginReply(&writer, id: id, op: op)
            writeConfig()
            Messages.end(&writer)

        case "stats":
            try fields(v, allowed: [], op: op)
            Messages.beginReply(&writer, id: id, op: op)
            stats.write(
                into: &writer, clients: server.clientCount, devices: devices.all.count, server: server, wakeups: loop.wakeups)
            Messages.end(&writer)

        default:
            throw RequestError("unknown_op", "unknown op '\(op)' (ping, subscribe, set_regions, clear_regions, list_devices, get_config, stats)")
        }
    }

    private func writeDevices() {
        writer.key("devices")
        writer.raw("[")
        for (i, d) in devices.all.enumerated() {
            if i > 0 { writer.raw(",") }
            d.summary.write(&writer)
        }
        writer.raw("]")
    }

    private func writeConfig() {
        writer.field("source", base.source)
        writer.key("screen")
        writer.beginObject()
        writer.field("width", compiled.screen.width, decimals: 0)
        writer.field("height", compiled.screen.height, decimals: 0)
        writer.endObject()
        let owners: [String: String] = Dictionary(
            server.allClients.flatMap { c in c.ownedRegions.map { ($0.name, "client #\(c.number)") } },
            uniquingKeysWith: { a, _ in a })
        writer.key("regions")
        writer.raw("[")
        for (i, r) in compiled.regions.enumerated() {
            if i > 0 { writer.raw(",") }
            writer.beginObject()
            writer.field("name", r.name)
            writer.key("rect")
            writer.value(.array([r.rect.x, r.rect.y, r.rect.width, r.rect.height].map { .number($0) }))
            if let p = r.parent { writer.field("parent", compiled.regions[p].name) }
            writer.field("owner", owners[r.name] ?? "config")
            writer.key("gestures")
            writer.raw("[")
            for (j, g) in r.gestures.enumerated() {
                if j > 0 { writer.raw(",") }
                let spec = compiled.gestures[g].spec
                writer.beginObject()
                writer.field("name", spec.name)
                writer.field("kind", spec.kind.rawValue)
                writer.field("min_fingers", spec.minFingers)
                writer.field("max_fingers", spec.maxFingers)
                writer.endObject()
            }
            writer.raw("]")
            writer.endObject()
        }
        writer.raw("]")
    }

    /// A JSON region object as the config loader's table, so client regions are read by the
    /// same code (and refused for the same reasons) as the config file's `[[region]]`.
    static func table(_ members: [(String, JSONValue)]) throws -> TOMLTable {
        let t = TOMLTable(line: 1)
        for (k, v) in members {
            switch v {
            case .object(let inner): t.set(k, .table(try table(inner)), line: 1)
            default: t.set(k, .value(try value(v)), line: 1)
            }
        }
        return t
    }

    static func value(_ v: JSONValue) throws -> TOMLValue {
        switch v {
        case .null: throw RequestError("invalid_regions", "null is not a value here")
        case .bool(let b): return TOMLValue(kind: .bool(b), line: 1)
        case .number(let n):
            if n == n.rounded() && abs(n) < 9e15 { return TOMLValue(kind: .integer(Int64(n)), line: 1) }
            return TOMLValue(kind: .float(n), line: 1)
        case .string(let s): return TOMLValue(kind: .string(s), line: 1)
        case .array(let items): return TOMLValue(kind: .array(try items.map(value)), line: 1)
        case .object(let members): return TOMLValue(kind: .table(try table(members)), line: 1)
        }
    }
}
