import GestureConfig
import GestureEngine
import GestureProtocol

/// Client requests (docs/PROTOCOL.md, "Requests"). Every bad line gets an error line and the
/// connection goes on; nothing a client sends can stop the daemon.
extension Daemon {
    struct RequestError: Error {
        var code: ErrorCode
        var message: String
        init(_ code: ErrorCode, _ message: String) {
            self.code = code
            self.message = message
        }
    }

    func request(_ c: Client, _ line: ArraySlice<UInt8>, _ state: inout FrameState) {
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
                try answer(parsed.request, id: id, client: c, &state)
            }
        } catch let e as RequestError {
            stats.errors += 1
            stats.errorsByCode[e.code, default: 0] += 1
            writer.reset()
            Messages.error(&writer, id: id, code: e.code, message: e.message)
        } catch {
            stats.errors += 1
            writer.reset()
            stats.errorsByCode[.internal, default: 0] += 1
            Messages.error(&writer, id: id, code: .internal, message: "\(error)")
        }
        state.fanout.reply(writer.bytes[...], to: c.slot)
        writer.reset()
    }

    private func answer(_ request: Request, id: RequestID?, client c: Client, _ state: inout FrameState) throws {
        let op = request.op
        switch request {
        case .ping:
            Messages.beginReply(&writer, id: id, op: op)
            writer.field("time", Double(monotonicNanoseconds()) / 1e9, decimals: 6)
            Messages.end(&writer)

        case .subscribe(let s):
            state.fanout.subscribers[c.slot].subscription.subscribe(s, configuration: devices.compiled)
            state.fanout.setCoalescing(s.coalesceMilliseconds.map { Int64($0) * 1_000_000 }, of: c.slot)
            subscriptionsChanged(&state)
            server.watchIdle(c, in: state)
            Messages.beginReply(&writer, id: id, op: op)
            Messages.end(&writer)

        case .setRegions(let items):
            let names = try setRegions(items, for: c, &state)
            Messages.beginReply(&writer, id: id, op: op)
            writer.key("regions")
            writer.value(.array(names.map { .string($0) }))
            Messages.end(&writer)

        case .clearRegions:
            if !c.ownedRegions.isEmpty {
                c.ownedRegions = []
                try recompile(&state)
                server.watchIdle(c, in: state)
            }
            Messages.beginReply(&writer, id: id, op: op)
            Messages.end(&writer)

        case .listDevices:
            Messages.beginReply(&writer, id: id, op: op)
            writeDevices(state)
            Messages.end(&writer)

        case .getConfig:
            Messages.beginReply(&writer, id: id, op: op)
            writeConfig()
            Messages.end(&writer)

        case .stats:
            Messages.beginReply(&writer, id: id, op: op)
            stats.snapshot(
                clients: server.streamClientCount, devices: state.devices.all.count, panels: devices.panels(in: state),
                frames: state.devices.frames, anomalies: state.devices.anomalies, server: server, fanout: state.fanout,
                actions: actions, wakeups: loop.wakeups, idle: (idle.idles, idle.wakes, state.devices.wake.asleep),
                pointer: (state.devices.pointer.ops, state.devices.pointer.failures.count)
            ).write(into: &writer)
            Messages.end(&writer)

        case .calibrate(let r):
            let (fit, saved) = try calibrate(r, client: c, &state)
            Messages.beginReply(&writer, id: id, op: op)
            writeFit(fit, saved: saved)
            Messages.end(&writer)

        case .reload:
            let source = try reload(asking: c, &state)
            Messages.beginReply(&writer, id: id, op: op)
            writer.field("source", source)
            Messages.end(&writer)

        case .page(let page, let bridge):
            let uid = try takePage(c, page: page, bridge: bridge)
            Messages.beginReply(&writer, id: id, op: op)
            writer.field("uid", Int(uid))
            Messages.end(&writer)
        }
    }

    private func writeDevices(_ state: borrowing FrameState) {
        writer.key("devices")
        writer.raw("[")
        for (i, d) in state.devices.all.enumerated() {
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
            if r.exclude { writer.field("exclude", true) }
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
        writer.key("shapes")
        writer.value(.array(devices.compiled.shapeNames.map { .string($0) }))
    }
}
