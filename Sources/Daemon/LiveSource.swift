import GestureEngine
import Logging
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// A touchscreen read live from /dev/input (see `EvdevDevice`). Its events carry CLOCK_MONOTONIC
/// timestamps, so engine time is monotonic time.
final class LiveSource: InputSource {
    let device: EvdevDevice
    let inputNode: InputNode
    var description: DeviceDescription { device.description }
    var node: String { device.path }
    var removesWhenEnded: Bool { true }
    var systemCalibration: [Double]? { inputNode.calibration }
    var systemSizeMM: (width: Double, height: Double)? { inputNode.sizeMM }
    private weak var loop: EventLoop?
    private var deliver: Delivery?
    private var ended: ((inout FrameState) -> Void)?
    private var failures = 0
    private(set) var errorCount = 0
    private let log: Logger

    init(device: EvdevDevice, node: InputNode, log: Logger) {
        self.device = device
        inputNode = node
        self.log = log
    }

    func monotonic(of t: Timestamp) -> Int64 { t.nanoseconds }
    func engineTime(atMonotonic ns: Int64) -> Timestamp { Timestamp(nanoseconds: ns) }

    func start(
        loop: EventLoop, deliver: @escaping Delivery, ended: @escaping (inout FrameState) -> Void
    ) throws {
        self.loop = loop
        self.deliver = deliver
        self.ended = ended
        // The source and `deliver` are held by the loop's handler until stop() removes it, which
        // the devices call before they let the source go. Strong captures: an unowned one was
        // checked, retained and released on every read, and so was `deliver` read from `self`.
        try loop.add(device.fd) { _, state in self.read(deliver, &state) }
    }

    func stop() {
        if let e = loop?.remove(device.fd) { log.debug("\(node): \(e)") }
        deliver = nil
    }

    func deliverDue(_ state: inout FrameState) {
        if let deliver { read(deliver, &state) }
    }

    private func read(_ deliver: Delivery, _ state: inout FrameState) {
        do {
            // Handed straight on (the devices log a resynchronized batch).
            let end = try device.read { batch in deliver(batch, &state) }
            failures = 0
            if end == .removed { finish(&state) }
        } catch {
            failures += 1
            errorCount += 1
            log.warning("\(node): \(error)")
            // A device that keeps failing is dropped; the daemon lives on.
            if error.isRemoval || failures >= 3 { finish(&state) }
        }
    }

    private func finish(_ state: inout FrameState) {
        let done = ended
        stop()
        done?(&state)
    }
}
