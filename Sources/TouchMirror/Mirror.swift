import GestureEngine
import SystemCalls
import TouchFrames

/// A panel's mirror in pass-through mode, as the route's mirror stage: what it shows
/// (`MirrorContacts`, from the input stage's decoded contacts and the engine's decisions) and
/// where it writes it (its virtual touchscreen, `VirtualTouchscreen`). The frames of one read,
/// or of one deadline, go out in one write (`flush`). A value in the panel's device: the
/// screen's descriptor is a constant.
public struct Mirror {
    public private(set) var screen: any TouchSink
    private var contacts: MirrorContacts
    /// Writes that failed, the last not yet logged (the route logs it, throttled).
    public var failures = FailureThrottle()
    /// The screen's position axes, as it was made (a remap must keep them).
    private let axes: (x: AbsAxis, y: AbsAxis)?

    /// `described`: the mirror's own description (`VirtualTouchscreen.description(mirroring:)`,
    /// with `geometry`'s axes); `geometry`: the panel's calibration and rotation, which every
    /// position carries (nil: the panel's positions as they are); `adopted`: the screen was made
    /// by an earlier process (`VirtualTouchscreen(adopting:)`).
    public init(screen: any TouchSink, described: DeviceDescription, cancel: MirrorCancel, geometry: MirrorGeometry? = nil, adopted: Bool = false) {
        self.screen = screen
        contacts = MirrorContacts(device: MirrorDevice(described), mapping: geometry, cancel: cancel, valuesUnknown: adopted)
        axes = described.positionAxes
    }

    /// This mirror as it is, writing to `sink` instead (a rehearsal of its route: `Rehearsal`).
    public func writing(to sink: any TouchSink) -> Mirror {
        var copy = self
        copy.screen = sink
        return copy
    }

    /// One decoded frame after the engine ran on it (`MirrorContacts.frame`); written at `flush`.
    public mutating func frame(
        _ panel: borrowing FrameList<PanelContact>, others: borrowing FrameList<PanelEvent>, discontinuity: Bool, taken: borrowing [UInt32],
        hold: borrowing [UInt32], bound: Int64, now: Int64
    ) {
        contacts.frame(panel, others: others, discontinuity: discontinuity, taken: taken, hold: hold, bound: bound, now: now)
    }

    /// A frame ahead of the engine, which decides nothing of it: the decoder's last frame
    /// (`FrameDecoder.panel`, `others`, its discontinuity), less the contacts its filters ended
    /// as stuck (`contactsEndedAsStuck`: the mirror ends them as it ends taken ones). Given its
    /// parts, not the decoder: lent whole, the decoder was copied at every frame by a caller
    /// holding it beside this mirror.
    public mutating func frameAhead(
        _ panel: borrowing FrameList<PanelContact>, others: borrowing FrameList<PanelEvent>, discontinuity: Bool, stuck: borrowing [UInt32],
        now: Int64
    ) {
        contacts.frame(panel, others: others, discontinuity: discontinuity, taken: stuck, hold: [], bound: 0, now: now)
    }

    /// The clock reached `now` with no frame (`MirrorContacts.advance`); written at `flush`.
    public mutating func advance(taken: borrowing [UInt32], hold: borrowing [UInt32], now: Int64) {
        contacts.advance(taken: taken, hold: hold, now: now)
    }

    /// Writes what was made since the last flush, in one write; whether it failed.
    public mutating func flush() -> Bool {
        guard !contacts.out.isEmpty else { return false }
        let failed = failures.note(screen.send(contacts.out))
        contacts.out.removeAll(keepingCapacity: true)
        return failed
    }

    /// A reload changed the panel's calibration or rotation (`geometry`, nil: neither): the
    /// positions follow from each touch's next move while the screen's axes stay (every change
    /// but a quarter turn more or less, which needs a screen with other axes: false, and the
    /// mirror keeps the old).
    public mutating func remap(to geometry: MirrorGeometry?, panel: DeviceDescription) -> Bool {
        let next = geometry.map { ($0.xAxis, $0.yAxis) } ?? panel.positionAxes
        guard next?.0 == axes?.0, next?.1 == axes?.1 else { return false }
        contacts.remap(geometry)
        return true
    }

    /// When a touch held back must be replayed (monotonic ns).
    public var releaseDue: Int64? { contacts.releaseDue }

    /// Touch to wake: the touches that land from now on never reach the mirror.
    public mutating func swallowNewTouches() { contacts.swallowNewTouches() }

    /// The panel goes (or the daemon stops): no touch stays down on the mirror.
    public mutating func liftAll() {
        contacts.liftAll()
        _ = flush()
    }
}
