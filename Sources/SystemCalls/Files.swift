#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reading a whole text file, with the errno text on failure.
public struct FileError: Error, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// A regular file's UTF-8 text (a recording, a regions file): a FIFO or a device is refused at
/// once, never waited on.
public func readTextFile(_ path: String) throws(FileError) -> String {
    let bytes = try readRegularFile(path)
    guard let text = String(validating: bytes, as: UTF8.self) else {
        throw FileError(path: path, reason: "not UTF-8 text")
    }
    return text
}

/// The bytes of a regular file (a config): opened without blocking, so a FIFO or a device
/// named by mistake is refused at once instead of hanging the daemon's loop in open(2).
/// `followingLinks: false` refuses a symbolic link at `path` (ELOOP), for a file of the daemon's
/// own, where a link would only be someone's way to have it read another file.
public func readRegularFile(_ path: String, limit: Int = 256 << 20, followingLinks: Bool = true) throws(FileError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
    guard fd >= 0 else {
        let e = errno
        throw FileError(path: path, reason: e == ELOOP && !followingLinks ? "a symbolic link, not read (it must be a regular file)" : String(cString: strerror(e)))
    }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
    guard st.st_mode & S_IFMT == S_IFREG else { throw FileError(path: path, reason: "not a regular file") }
    return try readAll(fd, path, limit: limit)
}

/// The bytes of the regular file at `relative` (a `/`-separated path with no empty, `.` or `..`
/// part) inside the folder `root`, opened one part at a time with O_NOFOLLOW: a symbolic link
/// anywhere below `root` (to a file, or a folder) is refused, so nothing outside it is read.
/// (`root` itself may be reached through links: it is the administrator's choice.)
public func readRegularFile(beneath root: String, _ relative: String, limit: Int) throws(FileError) -> [UInt8] {
    let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
    guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
        throw FileError(path: relative, reason: "not a plain path")
    }
    var dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard dir >= 0 else { throw FileError(path: root, reason: String(cString: strerror(errno))) }
    defer { close(dir) }
    for part in parts.dropLast() {
        let next = openat(dir, String(part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard next >= 0 else { throw FileError(path: relative, reason: String(cString: strerror(errno))) }
        close(dir)
        dir = next
    }
    let fd = openat(dir, String(parts[parts.count - 1]), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw FileError(path: relative, reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { throw FileError(path: relative, reason: "not a regular file") }
    return try readAll(fd, relative, limit: limit)
}

private func readAll(_ fd: Int32, _ path: String, limit: Int = 256 << 20) throws(FileError) -> [UInt8] {
    switch Posix.readAll(fd, limit: limit) {
    case .success(let bytes)?: return bytes
    case .failure(let e)?: throw FileError(path: path, reason: String(cString: strerror(e.errno)))
    case nil: throw FileError(path: path, reason: "larger than \(limit >> 20) MiB")
    }
}

/// Writes all of `bytes` to a file descriptor (stdout for the CLI).
public func writeAll(_ fd: Int32, _ bytes: [UInt8]) { writeAll(fd, bytes[...]) }

/// Writes all of `bytes` to a file descriptor.
public func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) {
    // Best effort (stdout gone: nothing to tell).
    // Safe: the array's bytes lent for the write.
    _ = bytes.withUnsafeBytes { Posix.writeAll(fd, $0) }
}

/// Writes a whole text file (created with mode 0644, replaced if present).
public func writeTextFile(_ path: String, _ text: String) throws(FileError) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    // Safe: the array's bytes lent for the write.
    if let e = Array(text.utf8).withUnsafeBytes({ Posix.writeAll(fd, $0) }) {
        throw FileError(path: path, reason: String(cString: strerror(e.errno)))
    }
}

/// Runs a program (looked up in PATH) with arguments and waits; returns its exit status, or nil
/// when it could not be started (not installed).
public func runProgram(_ argv: [String]) -> Int32? {
    var pid: pid_t = 0
    // Safe: the C strings live until the child is spawned, then are freed.
    var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for p in cArgs { free(p) } }
    let rc = posix_spawnp(&pid, argv[0], nil, nil, &cArgs, environ)
    guard rc == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        if errno != EINTR { return nil }
    }
    // WIFEXITED / WEXITSTATUS are macros: decode the wait status by hand.
    if status & 0x7f == 0 { return (status >> 8) & 0xff }
    return 128 + (status & 0x7f)
}
