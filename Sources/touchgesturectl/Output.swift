import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The command's output: all of `bytes` to `fd` (standard output or error). An output cut short
/// never reads as success: a reader that went away (EPIPE: `| head`) ends the command as SIGPIPE
/// would have, quietly with status 141; any other failure (a full disk) is said on standard
/// error and ends it with status 1.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    guard let e = Posix.writeAll(fd, bytes) else { return }
    if e.errno == .brokenPipe { exit(141) }
    if fd != 2 { _ = Posix.writeAll(2, Array("touchgesturectl: cannot write the output: \(e)\n".utf8)) }
    exit(1)
}

func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) { writeAll(fd, Array(bytes)) }
