/// Every code an error line can carry (docs/PROTOCOL.md, "Errors"): one enum, so that the daemon,
/// its stats and touchgesturectl name a code by a case, never by a string that could be misspelt.
public enum ErrorCode: String, CaseIterable, Sendable {
    case invalidUTF8 = "invalid_utf8"
    case parseError = "parse_error"
    case notAnObject = "not_an_object"
    case missingOp = "missing_op"
    case unknownOp = "unknown_op"
    case invalidField = "invalid_field"
    case invalidRegions = "invalid_regions"
    case forbidden
    case regionsDropped = "regions_dropped"
    case lineTooLong = "line_too_long"
    case tooManyClients = "too_many_clients"
    case idleTimeout = "idle_timeout"
    /// `calibrate`: the touches give no fit to trust (too few, on a line, a target missed).
    case calibrationRefused = "calibration_refused"
    /// `calibrate` with `save`: the daemon has nowhere to keep it (no state directory, no
    /// configuration file), or writing it failed.
    case notSaved = "not_saved"
    /// `reload`: the daemon has no configuration file, or refused the file (the old one stays).
    case reloadRefused = "reload_refused"
    /// The web bridge's answer to a page's request while it has no connection to the daemon.
    case daemonUnavailable = "daemon_unavailable"
    /// A failure of the daemon's own (a bug): the message says what.
    case `internal`
}
