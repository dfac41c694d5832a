import GestureConfig
import GestureEngine
import GestureProtocol
import SystemCalls

/// `set_regions`: a client's regions, read by the config loader's code (and refused for the
/// same reasons as the file's `[[region]]`), within the caps per client, per user and for all
/// clients (docs/PROTOCOL.md).
extension Daemon {
    /// Takes `items` as `c`'s regions (replacing any it had) and recompiles; the names set.
    func setRegions(_ items: [JSONValue], for c: Client, _ state: inout FrameState) throws -> [String] {
        guard base.daemon.maySetRegions(uid: c.uid, gid: c.gid) else {
            throw RequestError(.forbidden, "this daemon does not take regions from uid \(c.uid) (see [daemon] set_regions)")
        }
        // The cap before any work: 1,500 regions would otherwise each become a table first.
        guard items.count <= ConfigLimits.regionsPerClient else {
            throw RequestError(
                .invalidRegions, "a client may set \(ConfigLimits.regionsPerClient) regions at most, found \(items.count)")
        }
        var tables: [TOMLTable] = []
        for item in items {
            guard case .object(let members) = item else {
                throw RequestError(.invalidRegions, "each region is an object, found \(item.typeName)")
            }
            tables.append(try Self.table(Self.oneSpelling(members)))
        }
        let others = server.allClients.filter { $0 !== c }
        let regions = try admitted(tables, for: c, besides: others, sharing: others)
        (c.ownedRegions, c.regionTables) = (regions, tables)
        try recompile(&state)
        log.info("\(c.label) set regions: \(c.ownedRegions.map(\.name).joined(separator: ", "))")
        return c.ownedRegions.map(\.name)
    }

    /// `tables` as `c`'s regions, as `set_regions` takes them: the loader's reasons, read
    /// against the file's regions and those of `others` (their names and rules), within the caps
    /// per client, per user and for all clients, and the excluded share with `sharing`'s.
    func admitted(_ tables: [TOMLTable], for c: Client, besides others: [Client], sharing: [Client]) throws -> [RegionSpec] {
        guard base.daemon.maySetRegions(uid: c.uid, gid: c.gid) else {
            throw RequestError(.forbidden, "this daemon does not take regions from uid \(c.uid) (see [daemon] set_regions)")
        }
        var with = base
        for o in others { with.engine.regions += o.ownedRegions }
        let regions: [RegionSpec]
        do {
            regions = try ConfigLoader.clientRegions(tables, base: with, file: "client #\(c.number)")
        } catch {
            throw RequestError(.invalidRegions, error.reason)
        }
        func gestures(_ clients: [Client]) -> Int { clients.reduce(0) { $0 + $1.ownedRegions.reduce(0) { $0 + $1.gestures.count } } }
        let otherClients = others
        let othersGestures = gestures(otherClients)
        let usersGestures = gestures(otherClients.filter { $0.uid == c.uid })
        let mine = regions.reduce(0) { $0 + $1.gestures.count }
        guard othersGestures + mine <= ConfigLimits.gesturesOfAllClients else {
            throw RequestError(
                .invalidRegions,
                "clients may set \(ConfigLimits.gesturesOfAllClients) gestures at most together; the others have \(othersGestures)")
        }
        func strokes(_ regions: [RegionSpec]) -> Int { regions.reduce(0) { $0 + $1.gestures.count { $0.kind == .stroke } } }
        let othersStrokes = otherClients.reduce(0) { $0 + strokes($1.ownedRegions) }
        guard othersStrokes + strokes(regions) <= ConfigLimits.strokesOfAllClients else {
            throw RequestError(
                .invalidRegions,
                "clients may set \(ConfigLimits.strokesOfAllClients) strokes at most together (each matches every template at a lift); the others have \(othersStrokes)")
        }
        guard usersGestures + mine <= ConfigLimits.gesturesPerUser else {
            throw RequestError(
                .invalidRegions,
                "one user may set \(ConfigLimits.gesturesPerUser) gestures at most together; uid \(c.uid)'s other connections have \(usersGestures)")
        }
        try checkExcluded(regions, of: c, others: sharing)
        return regions
    }

    /// The most of the screen's area that clients' excluded regions (`exclude`) may cover
    /// together, so that half of it always stays the file's gestures'.
    static let excludedShare = 0.5

    /// An excluded region takes the file's system gestures away from its area, so it needs the
    /// rights that change the configuration (the socket's group or root), never a web page's,
    /// and clients' excluded regions together cover half the screen at most.
    private func checkExcluded(_ regions: [RegionSpec], of c: Client, others: [Client]) throws {
        let mine = regions.filter(\.exclude)
        guard !mine.isEmpty else { return }
        // A page (introduced, or the bridge's own connection carrying a remote one) never.
        let bridge = base.daemon.bridgeUser
        if c.page != nil || (!bridge.isEmpty && UserIdentity.lookup(c.peer.uid)?.name == bridge) {
            throw RequestError(.forbidden, "a web page may not exclude an area from gestures (exclude)")
        }
        try checkMayChangeConfiguration(c, "an excluded region (exclude)")
        let screen = base.engine.screen
        func area(_ rs: [RegionSpec]) -> Double {
            rs.filter(\.exclude).reduce(0) { $0 + (($1.rect ?? screen).clipped(to: screen)?.area ?? 0) }
        }
        let taken = others.reduce(0) { $0 + area($1.ownedRegions) }, asked = area(mine)
        guard taken + asked <= screen.area * Self.excludedShare else {
            throw RequestError(
                .invalidRegions,
                "clients' excluded regions may cover \(Int(Self.excludedShare * 100)) % of the screen at most together; these cover \(Self.percent(asked / screen.area)) %, the others' \(Self.percent(taken / screen.area)) %")
        }
    }

    /// A share as a percentage to a tenth ("50.1", not a rounded "50" that reads as within a
    /// bound of 50 %); whole ones without decimals.
    static func percent(_ share: Double) -> String {
        let tenths = (share * 1000).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }

    /// A region's gesture list under `gestures`, the JavaScript module's and the Python client's
    /// spelling, or `gesture`, the configuration file's (`[[region.gesture]]`): the same list.
    static func oneSpelling(_ members: [(String, JSONValue)]) throws -> [(String, JSONValue)] {
        guard members.contains(where: { $0.0 == "gestures" }) else { return members }
        if members.contains(where: { $0.0 == "gesture" }) {
            throw RequestError(.invalidRegions, "a region gives its gestures as 'gestures' or as 'gesture', not both")
        }
        return members.map { $0.0 == "gestures" ? ("gesture", $0.1) : $0 }
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
        case .null: throw RequestError(.invalidRegions, "null is not a value here")
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

extension Daemon {
    /// The file's regions plus each client's, in connection order; a client's regions that no
    /// longer fit (a name now taken by the file) are dropped with an error line to that client.
    /// `chargedTo`: the user whose going made it (its time share pays, as its requests would).
    func recompile(_ state: inout FrameState, chargedTo uid: UInt32? = nil) throws {
        let start = monotonicNanoseconds()
        defer {
            let end = monotonicNanoseconds()
            if let uid { server.timeShare.charge(uid, end - start, now: end) }
        }
        var compiled: CompiledConfiguration
        repeat {
            var regions = base.engine.regions
            for c in server.allClients where !c.ownedRegions.isEmpty {
                let names = Set(regions.map(\.name))
                if let clash = c.ownedRegions.first(where: { names.contains($0.name) }) {
                    let message = "your region '\(clash.name)' clashes with a region of that name in the reloaded configuration: your regions were removed (set them again)"
                    dropRegions(of: c, message, &state)
                    continue
                }
                regions += c.ownedRegions
            }
            compiled = CompiledConfiguration(EngineConfiguration(screen: base.engine.screen, regions: regions, strokes: base.engine.strokes))
        } while dropBrokenChains(compiled, &state)
        devices.reconfigure(compiled, &state)
        for c in server.allClients { state.fanout.subscribers[c.slot].subscription.reconfigure(devices.compiled) }
    }

    /// A reload reads every client's regions again, as `set_regions` would take them now, in
    /// connection order: one the new configuration refuses (a name now the file's, a rule naming
    /// a gesture it no longer has, a region off a smaller screen, an excluded share past half of
    /// it, `set_regions` no longer this user's) is dropped with its reason, and the client told.
    /// (Again while one is dropped: another's rule may have named its gestures.)
    func readmitClientRegions(_ state: inout FrameState) {
        var holding = server.allClients.filter { !$0.ownedRegions.isEmpty }
        var dropped = true
        while dropped {
            dropped = false
            var kept: [Client] = []
            for (i, c) in holding.enumerated() {
                do {
                    c.ownedRegions = try admitted(c.regionTables, for: c, besides: kept + holding[(i + 1)...], sharing: kept)
                    kept.append(c)
                } catch {
                    let why = (error as? RequestError).map { " (\($0.message))" } ?? ""
                    dropRegions(of: c, "your regions do not fit the reloaded configuration\(why): they were removed (set them again)", &state)
                    dropped = true
                }
            }
            holding = kept
        }
    }

    /// A client's region that chains to a region the reloaded configuration no longer has (or
    /// no longer encloses it) would pan on its own without a word: the client's regions are
    /// dropped and it is told why, as for a clash. True when any were (compile again).
    private func dropBrokenChains(_ compiled: CompiledConfiguration, _ state: inout FrameState) -> Bool {
        var dropped = false
        for c in server.allClients where !c.ownedRegions.isEmpty {
            let broken = c.ownedRegions.lazy.compactMap { r in
                compiled.regions.firstIndex { $0.name == r.name }.flatMap { compiled.chainProblems[$0] }
            }.first
            guard let why = broken else { continue }
            dropRegions(of: c, "\(why) now: your regions were removed (set them again)", &state)
            dropped = true
        }
        return dropped
    }

    /// Tells `c` (alone) that its regions are gone: a writer of its own, so the line never rides
    /// along with the reply of the request that reloaded (that client's `writer`).
    private func dropRegions(of c: Client, _ message: String, _ state: inout FrameState) {
        (c.ownedRegions, c.regionTables) = ([], [])
        var line = JSONLineWriter(capacity: 256)
        Messages.error(&line, id: nil, code: .regionsDropped, message: message)
        state.fanout.reply(line.bytes[...], to: c.slot)
        log.notice("\(c.label): regions dropped: \(message)")
    }
}
