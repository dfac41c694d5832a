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
            With --output, the file is written beside its destination and renamed into place, so a
            scrape never reads half of it (touchgestured-metrics.timer runs this every 15 s). A daemon
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
            writeAll(1, Array(text.utf8))
            return
        }
        // The rename replaces whatever is there: only a regular file may be (a device node, a
        // socket or a link there is refused, never turned into a file of metrics).
        var st = stat()
        if lstat(output, &st) == 0 && st.st_mode & S_IFMT != S_IFREG {
            throw fail("\(output) is not a regular file: --output writes (and replaces) a regular file only")
        }
        let temporary = output + ".tmp.\(getpid())"
        // O_EXCL | O_NOFOLLOW: a file or link already at the temporary name is not written through.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fail("\(temporary): \(String(cString: strerror(errno)))") }
        let failed = Posix.writeAll(fd, Array(text.utf8))
        let synced = fsync(fd) == 0
        Posix.close(fd)
        guard failed == nil, synced, rename(temporary, output) == 0 else {
            let reason = String(cString: strerror(failed?.errno ?? errno))
            unlink(temporary)
            throw fail("\(output): \(reason)")
        }
    }
}
