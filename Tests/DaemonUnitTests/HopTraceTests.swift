import Foundation
import SystemCalls
import Synchronization
import Testing
import TouchFrames
import TouchInput
import TouchMirror

@testable import Daemon

/// `--trace-hops`: a row per frame a mirror writes (its read, the write's start and end, the
/// panel's time of the frame), kept within the room made at start, written at exit.
@Suite struct HopTraceTests {
    final class Screen: TouchSink, Sendable {
        private let count = Mutex(0)
        var writes: Int { count.withLock { $0 } }
        func send(_ events: [KernelInputEvent]) -> SystemCallError? {
            count.withLock { $0 += 1 }
            return nil
        }
    }

    static func event(_ type: UInt16, _ code: UInt16, _ value: Int32) -> KernelInputEvent {
        KernelInputEvent(seconds: 0, microseconds: 0, type: type, code: code, value: value)
    }

    /// Two frames in one write after a read of one: two rows, each with the read before it and
    /// the write's times in order, the first with the panel's kernel time of the frame read, the
    /// second with none (0); a third frame past the room is counted, not kept.
    @Test func eachFrameOfAWrite_isARow_withinTheRoomMadeAtStart() throws {
        let path = NSTemporaryDirectory() + "hops-\(getpid()).txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trace = HopTrace(path: path, frames: 2)
        let screen = Screen()
        let traced = TracedTouchSink(screen, trace: trace)
        let frame = [Self.event(3, 0x35, 100), Self.event(3, 0x36, 200), Self.event(0, 0, 0)]
        let panel = [Self.event(3, 0x35, 100), KernelInputEvent(seconds: 12, microseconds: 345_678, type: 0, code: 0, value: 0)]
        panel.withUnsafeBufferPointer { trace.noteRead(InputBatch(kernel: $0)) }
        let read = monotonicNanoseconds()
        #expect(traced.send(frame + frame) == nil)
        #expect(traced.send(frame) == nil)
        #expect(screen.writes == 2)
        #expect(trace.dropped == 1)
        try trace.write()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("#") == true)
        for line in lines.dropFirst() {
            let t = line.split(separator: " ").compactMap { Int64($0) }
            #expect(t.count == 4)
            #expect(t[0] <= read && read <= t[1] && t[1] <= t[2], "\(line)")
        }
        #expect(lines.dropFirst().map { $0.split(separator: " ").last.map(String.init) } == ["12345678000", "0"])
    }
}
