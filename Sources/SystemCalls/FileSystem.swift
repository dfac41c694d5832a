#if canImport(Glibc)
    import Glibc
#endif

/// What `stat` says of a file.
public struct FileStatus: Sendable {
    public enum Kind: Sendable { case regular, directory, symbolicLink, socket, fifo, device }
    public var kind: Kind
    /// The permission bits (0o7777).
    public var permissions: UInt32
    public var uid: UInt32
    public var gid: UInt32
    /// A device node's device number (st_rdev).
    public var deviceNumber: UInt64
    /// The file itself (st_dev, st_ino): two paths name one file when these are equal.
    public var identity: (device: UInt64, inode: UInt64) = (0, 0)

    public var isRegular: Bool { kind == .regular }

    /// "a regular file", "a directory", ...: what a message names it.
    public var kindName: String {
        switch kind {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .symbolicLink: "a symbolic link"
        case .socket: "a socket"
        case .fifo: "a FIFO"
        case .device: "a device"
        }
    }
}

/// Paths: their status, access, creating and removing them, owners, the creation mask.
extension Posix {
    /// `stat` of `path` (`lstat` when not following links).
    public static func status(_ path: String, followingLinks: Bool = true) -> Result<FileStatus, SystemCallError> {
        var st = stat()
        let r = followingLinks ? stat(path, &st) : lstat(path, &st)
        guard r == 0 else { return .failure(SystemCallError(followingLinks ? "stat(\(path))" : "lstat(\(path))", errno)) }
        let kind: FileStatus.Kind =
            switch st.st_mode & S_IFMT {
            case S_IFREG: .regular
            case S_IFDIR: .directory
            case S_IFLNK: .symbolicLink
            case S_IFSOCK: .socket
            case S_IFIFO: .fifo
            default: .device
            }
        var status = FileStatus(kind: kind, permissions: st.st_mode & 0o7777, uid: st.st_uid, gid: st.st_gid, deviceNumber: UInt64(st.st_rdev))
        status.identity = (UInt64(st.st_dev), UInt64(st.st_ino))
        return .success(status)
    }

    /// `path` with every symbolic link and `.`/`..` resolved (`realpath`).
    public static func realPath(_ path: String) -> Result<String, SystemCallError> {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        // Safe: realpath writes at most PATH_MAX bytes and a NUL into the buffer it is given.
        guard realpath(path, &buffer) != nil else { return .failure(SystemCallError("realpath(\(path))", errno)) }
        return .success(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// What the symbolic link at `path` names (`readlink`), as written in it.
    public static func readLink(_ path: String) -> Result<String, SystemCallError> {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        // Safe: readlink writes at most the count it is given (one less than the buffer) and returns how many.
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n >= 0 else { return .failure(SystemCallError("readlink(\(path))", errno)) }
        return .success(String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Whether `fd` is a socket (stderr under systemd is the journal's stream socket).
    public static func isSocket(_ fd: Int32) -> Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFSOCK
    }

    /// The names in `directory` (not `.` and `..`), in no particular order.
    /// The names in `directory` but `.` and `..`; a name that is not UTF-8 (which no String can
    /// name again) is left out and counted in `undecodable`, shown with its bytes as `\xNN`.
    public static func entries(of directory: String) -> Result<[String], SystemCallError> {
        listing(of: directory).map(\.names)
    }

    public static func listing(of directory: String) -> Result<(names: [String], undecodable: [String]), SystemCallError> {
        guard let dir = opendir(directory) else { return .failure(SystemCallError("opendir(\(directory))", errno)) }
        defer { closedir(dir) }
        var names: [String] = [], undecodable: [String] = []
        while let entry = readdir(dir) {
            // Safe: d_name is a NUL-terminated array inside the entry readdir returned (valid until the next call).
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                undecodable.append(bytes.map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined())
                continue
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success((names, undecodable))
    }

    /// Whether this process may do `mode` (R_OK, W_OK, X_OK, F_OK) on `path`; why not otherwise.
    public static func access(_ path: String, _ mode: Int32) -> SystemCallError? {
        Glibc.access(path, mode) == 0 ? nil : SystemCallError("access(\(path))", errno)
    }

    public static func unlink(_ path: String) -> SystemCallError? {
        Glibc.unlink(path) == 0 ? nil : SystemCallError("unlink(\(path))", errno)
    }

    /// `from` renamed to `to` (in one file system: at once, replacing `to`).
    public static func rename(_ from: String, to: String) -> SystemCallError? {
        Glibc.rename(from, to) == 0 ? nil : SystemCallError("rename(\(from), \(to))", errno)
    }

    public static func removeDirectory(_ path: String) -> SystemCallError? {
        rmdir(path) == 0 ? nil : SystemCallError("rmdir(\(path))", errno)
    }

    /// Makes directory `path` with `mode` (less the creation mask).
    public static func makeDirectory(_ path: String, mode: UInt32) -> SystemCallError? {
        mkdir(path, mode) == 0 ? nil : SystemCallError("mkdir(\(path))", errno)
    }

    /// Gives `path` (not a link's target: lchown) owner `uid` and group `gid`.
    public static func changeOwner(_ path: String, uid: UInt32, gid: UInt32) -> SystemCallError? {
        lchown(path, uid, gid) == 0 ? nil : SystemCallError("lchown(\(path))", errno)
    }

    /// `body` with the file creation mask `mask` (the previous one restored after).
    public static func withCreationMask<R>(_ mask: UInt32, _ body: () -> R) -> R {
        let previous = umask(mask)
        defer { umask(previous) }
        return body()
    }

    /// Replaces `path` with `bytes` at once: written to a new file beside it (`mode`), synced,
    /// renamed over it, the folder synced. A reader, or a power cut at any point, sees the old
    /// file or the new one, never a part. Refuses to replace anything but a regular file. A
    /// temporary file of the same name left by a process of the same pid before a crash (a
    /// boot ago) is removed first, not taken for a reason to fail every save.
    public static func replaceFile(_ path: String, with bytes: [UInt8], mode: UInt32 = 0o644) -> SystemCallError? {
        if case .success(let st) = status(path, followingLinks: false), !st.isRegular {
            return SystemCallError(call: path, errno: .fileExists, detail: "\(st.kindName), not a regular file: only a regular file is replaced")
        }
        // A missing folder is said as the path's, not as the temporary file's beside it.
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if case .failure(let e) = status(folder.isEmpty ? "/" : folder) { return SystemCallError(call: path, errno: e.errno, detail: "its folder \(folder): \(e.reason)") }
        let temporary = path + ".tmp.\(processID)"
        if case .success(let st) = status(temporary, followingLinks: false), st.isRegular { _ = unlink(temporary) }
        var failure: SystemCallError?
        do {
            let file = try open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode_t(mode)).get()
            failure = writeAll(file.raw, bytes, "write(\(temporary))")
            if failure == nil && fsync(file.raw) != 0 { failure = SystemCallError("fsync(\(temporary))", errno) }
        } catch {
            return error
        }
        if failure == nil && Glibc.rename(temporary, path) != 0 { failure = SystemCallError("rename(\(temporary), \(path))", errno) }
        if failure != nil { _ = unlink(temporary) }
        if failure == nil { syncFolder(of: path) }
        return failure
    }

    /// Makes a rename in `path`'s folder durable (fsync of the folder); a failure only loses
    /// durability, not the file, so it is not reported.
    private static func syncFolder(of path: String) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard case .success(let dir) = open(folder.isEmpty ? "/" : folder, O_RDONLY | O_DIRECTORY) else { return }
        _ = fsync(dir.raw)
    }
}

extension Posix {
    /// The names in directory `path` (nil when it cannot be listed), "." and ".." left out.
    public static func directoryNames(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            // Safe: the entry's name buffer, read inside the closure while `readdir`'s entry is valid.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                // d_name is a NUL-terminated char array inside the dirent readdir returned,
                // valid until the next readdir on this stream: copied out before that.
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
