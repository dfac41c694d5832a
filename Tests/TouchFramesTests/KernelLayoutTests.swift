import GestureEngine
import Testing

@testable import TouchFrames

/// A live read hands its events on in the kernel's layout; the decoder must make the same frames
/// of them as of the decoded events a replay gives it.
@Suite struct KernelLayoutTests {
    /// Two fingers landing, moving and lifting, with SYN_REPORTs at whole microseconds.
    static let events: [InputEvent] = {
        var e: [InputEvent] = []
        func add(_ us: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            e.append(InputEvent(time: Timestamp(seconds: 12, microseconds: us), type: type, code: code, value: value))
        }
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 7)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 100)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 200)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 1)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, 8)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 300)
        add(100, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_Y, 400)
        add(100, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        add(8_250, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0)
        add(8_250, Evdev.EV_ABS, Evdev.ABS_MT_POSITION_X, 150)
        add(8_250, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        add(999_999, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
        add(999_999, Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 1)
        add(999_999, Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
        add(999_999, Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        return e
    }()

    static func frames(_ feed: (inout FrameDecoder, inout Int) -> Bool, count: Int) -> [(Timestamp, [Contact])] {
        var decoder = FrameDecoder(description: panel(), geometry: identityGeometry())!
        var out: [(Timestamp, [Contact])] = []
        var i = 0
        while i < count {
            if feed(&decoder, &i) { out.append((decoder.frame.time, Array(decoder.frame.contacts))) }
        }
        return out
    }

    @Test func kernelLayout_givesTheFramesOfDecodedEvents() {
        let kernel = Self.events.map {
            KernelInputEvent(
                seconds: Int($0.time.nanoseconds / 1_000_000_000), microseconds: Int($0.time.nanoseconds % 1_000_000_000 / 1000),
                type: $0.type, code: $0.code, value: $0.value)
        }
        #expect(MemoryLayout<KernelInputEvent>.stride == 24)
        let decoded = Self.frames({ $0.feed(Self.events.span, from: &$1) }, count: Self.events.count)
        let read = Self.frames({ $0.feed(kernel.span, from: &$1) }, count: kernel.count)
        #expect(decoded.count == 3)
        #expect(read.map(\.0) == decoded.map(\.0))
        #expect(read.map(\.1) == decoded.map(\.1))
        #expect(read.map(\.0) == [Timestamp(seconds: 12, microseconds: 100), Timestamp(seconds: 12, microseconds: 8_250), Timestamp(seconds: 12, microseconds: 999_999)])
        #expect(read.map { $0.1.count } == [2, 2, 0])
    }
}
