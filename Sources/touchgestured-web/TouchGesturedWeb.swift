import ArgumentParser
import GestureProtocol
import Logging
import SystemCalls
import WebBridge

#if canImport(Glibc)
    import Glibc
#endif

@main
struct TouchGesturedWeb: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touchgestured-web",
        abstract: "Gestures for web pages: a WebSocket bridge to touchgestured's socket, and the JavaScript client.",
        discussion: """
            Each WebSocket connection to ws://HOST:PORT\(BridgeSettings.endpoint) is a client of the daemon \
            (docs/PROTOCOL.md, "The web bridge"). The JavaScript module is served at \
            \(BridgeSettings.modulePath) (when --www's folder holds it), the example page at /. Pages from other \
            origins are refused unless allowed with --allow-origin (an allowed page may import the module from \
            here too); a refused handshake is logged with why. Only local users who may open the daemon's socket \
            themselves are served (others get HTTP 403), and each page counts as its own user at the daemon.
            """,
        version: packageVersion
    )

    @Option(help: "Address and port to serve on (HOST:PORT, [V6]:PORT).")
    var listen = BridgeSettings.defaultListen

    @Option(help: "The daemon's socket.")
    var socket = "/run/touchgestured/gestures.sock"

    @Option(help: "Folder of the files served over HTTP (default: share/touchgestured/www beside the binary's bin/).")
    var www: String?

    @Option(name: .customLong("allow-origin"), help: "Also accept pages from this origin (scheme://host[:port], 'null' for file:// pages, '*' for any); repeatable.")
    var allowOrigin: [String] = []

    @Option(help: "Pages connected at once (1-4096); one more gets HTTP 503. Keep it within the daemon's max_clients_per_user.")
    var maxConnections = 16

    @Option(help: "Pages one local user may have connected at once (1 to --max-connections; default half of it), so one user's pages cannot lock another's out; one more gets HTTP 503.")
    var maxConnectionsPerUser: Int?

    @Option(help: "The largest message a page may send, in bytes (1024-16777216); a larger one closes its connection (1009). A message the daemon would refuse as too long (its max_line_bytes) gets a line_too_long error instead.")
    var maxMessageBytes = 65536

    @Flag(help: "Refuse set_regions and clear_regions from pages.")
    var readOnly = false

    @Flag(help: "Serve peers on other hosts too (with --listen on a non-loopback address). They have no local user to check, so any host that reaches the port gets what the daemon's socket gives its group.")
    var allowRemote = false

    @Flag(name: .shortAndLong, help: "Log each page's connection and its end.")
    var verbose = false

    func run() async throws {
        var settings: BridgeSettings
        do {
            settings = try BridgeSettings(
                listen: listen, socketPath: socket, siteRoot: www ?? Self.installedSite(), extraOrigins: allowOrigin,
                maxConnections: maxConnections, maxConnectionsPerUser: maxConnectionsPerUser, maxMessageBytes: maxMessageBytes,
                readOnly: readOnly, allowRemote: allowRemote)
        } catch {
            throw ValidationError(error.description)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .info
            return handler
        }
        Posix.ignoreBrokenPipes()
        let log = Logger(label: "touchgestured-web")
        // As many open files as the hard limit allows, then the caps fitted to them.
        let limit = Posix.raiseOpenFileLimit()?.soft ?? 1024
        guard let fitted = settings.fitting(fdLimit: Int(min(limit, 1 << 20))) else {
            log.critical("\(limit) open files (LimitNOFILE) are too few to serve a page")
            throw ExitCode(1)
        }
        settings = fitted.settings
        if let lowered = fitted.lowered { log.warning("\(lowered)") }
        if Posix.access(settings.siteRoot + BridgeSettings.modulePath, R_OK) != nil {
            log.warning("no \(BridgeSettings.modulePath) in \(settings.siteRoot) (--www): pages will not find the module")
        }
        do {
            try await Bridge(settings: settings, log: log).run()
        } catch {
            log.critical("\(error)")
            throw ExitCode(1)
        }
    }

    /// `PREFIX/share/touchgestured/www` for a binary at `PREFIX/bin/touchgestured-web`.
    static func installedSite() -> String {
        guard let exe = Posix.executablePath() else { return "/usr/share/touchgestured/www" }
        let bin = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        return bin.dropLast().joined(separator: "/") + "/share/touchgestured/www"
    }
}
