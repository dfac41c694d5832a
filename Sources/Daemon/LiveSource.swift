import GestureEngine
import Logging
import TouchFrames
import TouchInput

#if canImport(Glibc)
    import Glibc
#endif

/// A touchscreen read live from /dev/input (see `EvdevDevice`). Its events carry CLOCK_MONOTONIC
/// timestamps, so engine time is monotonic time.
public final class LiveSource: InputSource {
    let device: EvdevDevice
    public let inputNode: InputNode
    public var description: DeviceDescription { device.description }
    public var node: String { device.path }
    public var removesWhenEnded: Bool { true }
    public var systemCalibration: [Double]? { inputNode.calibration }
    public var systemSizeMM: (width: Double, height: Double)? { inputNode.sizeMM }
    private weak var loop: EventLoop?
    private var deliver: ((InputBatch) -> Void)?
    private var ended: (() -> Void)?
    private var failures = 0
    public private(set) var errorCount = 0
    private let log: Logger

    init(device: EvdevDevice, node: InputNode, log: Logger) {
        self.device = device
        inputNode = node
        self.log = log
    }

    public func monotonic(of t: Timestamp) -> Int64 { t.nanoseconds }
    public func engineTime(atMonotonic ns: Int64) -> Timestamp { Timestamp(nanoseconds: ns) }

    public func start(
        loop: EventLoop, deliver: @escaping (InputBatch) -> Void, ended: @escaping () -> Void
    ) throws {
        self.loop = loop
        self.deliver = deliver
        self.ended = ended
        // Borrowed, not retained (see `Devices.add`); the handler is removed in stop().
        try loop.add(device.fd) { [me = Unmanaged.passUnretained(self)] _ in me._withUnsafeGuaranteedRef { $0.deliverDue() } }
    }

    public func stop() {
        if let e = loop?.remove(device.fd) { log.debug("\(node): \(e)") }
        deliver = nil
    }

    public func deliverDue() {
        guard let deliver else { return }
        do {
            let end = try device.read { [unowned(unsafe) self] batch in
                if batch.resynced {
                    self.log.notice("\(self.node): events dropped (SYN_DROPPED); resynchronized with the kernel's state")
                }
                deliver(batch)
            }
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
