import GestureEngine
import Testing
import TouchFrames

@testable import TouchInput

/// A reader's batch: what it counts, what it says of a landing, and its events decoded.
@Suite struct InputBatchTests {
    static let events = [
        InputEvent(time: Timestamp(seconds: 12, microseconds: 100), type: Evdev.EV_ABS, code: Evdev.ABS_MT_TRACKING_ID, value: 4),
        InputEvent(time: Timestamp(seconds: 12, microseconds: 100), type: Evdev.EV_SYN, code: Evdev.SYN_REPORT, value: 0),
    ]

    @Test func aKernelBatch_decodesToTheSameEvents_andSaysATouchLands() {
        let kernel = Self.events.map {
            KernelInputEvent(
                seconds: Int($0.time.nanoseconds / 1_000_000_000), microseconds: Int($0.time.nanoseconds % 1_000_000_000 / 1000),
                type: $0.type, code: $0.code, value: $0.value)
        }
        kernel.withUnsafeBufferPointer { buffer in
            let batch = InputBatch(kernel: buffer)
            #expect(batch.count == 2)
            #expect(batch.decoded == Self.events)
            #expect(batch.landsATouch)
        }
        #expect(InputBatch(kernel: UnsafeBufferPointer(start: nil, count: 0)).count == 0)
        let lift = [InputEvent(time: .zero, type: Evdev.EV_ABS, code: Evdev.ABS_MT_TRACKING_ID, value: -1)]
        lift.withUnsafeBufferPointer { #expect(!InputBatch($0).landsATouch) }
    }
}
