import Logging
import GestureProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// swift-log to stderr in a form the journal keeps: under systemd (JOURNAL_STREAM set) each line
/// starts with its syslog priority, `<6>client #3 connected ...`, and carries no timestamp (the
/// journal adds one); on a terminal, `2026-11-22T10:00:00Z info client #3 connected ...`.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let journal: Bool
    let output: LogOutput

    public init(level: Logger.Level, output: LogOutput = .standardError) {
        logLevel = level
        journal = Posix.environment("JOURNAL_STREAM") != nil
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var text = ""
        if journal {
            text = "<\(priority(event.level))>"
        } else {
            var t = time(nil)
            var tm = tm()
            gmtime_r(&t, &tm)
            var buf = [CChar](repeating: 0, count: 32)
            strftime(&buf, buf.count, "%Y-%m-%dT%H:%M:%SZ", &tm)
            text = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + " \(event.level) "
        }
        var body = "\(event.message)"
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        if !all.isEmpty { body += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        text += Self.escaped(body) + "\n"
        // Best effort: a log line that cannot be written has nowhere else to go.
        output.write(Array(text.utf8)) { lost in
            let line = "\(lost) log line(s) dropped: the journal did not read them in time\n"
            return Array(((journal ? "<4>" : "") + line).utf8)
        }
    }

    /// Longest message written, in bytes (a client's string can be long).
    static let maxMessageBytes = 4096

    /// One line, whatever a message holds: control characters (a newline, `<0>`-forging line
    /// starts, ESC sequences, NUL) are written as `\xNN`, bidirectional overrides as `\u{XXXX}`,
    /// and the message is cut at `maxMessageBytes`. Strings from clients reach the journal only
    /// through here.
    static func escaped(_ message: String) -> String { SafeText.escaped(message, limit: maxMessageBytes) }

    func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// Installs the handler for the whole process (once, at start-up).
    public static func bootstrap(verbose: Bool) {
        LoggingSystem.bootstrap { _ in JournalLogHandler(level: verbose ? .trace : .info) }
    }
}

/// A warning that may repeat many times a second (a connection flood): logged at once, then at
/// most once per `interval` with the count of those not logged, so the journal gets a line with
/// a count instead of a thousand identical ones.
struct RepeatedWarning {
    var interval: Int64 = 10_000_000_000
    /// What the occurrences are, in the suffix: "(N more refused since the last warning)".
    var what: String

    init(what: String = "refused") { self.what = what }
    private var lastLogged: Int64?
    private var unlogged = 0

    /// One more occurrence: the suffix to log it with (" (and N more since the last warning)"),
    /// or nil to stay silent.
    mutating func note(at now: Int64) -> String? {
        if let last = lastLogged, now - last < interval {
            unlogged += 1
            return nil
        }
        lastLogged = now
        return flush() ?? ""
    }

    /// The count not logged yet, once, or nil.
    mutating func flush() -> String? {
        guard unlogged > 0 else { return nil }
        defer { unlogged = 0 }
        return " (\(unlogged) more \(what) since the last warning)"
    }
}
