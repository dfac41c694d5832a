#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A regular file's UTF-8 text (a recording, a regions file): a FIFO or a device is refused at
/// once, never waited on.
public func readTextFile(_ path: String) throws(SystemCallError) -> String {
    let bytes = try readRegularFile(path)
    guard let text = String(validating: bytes, as: UTF8.self) else {
        throw SystemCallError(call: path, detail: "not UTF-8 text")
    }
    return text
}

/// The bytes of a regular file (a config): opened without blocking, so a FIFO or a device
/// named by mistake is refused at once instead of hanging the daemon's loop in open(2).
/// `followingLinks: false` refuses a symbolic link at `path` (ELOOP), for a file of the daemon's
/// own, where a link would only be someone's way to have it read another file.
public func readRegularFile(_ path: String, limit: Int = 256 << 20, followingLinks: Bool = true) throws(SystemCallError) -> [UInt8] {
    let file: Descriptor
    do {
        file = try Posix.open(path, O_RDONLY | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW), as: path).get()
    } catch where error.errno == .tooManySymbolicLinkLevels && !followingLinks {
        throw SystemCallError(call: path, errno: error.errno, detail: "a symbolic link, not read (it must be a regular file)")
    }
    try requireRegular(file.raw, path)
    return try readAll(file.raw, path, limit: limit)
}

/// The bytes of the regular file at `relative` (a `/`-separated path with no empty, `.` or `..`
/// part) inside the folder `root`, opened one part at a time with O_NOFOLLOW: a symbolic link
/// anywhere below `root` (to a file, or a folder) is refused, so nothing outside it is read.
/// (`root` itself may be reached through links: it is the administrator's choice.)
public func readRegularFile(beneath root: String, _ relative: String, limit: Int) throws(SystemCallError) -> [UInt8] {
    let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
    guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
        throw SystemCallError(call: relative, detail: "not a plain path")
    }
    var dir = try Posix.open(root, O_RDONLY | O_DIRECTORY, as: root).get()
    for part in parts.dropLast() {
        dir = try Posix.open(String(part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW, in: dir.raw, as: relative).get()
    }
    let file = try Posix.open(String(parts[parts.count - 1]), O_RDONLY | O_NOFOLLOW | O_NONBLOCK, in: dir.raw, as: relative).get()
    try requireRegular(file.raw, relative)
    return try readAll(file.raw, relative, limit: limit)
}

/// `fd` is a regular file's (a FIFO, a device or a folder is refused).
private func requireRegular(_ fd: Int32, _ path: String) throws(SystemCallError) {
    var st = stat()
    if case .failure(let e) = Posix.retry("fstat(\(path))", { fstat(fd, &st) }) { throw e }
    guard st.st_mode & S_IFMT == S_IFREG else { throw SystemCallError(call: path, detail: "not a regular file") }
}

private func readAll(_ fd: Int32, _ path: String, limit: Int = 256 << 20) throws(SystemCallError) -> [UInt8] {
    switch Posix.readAll(fd, limit: limit) {
    case .success(let bytes)?: return bytes
    case .failure(let e)?: throw SystemCallError(call: path, errno: e.errno)
    case nil: throw SystemCallError(call: path, detail: "larger than \(limit >> 20) MiB")
    }
}

/// Writes a whole text file (mode 0644), replacing a regular file at once
/// (`Posix.replaceFile`): never through a link or onto a device, so a CLI run as root and told
/// to write into a shared folder cannot be led by a planted link to overwrite another file.
public func writeTextFile(_ path: String, _ text: String) throws(SystemCallError) {
    if let e = Posix.replaceFile(path, with: Array(text.utf8)) { throw e }
}

