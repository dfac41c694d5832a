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
    var deliversKernelLayout: Bool { true }
    var removesWhenEnded: Bool { true }
    var systemCalibration: [Double]? { inputNode.calibration }
    var systemSizeMM: (width: Double, height: Double)? { inputNode.sizeMM }
    private weak var loop: EventLoop?
    private var id: UInt32 = 0
    private var deliver: Delivery?
    private var ended: ((inout FrameState) -> Void)?
    /// Failed reads in a row (no event read between them), and the device's event count at the
    /// last one: a device that keeps failing is dropped.
    private var failures = 0
    private var eventsAtLastFailure = -1
    private(set) var errorCount = 0
    private let log: Logger
    /// The panel as the input thread reads it (pass-through), set before `start`: the loop reads
    /// its relay's end (`ThreadedPanel.loopEnd`) in the panel's place.
    var relay: ThreadedPanel?
    weak var input: InputThread?
    /// Where the relay is read outside the devices' own reads (`deliverDue`).
    private lazy var relayBuffer = EventReadBuffer(capacity: Relay.stateCapacity)

    init(device: EvdevDevice, node: InputNode, log: Logger) {
        self.device = device
        inputNode = node
        self.log = log
    }

    func monotonic(of t: Timestamp) -> Int64 { t.nanoseconds }
    func engineTime(atMonotonic ns: Int64) -> Timestamp { Timestamp(nanoseconds: ns) }

    /// Registers the fd as device `id`: the devices read it on every wake-up into a buffer of
    /// theirs (`DeviceLifecycle.ready`), and come here only for what is not a plain batch (`readEnded`,
    /// `readFailed`).
    func start(
        loop: EventLoop, id: UInt32, deliver: @escaping Delivery, ended: @escaping (inout FrameState) -> Void
    ) throws {
        self.loop = loop
        self.id = id
        self.deliver = deliver
        self.ended = ended
        try loop.addDevice(relay?.loopEnd ?? device.fd, id: id)
    }

    func stop() {
        if let e = loop?.remove(relay?.loopEnd ?? device.fd) { log.debug("\(node): \(e)") }
        if let relay { input?.remove(relay) }
        deliver = nil
    }

    /// Reads what is due with the device's own buffer (before deadlines fire: a rare turn).
    func deliverDue(_ state: inout FrameState) {
        guard let deliver else { return }
        if let relay { return deliverRelayed(relay.loopEnd, deliver, &state) }
        do {
            if try device.read(deliver: { deliver($0, &state) }) == .removed { finish(&state) }
        } catch {
            readFailed(error, &state)
        }
    }

    /// A read by the devices ended other than with a plain batch: the device went away, or
    /// events were lost (SYN_DROPPED) and it takes the kernel's state.
    func readEnded(_ end: EvdevDevice.BatchEnd, _ state: inout FrameState) {
        switch end {
        case .drained, .full:
            return
        case .removed:
            finish(&state)
        case .dropped:
            // (A relay's lost events come as a message of their own: `DeviceLifecycle.relayed`.)
            guard let deliver, relay == nil else { return }
            do {
                if try device.resynchronize(deliver: { deliver($0, &state) }) == .removed { finish(&state) }
            } catch {
                readFailed(error, &state)
            }
        }
    }

    /// What the input thread relayed and the loop has not read yet, every message (each a read,
    /// a filters' frame or a resync: `DeviceLifecycle.delivered` tells them apart).
    private func deliverRelayed(_ fd: Int32, _ deliver: Delivery, _ state: inout FrameState) {
        var got = true
        while got && self.deliver != nil {
            got = false
            do {
                let end = try EvdevDevice.readBatch(fd, into: relayBuffer, "read(relay)", decode: { batch in
                    got = true
                    deliver(batch, &state)
                    return false
                })
                if end == .removed { return finish(&state) }
            } catch {
                return readFailed(error, &state)
            }
        }
    }

    /// A read failed: logged and counted; the device is dropped when it went away, or after its
    /// third failure with no event read in between. The daemon lives on.
    func readFailed(_ error: EvdevError, _ state: inout FrameState) {
        let events = state.devices.index(of: id).map { state.devices.all[$0].health.events } ?? -1
        failures = events == eventsAtLastFailure ? failures + 1 : 1
        eventsAtLastFailure = events
        errorCount += 1
        log.warning("\(node): \(error)")
        if error.isRemoval || failures >= 3 { finish(&state) }
    }

    private func finish(_ state: inout FrameState) {
        let done = ended
        stop()
        done?(&state)
    }
}
