import ArgumentParser
import GestureProtocol
import Pipeline
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the daemon's state as Prometheus metrics (text exposition), or write them atomically for node_exporter's textfile collector.",
        discussion: """
            With --output, the file is written beside its destination and renamed into place, so a \
            scrape never reads half of it (touchgestured-metrics.timer runs this every 15 s). A daemon \
            that cannot be reached gives touchgestured_up 0 (and exit status 0), so alerts can tell it.
            """
    )
    @OptionGroup var connection: SocketOption

    @Option(name: .shortAndLong, help: "Write to this file (atomically: a temporary file, then rename) instead of stdout.")
    var output: String?

    func run() throws {
        var stats: StatsSnapshot?
        if let c = try? connection.oneShot(), let reply = try? c.call(#"{"op":"stats","id":1}"#, id: 1) {
            stats = StatsSnapshot(reply: reply)
        }
        let text = PrometheusText.render(stats)
        guard let output else {
            writeOutput(1, Array(text.utf8))
            return
        }
        // The rename replaces whatever is there: only a regular file may be (a device node, a
        // socket or a link there is refused, never turned into a file of metrics).
        if case .success(let st) = Posix.status(output, followingLinks: false), !st.isRegular {
            throw fail("\(output) is not a regular file: --output writes (and replaces) a regular file only")
        }
        if let e = Posix.replaceFile(output, with: Array(text.utf8)) { throw fail(e.description) }
    }
}
