import TouchInput
import GestureEngine
import GestureProtocol
import Logging
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// Something that produces a touch device's evdev events: a recording played as a virtual device
/// (`--replay`), and, with live input, a /dev/input node read with libevdev. The daemon treats both
/// alike: events go through the same frame decoder and engine.
protocol InputSource: AnyObject {
    var description: DeviceDescription { get }
    /// Where the events come from: `/dev/input/eventN`, or `replay:FILE`.
    var node: String { get }
    /// The monotonic time (ns) at which engine time `t` happens. Live devices stamp events with
    /// CLOCK_MONOTONIC, so it is `t` itself; a replay keeps the recording's own timeline (so its
    /// lines equal `touchgesturectl replay`'s) and maps it by its start and speed.
    func monotonic(of t: Timestamp) -> Int64
    /// The engine time now, for firing deadlines.
    func engineTime(atMonotonic ns: Int64) -> Timestamp
    /// Starts delivering events as device `id`, in batches (the buffer is valid during the call
    /// only; after lost events (SYN_DROPPED) the batch that carries the kernel's state is marked
    /// `resynced`); `ended` when the source has no more (a finished replay, an unplugged device).
    /// Both get the loop's frame state. A live device registers its fd as device `id` instead of
    /// a handler: the devices read it themselves (`DeviceLifecycle.ready`).
    func start(loop: EventLoop, id: UInt32, deliver: @escaping Delivery, ended: @escaping (inout FrameState) -> Void) throws
    /// What the system knows of the panel's geometry (udev's LIBINPUT_CALIBRATION_MATRIX and
    /// measured size); nothing for a replay.
    var systemCalibration: [Double]? { get }
    var systemSizeMM: (width: Double, height: Double)? { get }
    func stop()
    /// A live device is removed when it ends (unplugged); a finished replay stays, idle.
    var removesWhenEnded: Bool { get }
    /// Its reads come in the kernel's own event layout (a live panel's: `InputBatch(kernel:)`),
    /// not as decoded events (a replay's); a rehearsal feeds its copy the same way.
    var deliversKernelLayout: Bool { get }
    /// Read errors so far (a live device's failed reads; none for a replay).
    var errorCount: Int { get }
    /// Delivers every event already due (before the engine's deadlines fire, so that input and
    /// deadlines keep their order whatever order their timers woke in).
    func deliverDue(_ state: inout FrameState)
}

/// Where a source hands its batches: the devices' pipeline for it, with the frame state.
typealias Delivery = (InputBatch, inout FrameState) -> Void
