/// Where the daemon listens. Two sockets side by side: the stream socket, where a connection
/// gets gesture and device lines from the start, and the request socket, where a connection
/// gets nothing but the `hello` line and the replies to its own requests (until it subscribes).
/// One-shot clients (stats, ping, metrics) use the second, so no stream line can reach them
/// before their request is read.
public enum SocketPaths {
    public static let stream = "/run/touchgestured/gestures.sock"

    /// The request socket beside a stream socket: `gestures.sock` → `gestures-requests.sock`
    /// (a path without the `.sock` suffix gets `-requests.sock` appended).
    public static func requests(besides stream: String) -> String {
        let base = stream.hasSuffix(".sock") ? String(stream.dropLast(5)) : stream
        return base + "-requests.sock"
    }
}
