import Logging

/// What a command printed, as log lines: the first `ActionSupervisor.maxLogLines`, then only
/// counted.
struct OutputLog {
    let name: String
    let pid: Int32
    let log: Logger
    private var pending: [UInt8] = []
    private var lines = 0
    private var unlogged = 0

    init(name: String, pid: Int32, log: Logger) {
        (self.name, self.pid, self.log) = (name, pid, log)
    }

    mutating func take(_ bytes: ArraySlice<UInt8>) {
        guard lines < ActionSupervisor.maxLogLines else {
            unlogged += bytes.count
            return
        }
        pending += bytes
        while lines < ActionSupervisor.maxLogLines, let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
            line(pending[..<nl])
            pending.removeSubrange(...nl)
        }
        if lines < ActionSupervisor.maxLogLines && pending.count > ActionSupervisor.maxLogLine {
            line(pending[...])
            pending.removeAll()
        }
        if lines == ActionSupervisor.maxLogLines {
            unlogged += pending.count
            pending = []
        }
    }

    /// The output closed: the last partial line, and what was not logged.
    mutating func end() {
        if !pending.isEmpty && lines < ActionSupervisor.maxLogLines { line(pending[...]) }
        pending = []
        if unlogged > 0 {
            log.warning("action '\(name)' (pid \(pid)): \(unlogged) more byte(s) of output not logged (the first \(ActionSupervisor.maxLogLines) lines are)")
        }
    }

    private mutating func line(_ bytes: ArraySlice<UInt8>) {
        lines += 1
        log.info("action '\(name)' (pid \(pid)): \(String(decoding: bytes.prefix(ActionSupervisor.maxLogLine), as: UTF8.self))")
    }
}
