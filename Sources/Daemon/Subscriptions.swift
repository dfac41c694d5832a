import GestureEngine
import GestureProtocol
import Pipeline

/// A client's subscription with its gesture filter (kinds, regions) resolved to the gesture
/// indices of a compiled configuration: at subscribe time, and again whenever the regions change
/// (a reload, a client's `set_regions`). A gesture line is then let through with one array read;
/// no region name is compared per line.
struct ResolvedSubscription {
    private(set) var request = Subscription()
    /// For the configuration numbered `serial`: does gesture g pass the filter?
    private var current = Resolution()
    /// The configuration before: a device finishes its sequence under it after a change.
    private var previous = Resolution()

    private struct Resolution {
        var serial = -1
        var passes: [Bool] = []
    }

    /// Gesture lines of any kind and region pass (no filter to look up).
    private var unfiltered: Bool { request.kinds == nil && request.regions == nil }

    /// Every gesture line, from every device, passes (what most clients ask for): decided once
    /// per subscription, so a line asks one flag, not the filter's sets.
    private(set) var takesEveryGesture = true

    /// No line at all, not even device lines: a connection on the request socket until it
    /// subscribes.
    static var nothing: ResolvedSubscription {
        var r = ResolvedSubscription()
        r.request.gestures = false
        r.request.devices = []
        r.takesEveryGesture = false
        return r
    }

    /// A new subscription, resolved against what the engines run now.
    mutating func subscribe(_ s: Subscription, configuration: CompiledConfiguration) {
        request = s
        current = Self.resolve(s, configuration)
        previous = Resolution()
        takesEveryGesture = s.gestures && s.kinds == nil && s.regions == nil && s.devices == nil
    }

    /// The regions changed: the filter is resolved against the new configuration; the old
    /// resolution stays for the sequences still running under it.
    mutating func reconfigure(_ configuration: CompiledConfiguration) {
        guard !unfiltered else { return }
        previous = current
        current = Self.resolve(request, configuration)
    }

    private static func resolve(_ s: Subscription, _ c: CompiledConfiguration) -> Resolution {
        guard s.kinds != nil || s.regions != nil else { return Resolution(serial: c.serial) }
        return Resolution(
            serial: c.serial,
            passes: c.gestures.map { g in
                (s.kinds?.contains(g.spec.kind) ?? true) && (s.regions?.contains(c.regions[g.region].name) ?? true)
            })
    }

    var touches: Bool { request.touches }
    var gestures: Bool { request.gestures }

    func takes(device: UInt32) -> Bool { request.devices?.contains(device) ?? true }

    /// Does a gesture line for `event` (recognized under `origin`'s configuration, its region
    /// named in `regionNames`, `PipelineOutput.regionNames`) pass?
    func takes(_ event: GestureEvent, origin: PipelineOutput.Origin, regionNames: [String]) -> Bool {
        guard request.gestures else { return false }
        if unfiltered { return true }
        let g = event.gesture
        if origin.configuration == current.serial, g < current.passes.count { return current.passes[g] }
        if origin.configuration == previous.serial, g < previous.passes.count { return previous.passes[g] }
        // A sequence that began two region changes ago: by kind and name, as resolved above.
        return (request.kinds?.contains(event.kind) ?? true)
            && (request.regions?.contains(PipelineOutput.region(of: origin, in: regionNames) ?? EngineConfiguration.screenRegionName) ?? true)
    }
}
