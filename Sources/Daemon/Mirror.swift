import SystemCalls
import TouchFrames
import TouchInput

/// A panel's mirror in pass-through mode: its virtual touchscreen (`VirtualTouchscreen`) and
/// what that has been told (`PassThrough`). A value in the panel's `Device`, so passing a read on
/// touches no object's state: the screen's descriptor is a constant.
struct Mirror {
    let screen: VirtualTouchscreen
    private var state: PassThrough
    /// Writes that failed, and the last failure not yet reported (`Devices` logs it).
    private(set) var failures = 0
    private var unreported: SystemCallError?

    init(screen: VirtualTouchscreen, panel: DeviceDescription) {
        self.screen = screen
        state = PassThrough(slots: panel.slotCount, keys: panel.codes[Evdev.EV_KEY] ?? [])
    }

    /// Passes a read on as it came: a live panel's events whole, in the kernel's layout, in one
    /// write; after lost events, a clean lift and then the kernel's state. Returns whether the
    /// write failed.
    mutating func pass(_ batch: InputBatch) -> Bool {
        if batch.resynced {
            let events = state.resync(to: batch.events)
            return events.withUnsafeBufferPointer { failed(screen.send($0)) }
        }
        if state.filtering {
            let events = state.filter(batch.kernelEvents)
            return events.withUnsafeBufferPointer { failed(screen.send($0)) }
        }
        state.note(batch.kernelEvents)
        return failed(screen.send(batch.kernelEvents))
    }

    /// A system gesture took the touches in `slots`: cancelled on the mirror, held back from it
    /// until they lift (`PassThrough.cancel`).
    mutating func cancel(_ slots: [Int]) -> Bool {
        let events = state.cancel(slots)
        return events.withUnsafeBufferPointer { failed(screen.send($0)) }
    }

    /// Touch to wake: the touches that land from now on never reach the mirror.
    mutating func swallowNewTouches() { state.swallowNewTouches() }

    /// The panel goes (or the daemon stops): no touch stays down on the mirror.
    mutating func liftAll() {
        let events = state.liftAll()
        _ = events.withUnsafeBufferPointer { failed(screen.send($0)) }
    }

    private mutating func failed(_ error: SystemCallError?) -> Bool {
        guard let error else { return false }
        failures += 1
        unreported = error
        return true
    }

    /// The failure to log, once: the first, then every 1000th (a mirror that cannot be written
    /// fails every frame).
    mutating func takeFailure() -> SystemCallError? {
        defer { unreported = nil }
        return failures == 1 || failures % 1000 == 0 ? unreported : nil
    }
}
