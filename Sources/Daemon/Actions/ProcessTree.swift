import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The processes below one process (the action runner), read from /proc: each thread's
/// `/proc/PID/task/TID/children` lists the children it forked. The runner is a child subreaper,
/// so whatever an action's command starts stays below it even when its parent exits: this list
/// is every process of every action, found without a timer or a kernel event per fork.
struct ProcessTree {
    /// One process below the root: its pid and its session (an action's leader starts a session
    /// of its own, and what it forks stays in it unless it calls setsid).
    struct Member: Equatable {
        var pid: Int32
        var session: Int32
    }

    /// Most processes read (a fork bomb must not hold the runner); what is past it is not seen.
    static let maxMembers = 4096

    /// Every process below `root`, parents before their children, but for `except` and what is
    /// below it. A process that ends while it is read is left out (its files are gone).
    static func descendants(of root: Int32, except: Int32 = 0) -> [Member] {
        var found: [Member] = []
        var queue = children(of: root).filter { $0 != except }
        var next = 0
        while next < queue.count && found.count < maxMembers {
            let pid = queue[next]
            next += 1
            let session = getsid(pid)
            guard session > 0 else { continue }
            found.append(Member(pid: pid, session: session))
            queue += children(of: pid)
        }
        return found
    }

    /// The pids `pid`'s threads forked (empty when it is gone or /proc does not say).
    static func children(of pid: Int32) -> [Int32] {
        var result: [Int32] = []
        for tid in threads(of: pid) {
            for word in readSmallFile("/proc/\(pid)/task/\(tid)/children").split(separator: UInt8(ascii: " ")) {
                if let child = Int32(String(decoding: word, as: UTF8.self)) { result.append(child) }
            }
        }
        return result
    }

    /// The thread ids of `pid` (the pid alone when its task folder cannot be listed).
    static func threads(of pid: Int32) -> [Int32] {
        guard let names = Posix.directoryNames("/proc/\(pid)/task") else { return [pid] }
        return names.compactMap { Int32($0) }
    }

    /// A /proc file's bytes (at most 64 KiB), empty when it cannot be read.
    static func readSmallFile(_ path: String) -> [UInt8] {
        guard case .success(let file) = Posix.open(path, O_RDONLY) else { return [] }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            guard case .done(let n) = Posix.read(file.raw, into: &buffer), n > 0 else { break }
            bytes += buffer[0..<n]
        }
        return bytes
    }

    /// Sends `signal` to each member; how many it reached.
    @discardableResult
    static func signal(_ members: [Member], _ signal: Int32) -> Int {
        members.reduce(0) { $0 + (Posix.kill($1.pid, signal) ? 1 : 0) }
    }
}
