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
    private var deliver: ((InputBatch) -> Void)?
    private var ended: (() -> Void)?
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
        loop: EventLoop, deliver: @escaping (InputBatch) -> Void, ended: @escaping () -> Void
    ) throws {
        self.loop = loop
        self.deliver = deliver
        self.ended = ended
        // The source and `deliver` are held by the loop's handler until stop() removes it, which
        // the devices call before they let the source go. Strong captures: an unowned one was
        // checked, retained and released on every read, and so was `deliver` read from `self`.
        try loop.add(device.fd) { _ in self.read(deliver) }
    }

    func stop() {
        if let e = loop?.remove(device.fd) { log.debug("\(node): \(e)") }
        deliver = nil
    }

    func deliverDue() {
        if let deliver { read(deliver) }
    }

    private func read(_ deliver: (InputBatch) -> Void) {
        do {
            // Handed straight on (the devices log a resynchronized batch).
            let end = try device.read(deliver: deliver)
            failures = 0
            if end == .removed { finish() }
        } catch {
            failures += 1
            errorCount += 1
            log.warning("\(node): \(error)")
            // A device that keeps failing is dropped; the daemon lives on.
            if error.isRemoval || failures >= 3 { finish() }
        }
    }

    private func finish() {
        let done = ended
        stop()
        done?()
    }
}
