import Testing

import CLinux

@testable import Daemon

#if canImport(Glibc)
    import Glibc
#endif

/// The log's way out (LogOutput.swift): a journal that stops reading costs log lines, never the
/// loop's time.
@Suite struct LogOutputTests {
    @Test func aJournalThatDoesNotRead_losesLines_neverBlocks_andIsToldHowMany() {
        var s: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &s) == 0)
        let (journal, reader) = (s[0], s[1])  // the daemon's end stays blocking, as stderr is
        defer { [journal, reader].forEach { close($0) } }
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        // A buffer of 64 KB whatever the host's default (systemd gives the journal's 8 MB).
        var size: Int32 = 65_536
        #expect(setsockopt(journal, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0)
        let out = LogOutput(fd: journal)
        #expect(out.isSocket)
        let line = Array((String(repeating: "x", count: 999) + "\n").utf8)
        let note: (Int) -> [UInt8] = { Array("\($0) dropped\n".utf8) }
        // Far more than the socket's buffer, never read: none of it blocks.
        for _ in 0..<4_000 { out.write(line, note: note) }
        let lost = out.dropped
        #expect(lost > 0 && lost < 4_000)
        let written = FanoutTests.read(reader)
        #expect(written.utf8.count == (4_000 - lost) * 1_000, "whole lines only")
        out.write(Array("after\n".utf8), note: note)
        #expect(FanoutTests.read(reader) == "\(lost) dropped\nafter\n")
        #expect(out.dropped == lost, "the count since start stays")
    }

    @Test func aTerminalOrAPipe_isWrittenAsBefore() {
        var p: [Int32] = [0, 0]
        #expect(pipe(&p) == 0)
        defer { p.forEach { close($0) } }
        let out = LogOutput(fd: p[1])
        #expect(!out.isSocket)
        out.write(Array("line\n".utf8)) { _ in [] }
        var buf = [UInt8](repeating: 0, count: 16)
        #expect(read(p[0], &buf, 16) == 5)
    }
}
