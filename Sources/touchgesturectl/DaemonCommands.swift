import ArgumentParser
import GestureConfig
import GestureEngine
import GestureProtocol
import Pipeline
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The socket option every client command shares.
struct SocketOption: ParsableArguments {
    @Option(name: .long, help: "The daemon's socket (default $TOUCHGESTURED_SOCKET or /run/touchgestured/gestures.sock).")
    var socket: String?

    var path: String {
        socket ?? Posix.environment("TOUCHGESTURED_SOCKET") ?? SocketPaths.stream
    }

    /// A connection for one request and its reply: on the request socket beside `path`, where
    /// no stream line is sent; on `path` itself when there is none (`request_socket = ""`, or a
    /// daemon older than it), after unsubscribing there.
    func oneShot() throws -> Connection {
        let c = try (try? Connection(SocketPaths.requests(besides: path), quiet: true)) ?? Connection(path)
        guard c.readLine(until: Connection.deadline(in: Connection.answerSeconds)) != nil else {  // hello
            throw fail(c.timedOut ? "no hello from \(path) within \(Connection.answerSeconds) s" : "\(path) closed the connection")
        }
        return c
    }
}

func jsonText(_ v: JSONValue) -> String {
    var w = JSONLineWriter(capacity: 256)
    w.value(v)
    return String(decoding: w.bytes, as: UTF8.self)
}

struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what the daemon sends: gestures (and device, touch lines), as JSON lines or --pretty.")

    @OptionGroup var connection: SocketOption

    @Option(help: "Only these gesture kinds, comma-separated (tap,pan,...).")
    var gestures: String?

    @Option(help: "Only gestures of these regions, comma-separated.")
    var regions: String?

    @Option(help: "Only these device ids, comma-separated.")
    var devices: String?

    @Flag(help: "Also print raw touch lines (one per frame).")
    var touches = false

    @Flag(help: "Human-readable gesture lines ('changed' left out).")
    var pretty = false

    @Option(help: "Exit after this many gesture lines printed (with --pretty, 'changed' lines are not printed nor counted).")
    var count: Int?

    @Flag(help: "Start each line with the CLOCK_MONOTONIC time (s) of the read that received it (latency measurements).")
    var receiptTimes = false

    @Option(help: "Hold continuous updates (changed, touch lines) at most this many ms (0-100; default: the daemon's coalesce_ms, 8); 0 gets every frame as it happens.")
    var coalesceMs: Int?

    func validate() throws {
        if let n = count, n < 1 { throw ValidationError("--count is 1 or more (without it, lines are printed until it is stopped)") }
        if let ms = coalesceMs, !(0...100).contains(ms) { throw ValidationError("--coalesce-ms is 0 to 100 ms") }
        for id in (devices ?? "").split(separator: ",") where UInt32(String(id).trimmingCharacters(in: " ")) == nil {
            throw ValidationError("--devices takes device ids (touchgesturectl devices lists them), found '\(SafeText.escaped(String(id)))'")
        }
    }

    func run() throws {
        let c = try Connection(connection.path)
        var request: [(String, JSONValue)] = [("op", .string("subscribe")), ("id", .number(1))]
        func list(_ s: String?) -> [String]? { s.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: " ") } } }
        if let g = list(gestures) { request.append(("gestures", .array(g.map { .string($0) }))) }
        if let r = list(regions) { request.append(("regions", .array(r.map { .string($0) }))) }
        if let d = list(devices) { request.append(("devices", .array(d.compactMap { Double($0) }.map { .number($0) }))) }
        if touches { request.append(("touches", .bool(true))) }
        if let ms = coalesceMs { request.append(("coalesce_ms", .number(Double(ms)))) }
        c.send(jsonText(.object(request)))
        var seen = 0
        // The stream ended right after an error line: the daemon turned this client away.
        var endedByError = false
        // Lines are written in batches: one write(2) for all the lines one read brought.
        var out: [UInt8] = []
        defer { if !out.isEmpty { writeOutput(1, out) } }
        while let line = c.readLine() {
            // The stream lines, as they are, without parsing them (a 1 kHz pan is a line a
            // millisecond): only replies and errors are read as JSON.
            // Whatever the server put in them, nothing that steers the terminal is passed on
            // (such characters are escaped as JSON escapes them: the line stays JSON).
            let line = SafeText.jsonEscaped(line)
            if !pretty && count == nil && (line.hasPrefix(#"{"type":"gesture""#) || line.hasPrefix(#"{"type":"touch""#)) {
                if receiptTimes { out += Array(formatSeconds(c.lastReadNanoseconds).utf8) + [0x20] }
                out += Array(line.utf8)
                out.append(0x0A)
                if !c.hasBufferedLine {
                    writeOutput(1, out)
                    out.removeAll(keepingCapacity: true)
                }
                continue
            }
            if !out.isEmpty {
                writeOutput(1, out)
                out.removeAll(keepingCapacity: true)
            }
            guard let v = try? parseJSON(Array(line.utf8)), case .string(let type)? = v["type"] else {
                printLine(SafeText.escaped(line))
                continue
            }
            if type == "reply", v["id"] == .number(1) { continue }
            if type == "error" {
                writeOutput(2, Array("touchgesturectl: \(SafeText.escaped(line))\n".utf8))
                if v["id"] == .number(1) { throw ExitCode.failure }
                endedByError = true  // too_many_clients, idle_timeout: the daemon closes next
                continue
            }
            endedByError = false
            // `--count` counts what is printed (`--pretty` leaves `changed` lines out).
            var printed = true
            if pretty {
                if let text = prettyLine(v, raw: line) { writeOutput(1, Array(text.utf8)) } else { printed = false }
            } else if receiptTimes {
                writeOutput(1, Array((formatSeconds(c.lastReadNanoseconds) + " " + line + "\n").utf8))
            } else {
                writeOutput(1, Array((line + "\n").utf8))
            }
            if type == "gesture" && printed {
                seen += 1
                if let count, seen >= count { return }
            }
        }
        if endedByError { throw ExitCode.failure }
        // The stream ended before `--count` lines: a script waiting for them must not take
        // the daemon's going (a stop, a restart, a replay's end) for them.
        if let count {
            if !out.isEmpty { writeOutput(1, out) }
            out.removeAll()
            throw fail("the daemon closed the connection after \(seen) of \(count) gesture lines")
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        String(self.drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

struct Ping: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check the daemon answers; print the round trip.")
    @OptionGroup var connection: SocketOption

    func run() throws {
        let c = try connection.oneShot()
        let start = Posix.monotonicNanoseconds()
        _ = try c.call(#"{"op":"ping","id":1}"#, id: 1)
        let us = Double(Posix.monotonicNanoseconds() - start) / 1000
        printLine("pong from \(connection.path) in \(Int(us.rounded())) µs")
    }
}

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the daemon's counters and latency (one JSON line).")
    @OptionGroup var connection: SocketOption

    func run() throws {
        let c = try connection.oneShot()
        printLine(SafeText.jsonEscaped(jsonText(try c.call(#"{"op":"stats","id":1}"#, id: 1))))
    }
}

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the touch devices the daemon reads; with --local, every input node here and whether touchgestured would take it, and why.")
    @OptionGroup var connection: SocketOption
    @Flag(help: "Scan this machine's /dev/input instead of asking the daemon.")
    var local = false
    @Option(help: "With --local: the daemon's configuration, for its ignore_devices and each panel's size. Default: /etc/touchgestured/touchgestured.toml (the built-in one if it does not exist).")
    var config: String?
    @Option(help: "With --local: the daemon's state folder, whose calibration.toml (saved by a client) it reads after the configuration. Default: /var/lib/touchgestured.")
    var stateDir: String?

    func run() throws {
        if !local && (config != nil || stateDir != nil) { throw fail("--config and --state-dir are read only with --local (the daemon uses its own)") }
        if let config, case .failure(let e) = Posix.status(config) { throw fail("--config: \(e)") }
        if local {
            let (c, read) = try daemonConfiguration(config ?? defaultDaemonConfig, state: stateDir ?? defaultDaemonState)
            return try listLocalDevices(config: c, read: read)
        }
        let c = try connection.oneShot()
        let reply = try c.call(#"{"op":"list_devices","id":1}"#, id: 1)
        guard case .array(let devices)? = reply["devices"] else { return }
        if devices.isEmpty { printLine("no touch devices") }
        for d in devices {
            func s(_ k: String) -> String {
                switch d[k] {
                case .string?: return d.text(k) ?? "?"
                case .number(let n)?: return wholeText(n)
                default: return "?"
                }
            }
            printLine("\(s("id"))  \(s("node"))  \(s("name"))  \(s("vendor")):\(s("product"))  \(s("kind")), \(s("slots")) slot(s)")
        }
    }
}

struct Regions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set screen regions for as long as this command runs (they go when it exits).",
        subcommands: [Set_.self, Clear.self])

    struct Set_: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Send FILE's [[region]] entries (config schema) and hold the connection until interrupted.")
        @OptionGroup var connection: SocketOption
        @Argument(help: "A TOML file with [[region]] entries, as in the config file.")
        var file: String
        @Option(help: "Exit (and so remove the regions) after this many seconds (0.1-86400).")
        var seconds: Double?

        func validate() throws {
            if let s = seconds, !(0.1...86_400).contains(s) { throw ValidationError("--seconds is 0.1 to 86400") }
        }

        func run() throws {
            let text: String
            let root: TOMLTable
            do {
                text = try readTextFile(file)
                root = try parseTOML(text)
            } catch let e as TOMLError {
                throw fail("\(file):\(e.line): \(e.reason)")
            } catch {
                throw fail("\(error)")
            }
            // Any spelling of the list the configuration takes: [[region]], region = [{...}], [region].
            root.listArraysOfTables(["region"])
            guard case .tables(let regions)? = root["region"] else { throw fail("\(file): no [[region]] entries") }
            let request = JSONValue.object([
                ("op", .string("set_regions")), ("id", .number(1)), ("regions", .array(regions.map(tomlToJSON))),
            ])
            // Regions stay while their connection does, which takes no stream lines meanwhile.
            let c = try connection.oneShot()
            let reply = try c.call(jsonText(request), id: 1)
            var names: [String] = []
            if case .array(let r)? = reply["regions"] { names = r.compactMap { if case .string(let s) = $0 { s } else { nil } } }
            printLine("regions set: \(SafeText.escaped(names.joined(separator: ", "), limit: 4096)); they stay while this runs (Ctrl-C removes them)")
            if let seconds {
                Posix.sleep(seconds: seconds)
                return
            }
            // Hold the connection; the daemon's lines are read and dropped so it never blocks on us.
            while c.readLine() != nil {}
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send clear_regions on a new connection (regions belong to the connection that set them; stopping `regions set` removes them).")
        @OptionGroup var connection: SocketOption

        func run() throws {
            let c = try connection.oneShot()
            _ = try c.call(#"{"op":"clear_regions","id":1}"#, id: 1)
            printLine("ok")
        }
    }
}

/// A TOML table as JSON (for sending a region file as a set_regions request).
func tomlToJSON(_ t: TOMLTable) -> JSONValue {
    .object(t.keys.map { key in
        switch t[key]! {
        case .value(let v): return (key, tomlToJSON(v))
        case .table(let inner): return (key, tomlToJSON(inner))
        case .tables(let list): return (key, .array(list.map(tomlToJSON)))
        }
    })
}

func tomlToJSON(_ v: TOMLValue) -> JSONValue {
    switch v.kind {
    case .string(let s): return .string(s)
    case .integer(let i): return .number(Double(i))
    case .float(let d): return .number(d.isFinite ? d : (d > 0 ? 1e308 : -1e308))
    case .bool(let b): return .bool(b)
    case .dateTime(let d): return .string(d.description)
    case .array(let items): return .array(items.map(tomlToJSON))
    case .table(let t): return tomlToJSON(t)
    }
}
