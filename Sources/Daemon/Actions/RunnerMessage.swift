import GestureProtocol

/// What the daemon and its action runner say to each other: one JSON object per SOCK_SEQPACKET
/// message (each arrives whole, so there is no framing). The daemon asks for a command to run;
/// the runner answers once when it started it, skipped it or could not start it, and once more
/// when every process the command started has ended.
enum RunnerMessage: Equatable {
    /// Run `argv` with `env` for at most `timeoutMs`, unless `maxProcesses` action processes
    /// already run. `firedAt` is the gesture's CLOCK_MONOTONIC time in µs (for the latency).
    case run(id: Int, name: String, argv: [String], env: [String], timeoutMs: Int, maxProcesses: Int, firedAt: Int)
    /// Started as `pid`, `spawnMicros` after the gesture fired.
    case started(id: Int, pid: Int, spawnMicros: Int)
    /// Not started: `running` action processes were alive, the limit.
    case skipped(id: Int, running: Int)
    /// Not started: why.
    case failed(id: Int, reason: String)
    /// The leader's exit (`status`, or the `signal` that killed it, else 0) once nothing it
    /// started is left; `ms` from start to that moment.
    case ended(id: Int, status: Int, signal: Int, ms: Int)

    /// Largest message either side sends or reads (a command line and its environment).
    static let maxBytes = 256 * 1024

    func encoded() -> [UInt8] {
        var w = JSONLineWriter(capacity: 256)
        w.value(json)
        return w.bytes
    }

    private var json: JSONValue {
        func n(_ v: Int) -> JSONValue { .number(Double(v)) }
        switch self {
        case .run(let id, let name, let argv, let env, let timeoutMs, let maxProcesses, let firedAt):
            return .object([
                ("run", n(id)), ("name", .string(name)), ("argv", .array(argv.map { .string($0) })),
                ("env", .array(env.map { .string($0) })), ("timeout_ms", n(timeoutMs)),
                ("max_processes", n(maxProcesses)), ("fired_at", n(firedAt)),
            ])
        case .started(let id, let pid, let spawnMicros):
            return .object([("started", n(id)), ("pid", n(pid)), ("spawn_us", n(spawnMicros))])
        case .skipped(let id, let running): return .object([("skipped", n(id)), ("running", n(running))])
        case .failed(let id, let reason): return .object([("failed", n(id)), ("reason", .string(reason))])
        case .ended(let id, let status, let signal, let ms):
            return .object([("ended", n(id)), ("status", n(status)), ("signal", n(signal)), ("ms", n(ms))])
        }
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads a message; a malformed one (a peer of another version, a stray writer) is an error.
    init(decoding bytes: some Collection<UInt8>) throws(Malformed) {
        let v: JSONValue
        do { v = try parseJSON(bytes) } catch { throw Malformed(description: "\(error)") }
        func int(_ key: String) throws(Malformed) -> Int {
            guard case .number(let d)? = v[key], d == d.rounded(), abs(d) < 9e15 else {
                throw Malformed(description: "'\(key)' is not a whole number")
            }
            return Int(d)
        }
        func strings(_ key: String) throws(Malformed) -> [String] {
            guard case .array(let items)? = v[key] else { throw Malformed(description: "'\(key)' is not an array") }
            var out: [String] = []
            for case .string(let s) in items { out.append(s) }
            guard out.count == items.count else { throw Malformed(description: "'\(key)' holds a non-string") }
            return out
        }
        if v["run"] != nil {
            guard case .string(let name)? = v["name"] else { throw Malformed(description: "'name' is not a string") }
            let argv = try strings("argv")
            guard !argv.isEmpty else { throw Malformed(description: "'argv' is empty") }
            self = .run(
                id: try int("run"), name: name, argv: argv, env: try strings("env"), timeoutMs: try int("timeout_ms"),
                maxProcesses: try int("max_processes"), firedAt: try int("fired_at"))
        } else if v["started"] != nil {
            self = .started(id: try int("started"), pid: try int("pid"), spawnMicros: try int("spawn_us"))
        } else if v["skipped"] != nil {
            self = .skipped(id: try int("skipped"), running: try int("running"))
        } else if v["failed"] != nil {
            guard case .string(let reason)? = v["reason"] else { throw Malformed(description: "'reason' is not a string") }
            self = .failed(id: try int("failed"), reason: reason)
        } else if v["ended"] != nil {
            self = .ended(id: try int("ended"), status: try int("status"), signal: try int("signal"), ms: try int("ms"))
        } else {
            throw Malformed(description: "no known message")
        }
    }
}
