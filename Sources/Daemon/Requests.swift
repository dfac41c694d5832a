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
        writer.reset()
        var id: RequestID?
        do {
            switch Request.parse(line) {
            case .failure(let f):
                id = f.id
                throw RequestError(f.code, f.message)
            case .success(let parsed):
                id = parsed.id
                try answer(parsed.request, id: id, client: c)
            }
        } catch let e as RequestError {
            stats.errors += 1
            stats.errorsByCode[e.code, default: 0] += 1
            writer.reset()
            Messages.error(&writer, id: id, code: e.code, message: e.message)
        } catch {
            stats.errors += 1
            writer.reset()
            stats.errorsByCode["internal", default: 0] += 1
            Messages.error(&writer, id: id, code: "internal", message: "\(error)")
        }
        server.reply(writer.bytes[...], to: c)
        writer.reset()
    }

    private func answer(_ request: Request, id: RequestID?, client c: Client) throws {
        let op = request.op
        switch request {
        case .ping:
            Messages.beginReply(&writer, id: id, op: op)
            writer.field("time", Double(monotonicNanoseconds()) / 1e9, decimals: 6)
            Messages.end(&writer)

        case .subscribe(let s):
            c.subscription.subscribe(s, configuration: devices.compiled)
            c.coalesceNs = s.coalesceMilliseconds.map { Int64($0) * 1_000_000 }
            server.longestWindow = max(server.longestWindow, c.coalesceNs ?? 0)
            subscriptionsChanged()
            server.watchIdle(c)
            Messages.beginReply(&writer, id: id, op: op)
            Messages.end(&writer)

        case .setRegions(let items):
            guard base.daemon.maySetRegions(uid: c.uid, gid: c.gid) else {
                throw RequestError("forbidden", "this daemon does not take regions from uid \(c.uid) (see [daemon] set_regions)")
            }
            // The cap before any work: 1,500 regions would otherwise each become a table first.
            guard items.count <= ConfigLimits.regionsPerClient else {
                throw RequestError(
                    "invalid_regions", "a client may set \(ConfigLimits.regionsPerClient) regions at most, found \(items.count)")
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
            let usersGestures = server.allClients.reduce(0) {
                $0 + ($1 === c || $1.uid != c.uid ? 0 : $1.ownedRegions.reduce(0) { $0 + $1.gestures.count })
            }
            guard usersGestures + mine <= ConfigLimits.gesturesPerUser else {
                throw RequestError(
                    "invalid_regions",
                    "one user may set \(ConfigLimits.gesturesPerUser) gestures at most together; uid \(c.uid)'s other connections have \(usersGestures)")
            }
            c.ownedRegions = regions
            try recompile()
            log.info("\(c.label) set regions: \(c.ownedRegions.map(\.name).joined(separator: ", "))")
            Messages.beginReply(&writer, id: id, op: op)
            writer.key("regions")
            writer.value(.array(c.ownedRegions.map { .string($0.name) }))
            Messages.end(&writer)

        case .clearRegions:
            if !c.ownedRegions.isEmpty {
                c.ownedRegions = []
                try recompile()
            }
            Messages.beginReply(&writer, id: id, op: op)
            Messages.end(&writer)

        case .listDevices:
            Messages.beginReply(&writer, id: id, op: op)
            writeDevices()
            Messages.end(&writer)

        case .getConfig:
            Messages.beginReply(&writer, id: id, op: op)
            writeConfig()
            Messages.end(&writer)

        case .stats:
            Messages.beginReply(&writer, id: id, op: op)
            stats.write(
                into: &writer, clients: server.clientCount, devices: devices.all.count, panels: devices.panels,
                server: server, actions: actions, wakeups: loop.wakeups)
            Messages.end(&writer)

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
        writer.field("width", devices.compiled.screen.width, decimals: 0)
        writer.field("height", devices.compiled.screen.height, decimals: 0)
        writer.endObject()
        let owners: [String: String] = Dictionary(
            server.allClients.flatMap { c in c.ownedRegions.map { ($0.name, "client #\(c.number)") } },
            uniquingKeysWith: { a, _ in a })
        writer.key("regions")
        writer.raw("[")
        for (i, r) in devices.compiled.regions.enumerated() {
            if i > 0 { writer.raw(",") }
            writer.beginObject()
            writer.field("name", r.name)
            writer.key("rect")
            writer.value(.array([r.rect.x, r.rect.y, r.rect.width, r.rect.height].map { .number($0) }))
            if let p = r.parent { writer.field("parent", devices.compiled.regions[p].name) }
            writer.field("owner", owners[r.name] ?? "config")
            writer.key("gestures")
            writer.raw("[")
            for (j, g) in r.gestures.enumerated() {
                if j > 0 { writer.raw(",") }
                let spec = devices.compiled.gestures[g].spec
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
