/// Maps a request path to a file under the site folder, and names its type. Only plain names are
/// served (letters, digits, `.`, `-`, `_`, `/`; no segment starting with a dot, so no `..` and no
/// hidden file): nothing outside the folder can be named, whatever the path says. And a file is
/// opened beneath the folder only (`read`): a symbolic link inside it, to a file or a folder, is
/// not followed, so a link to /etc/passwd put there serves nothing.
public struct StaticFiles: Sendable {
    public var root: String

    public init(root: String) { self.root = root }

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "png": "image/png", "svg": "image/svg+xml",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8",
    ]

    /// A request target's path: its query (and a fragment, which browsers do not send) dropped.
    static func path(_ uri: String) -> Substring {
        uri.firstIndex(where: { $0 == "?" || $0 == "#" }).map { uri[..<$0] } ?? Substring(uri)
    }

    /// The file for `uriPath` (its query dropped; `/` and folders get `index.html`, a last part
    /// without an extension its `.html`) and its
    /// Content-Type, or nil when the path is not one the bridge serves.
    public func resolve(_ uriPath: String) -> (file: String, contentType: String)? {
        var path = Self.path(uriPath)
        guard path.hasPrefix("/"), path.utf8.count <= 512 else { return nil }
        if path.hasSuffix("/") { path += "index.html" }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            guard let first = segment.first, first != "." else { return nil }
            guard segment.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else { return nil }
        }
        guard var last = segments.last, !last.isEmpty else { return nil }
        // A page by its name alone (`/calibrate`): its `.html`.
        let extensionless = !last.contains(".")
        if extensionless { last += ".html" }
        guard let dot = last.lastIndex(of: ".") else { return nil }
        guard let type = Self.types[last[last.index(after: dot)...].lowercased()] else { return nil }
        return (root + "/" + (segments.dropLast() + [last]).joined(separator: "/"), type)
    }
}
