import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The command's output: all of `bytes` to standard output (`fd` 1) or error (2). An output
/// cut short never reads as success: a reader of standard output that went away (EPIPE: `|
/// head`) ends the command as SIGPIPE would have, quietly with status 141; any other failure
/// there (a full disk) is said on standard error and ends it with status 1. Standard error
/// failing ends nothing: a log line lost must not stop a long-running helper (`keyboard`,
/// whose keyboard would be left running). Sockets are written with `Posix.writeAll`.
func writeOutput(_ fd: Int32, _ bytes: [UInt8]) {
    guard let e = Posix.writeAll(fd, bytes), fd != 2 else { return }
    if e.errno == .brokenPipe { exit(141) }
    _ = Posix.writeAll(2, Array("touchgesturectl: cannot write the output: \(e)\n".utf8))
    exit(1)
}

func writeOutput(_ fd: Int32, _ bytes: ArraySlice<UInt8>) { writeOutput(fd, Array(bytes)) }

/// A line to standard output, as `writeOutput` writes it (a failed write ends the command: 1,
/// or 141 for a reader gone; `print` would have lost it and exited 0).
func printLine(_ line: String) { writeOutput(1, Array((line + "\n").utf8)) }
