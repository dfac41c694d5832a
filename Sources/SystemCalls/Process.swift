import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The few C-shaped arguments and results the daemon's process and socket calls need, built and
/// read here so that no caller outside SystemCalls handles a raw pointer for them.
extension Posix {
    /// argv/envp for C: NUL-terminated copies of `strings`, then a NULL, valid during `body`.
    public static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        // The array is alive for the whole call and holds count + 1 elements: baseAddress is not nil.
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// The names in directory `path` (nil when it cannot be listed), "." and ".." left out.
    public static func directoryNames(_ path: String) -> [String]? {
        guard let dir = opendir(path) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                // d_name is a NUL-terminated char array inside the dirent readdir returned,
                // valid until the next readdir on this stream: copied out before that.
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The path Unix socket `fd` is bound to ("" for none).
    public static func boundPath(ofUnixSocket fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        // Safe: the C function writes at most `buffer.count` bytes, NUL-terminated, into the array it is lent.
        let ok = buffer.withUnsafeMutableBufferPointer { cl_unix_socket_path(fd, $0.baseAddress, $0.count) } == 0
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    /// `bytes` as one datagram to the Unix socket at `path` (systemd's notify socket); false if
    /// it was not sent.
    public static func send(_ fd: Int32, _ bytes: [UInt8], toUnixPath path: String) -> Bool {
        bytes.withUnsafeBytes { cl_sendto_unix(fd, $0.baseAddress, $0.count, path) } >= 0
    }
}
