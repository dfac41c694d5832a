import SystemCalls
import TouchFrames
import TouchInput

/// A panel's mirror in pass-through mode: its virtual touchscreen (`VirtualTouchscreen`) and
/// what that has been told (`PassThrough`). A value in the panel's `Device`, so passing a read on
/// touches no object's state: the screen's descriptor is a constant.
struct Mirror {
    let screen: VirtualTouchscreen
    private var state: PassThrough
    /// Writes that failed, the last not yet logged (`Devices` logs it, throttled).
    var failures = FailureThrottle()

    /// `past`: the panel's slots as the kernel has them (`EvdevDevice.slotState`), which the new
    /// screen is given first (`PassThrough.seed`); nil when they could not be read.
    /// `geometry`: the panel's calibration and rotation, which every position the screen is given
    /// carries (`MirrorMapping`); nil: the panel's positions as they are.
    init(screen: VirtualTouchscreen, panel: DeviceDescription, cancel: MirrorCancel, past: (positions: [Int32], slot: Int)?, geometry: MirrorGeometry? = nil) {
        self.screen = screen
        state = PassThrough(slots: panel.slotCount, keys: panel.codes[Evdev.EV_KEY] ?? [], cancel: cancel)
        mapping = geometry.map { MirrorMapping($0, slots: panel.slotCount) }
        slots = panel.slotCount
        axes = geometry.map { ($0.xAxis, $0.yAxis) } ?? panel.positionAxes
        if let past {
            let events = state.seed(positions: past.positions, slot: past.slot)
            if !events.isEmpty { _ = send(events) }
        }
    }

    private var mapping: MirrorMapping?
    private let slots: Int
    /// The screen's position axes, as it was made.
    private let axes: (x: AbsAxis, y: AbsAxis)?

    /// A reload changed the panel's calibration or rotation (`geometry`, nil: neither): the
    /// positions follow at once while the screen's axes stay (every change but a quarter turn
    /// more or less, which needs a screen with other axes: false, and the mirror keeps the old).
    mutating func remap(to geometry: MirrorGeometry?, panel: DeviceDescription) -> Bool {
        let next = geometry.map { ($0.xAxis, $0.yAxis) } ?? panel.positionAxes
        guard next?.0 == axes?.0, next?.1 == axes?.1 else { return false }
        if let geometry {
            if mapping != nil { mapping!.remap(geometry) } else { mapping = MirrorMapping(geometry, slots: slots) }
        } else {
            mapping = nil
        }
        return true
    }

    /// Writes `events` to the screen, their positions the mirror's. Returns whether it failed.
    private mutating func send(_ events: [KernelInputEvent]) -> Bool {
        guard mapping != nil else { return failed(screen.send(events)) }
        let mapped = mapping!.map(events.span)
        return failed(screen.send(mapped))
    }

    /// Passes a read on as it came: a live panel's events whole, in the kernel's layout, in one
    /// write; after lost events, a clean lift and then the kernel's state. Returns whether the
    /// write failed.
    mutating func pass(_ batch: InputBatch) -> Bool {
        if batch.resynced {
            let events = state.resync(to: batch.events.span)
            return send(events)
        }
        if state.filtering {
            let events = state.filter(batch.kernelEvents.span)
            return send(events)
        }
        state.note(batch.kernelEvents.span)
        if mapping != nil {
            let mapped = mapping!.map(batch.kernelEvents.span)
            return failed(screen.send(mapped))
        }
        return failed(screen.send(batch))
    }

    /// What the pipeline decided of the panel's touches (`PipelineOutput`: those a system gesture
    /// took, those a gesture that delays touches may still take), before the read goes on:
    /// cancelled, held back, or replayed (`PassThrough.update`). `now`: monotonic ns.
    mutating func update(cancel: [Int], hold: [Int], bound: Int64, now: Int64) -> Bool {
        guard !cancel.isEmpty || !hold.isEmpty || state.filtering else { return false }
        let events = state.update(cancel: cancel, hold: hold, bound: bound, now: now)
        return send(events)
    }

    /// When a touch held back must be replayed (monotonic ns).
    var releaseDue: Int64? { state.releaseDue }

    /// Touch to wake: the touches that land from now on never reach the mirror.
    mutating func swallowNewTouches() { state.swallowNewTouches() }

    /// The panel goes (or the daemon stops): no touch stays down on the mirror.
    mutating func liftAll() {
        let events = state.liftAll()
        _ = send(events)
    }

    private mutating func failed(_ error: SystemCallError?) -> Bool { failures.note(error) }
}
