import GestureProtocol

/// What the bridge does with one message from a page: pass it to the daemon as a request line, or
/// answer it itself with an error line (docs/PROTOCOL.md, "The web bridge").
public enum GateDecision: Equatable, Sendable {
    /// The request line to send to the daemon, newline included.
    case forward([UInt8])
    /// The error line to send back to the page, newline included.
    case answer([UInt8])
}

/// Reads each page message with the daemon's own request parser, so a page gets the same errors a
/// socket client would, and passes on only the ops a page may use.
public struct RequestGate: Sendable {
    /// Ops a page may send: what a web app needs. `stats` (the daemon's counters, other clients'
    /// numbers) stays with local tools.
    public static let pageOpList = ["ping", "subscribe", "set_regions", "clear_regions", "list_devices", "get_config", "calibrate"]
    public static let pageOps = Set(pageOpList)
    static let regionOps: Set<String> = ["set_regions", "clear_regions"]

    public var readOnly: Bool

    public init(readOnly: Bool) { self.readOnly = readOnly }

    /// One WebSocket message (a whole text or binary message) from a page. `lineLimit` is the
    /// daemon's `max_line_bytes` (its hello says it): a longer message would make the daemon drop
    /// the page's connection, so the bridge answers it itself.
    public func decide(_ message: [UInt8], lineLimit: Int = .max) -> GateDecision {
        if message.count >= lineLimit {
            return .answer(Self.errorLine(nil, .lineTooLong, "a request of \(message.count) bytes: the daemon takes lines under \(lineLimit) bytes (max_line_bytes)"))
        }
        if message.contains(UInt8(ascii: "\n")) {
            return .answer(Self.errorLine(nil, .invalidField, "one request a message: no newline inside it"))
        }
        if message.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }) {
            return .answer(Self.errorLine(nil, .missingOp, "an empty message"))
        }
        switch Request.parse(message[...]) {
        case .failure(let failure):
            // An op no one knows: the ops a page may send, not the daemon's whole list.
            var message = failure.message
            if failure.code == .unknownOp, let cut = message.ranges(of: " (").last {
                message = message[..<cut.lowerBound] + " (a web page's: \(Self.pageOpList.joined(separator: ", ")))"
            }
            return .answer(Self.errorLine(failure.id, failure.code, message))
        case .success(let (id, request)):
            if !Self.pageOps.contains(request.op) {
                return .answer(Self.errorLine(id, .forbidden, "op '\(request.op)' is not served to web pages"))
            }
            if readOnly && Self.regionOps.contains(request.op) {
                return .answer(Self.errorLine(id, .forbidden, "this bridge is read-only (--read-only): no \(request.op)"))
            }
            if readOnly, case .calibrate(let r) = request, r.save {
                return .answer(Self.errorLine(id, .forbidden, "this bridge is read-only (--read-only): a calibration is fitted, not saved"))
            }
            if case .setRegions(let regions) = request, regions.contains(where: { $0["exclude"] != nil }) {
                // An excluded area takes the kiosk's own gestures away: never a page's to ask.
                return .answer(Self.errorLine(id, .forbidden, "a web page may not exclude an area from gestures (exclude)"))
            }
            return .forward(message + [UInt8(ascii: "\n")])
        }
    }

    /// The answer to a request that arrives while the daemon is away (it is not queued: the page's
    /// client sends its state again on the daemon's next `hello`).
    public func unavailable(_ message: [UInt8]) -> [UInt8] {
        Self.errorLine(Self.id(of: message), .daemonUnavailable, "the daemon is not reachable now; the bridge reconnects")
    }

    /// The answer to a request while the daemon reads nothing (its socket is full).
    public func busy(_ message: [UInt8]) -> [UInt8] {
        Self.errorLine(Self.id(of: message), .daemonUnavailable, "the daemon is not reading its requests now: this one was dropped")
    }

    /// A request's id, when one can be read.
    static func id(of message: [UInt8]) -> RequestID? {
        switch Request.parse(message[...]) {
        case .success(let (given, _)): given
        case .failure(let failure): failure.id
        }
    }

    static func errorLine(_ id: RequestID?, _ code: ErrorCode, _ message: String) -> [UInt8] {
        var w = JSONLineWriter(capacity: 128)
        Messages.error(&w, id: id, code: code, message: message)
        return w.bytes
    }

    /// `{"type":"bridge","daemon":"up"}` or `"down"`: the bridge's own line to its pages.
    public static func daemonLine(up: Bool) -> [UInt8] {
        Array((up ? #"{"type":"bridge","daemon":"up"}"# : #"{"type":"bridge","daemon":"down"}"#).utf8) + [UInt8(ascii: "\n")]
    }
}
