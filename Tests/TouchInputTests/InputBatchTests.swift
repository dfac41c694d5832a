import GestureEngine
import Glibc
import Testing
import TouchFrames

@testable import TouchInput

/// A reader's batch: what it counts, and its events decoded.
@Suite struct InputBatchTests {
    static let events = [
        InputEvent(time: Timestamp(seconds: 12, microseconds: 100), type: Evdev.EV_ABS, code: Evdev.ABS_MT_TRACKING_ID, value: 4),
        InputEvent(time: Timestamp(seconds: 12, microseconds: 100), type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0),
    ]

    @Test func aKernelBatch_decodesToTheSameEvents() {
        let kernel = Self.events.map {
            KernelInputEvent(
                seconds: Int($0.time.nanoseconds / 1_000_000_000), microseconds: Int($0.time.nanoseconds % 1_000_000_000 / 1000),
                type: $0.type, code: $0.code, value: $0.value)
        }
        kernel.withUnsafeBufferPointer { buffer in
            let batch = InputBatch(kernel: buffer)
            #expect(batch.count == 2)
            #expect(batch.decoded == Self.events)
        }
        #expect(InputBatch(kernel: UnsafeBufferPointer(start: nil, count: 0)).count == 0)
    }
}

/// The daemon's read (`EvdevDevice.readBatch(_:into:_:decode:)`) over a pipe standing in for a
/// device node: the whole read is handed on unscanned, and what the decoding consumer says of a
/// SYN_DROPPED is what the read ends with (the reader then resynchronizes).
@Suite struct DecodingReadTests {
    /// A non-blocking pipe holding `events` as the kernel writes them: (read end, write end).
    static func pipeHolding(_ events: [KernelInputEvent]) -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        #expect(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0)
        let bytes = events.withUnsafeBytes { Array($0) }
        #expect(write(fds[1], bytes, bytes.count) == bytes.count)
        return (fds[0], fds[1])
    }

    static func event(_ type: UInt16, _ code: UInt16, _ value: Int32) -> KernelInputEvent {
        KernelInputEvent(seconds: 1, microseconds: 0, type: type, code: code, value: value)
    }

    @Test func theWholeReadIsHandedOn_andTheConsumersWordEndsIt() throws {
        let events = [
            Self.event(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 3), Self.event(Evdev.EV_SYN, Evdev.SYN_REPORT, 0),
            Self.event(Evdev.EV_SYN, Evdev.SYN_DROPPED, 0), Self.event(Evdev.EV_SYN, Evdev.SYN_REPORT, 0),
        ]
        let buffer = EventReadBuffer(capacity: 64)
        for stops in [false, true] {
            let (r, w) = Self.pipeHolding(events)
            defer { close(r); close(w) }
            var handed: [InputEvent] = []
            let end = try EvdevDevice.readBatch(r, into: buffer, "pipe", decode: { batch in
                handed = batch.decoded
                return stops
            })
            #expect(handed.count == events.count, "unscanned: the SYN_DROPPED and what follows it are handed on too")
            #expect(end == (stops ? .dropped : .drained))
            // Nothing left: the next read is told so without a batch.
            var called = false
            #expect(try EvdevDevice.readBatch(r, into: buffer, "pipe", decode: { _ in called = true; return false }) == .drained)
            #expect(!called)
        }
    }
}
