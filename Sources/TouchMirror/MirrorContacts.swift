import GestureEngine
import TouchFrames

/// What a panel's mirror shows, worked out from the input stage's decoded contacts: its own
/// slots and tracking ids, so a contact it shows may differ from the panel's (hidden when a
/// system gesture took it or it woke the kiosk, held back while a gesture may still take it,
/// replayed late). Each frame it is given (`frame`) becomes a whole frame of events ending in
/// SYN_REPORT, or nothing when nothing it shows changed; `ABS_X`/`ABS_Y`, `ABS_PRESSURE`,
/// `BTN_TOUCH` and `BTN_TOOL_*` follow the contacts it shows, as the kernel's pointer emulation
/// does (`input_mt_report_pointer_emulation`). Pure: what it makes is in `out`, which the
/// owner writes and empties (`Mirror`).
///
/// Its values per slot are the kernel's copy of the mirror's (the kernel drops a value equal
/// to a slot's last, and so does this): each is written when it differs, so a touch landing in
/// a slot never inherits a stale position.
public struct MirrorContacts {
    /// What the mirror device advertises (`MirrorDevice`).
    let device: MirrorDevice
    /// The panel's calibration and rotation, applied to every position written (nil: none).
    public private(set) var mapping: MirrorGeometry? {
        didSet { mapped = mapping != nil }
    }
    /// `mapping` is set: asked per contact, where unwrapping the geometry itself cost a call
    /// given all of it on the stack.
    private var mapped = false
    let cancelStyle: MirrorCancel

    /// Per mirror slot: the contact shown there (0: none), the tracking id written (-1: none),
    /// the values written (position, then the other axes), and when it landed (the oldest shown
    /// contact drives the single-touch axes).
    var shown: [UInt32]
    var trackingIDs: [Int32]
    var positions: [(x: Int32, y: Int32)]
    var axes: [PanelAxes]
    var landedAt: [UInt64]
    var landings: UInt64 = 0
    /// The slot selected on the mirror (the kernel's starts at 0).
    var selected = 0
    /// The next tracking id: only grows, wrapping past the axis's maximum, so no id comes back
    /// while a compositor may remember it.
    var nextTrackingID: Int32 = 0
    /// Keys down on the mirror, and the single-touch values written.
    var keysDown: [UInt16] = []
    /// The count of touches `keysDown` was last worked out for (-1: never): the keys follow the
    /// count alone, so a frame that landed and lifted nothing leaves them as they are.
    var keysFor = -1
    /// The slot of the touch shown longest (`oldestShown`), kept from one landing or lift to the
    /// next (nil in `oldest`: none shown; `oldestKnown` false: to be worked out again).
    var oldest: Int?
    var oldestKnown = false
    var single: (x: Int32, y: Int32, pressure: Int32) = (0, 0, 0)
    var shownCount = 0

    /// Contacts never to be shown until they lift (taken by a system gesture, or landed while
    /// waking), and whether touches landing now are swallowed (touch to wake), since the first
    /// frame of the waking touch (`WakeTouch`).
    var hidden: [UInt32] = []
    var swallowing = false
    var swallowingSince: Int64?
    /// Contacts held back while a gesture that delays touches may still take them (MirrorHold.swift).
    var held: [HeldContact] = []
    var holdBound: Int64 = 0

    /// The events made since the owner last emptied it: whole frames.
    public var out: [KernelInputEvent] = []

    /// `valuesUnknown`: the device was made by an earlier process (kept in systemd's store), so
    /// the kernel's copy of each value is not known: every value is written the first time.
    public init(device: MirrorDevice, mapping: MirrorGeometry? = nil, cancel: MirrorCancel = .lift, valuesUnknown: Bool = false) {
        self.device = device
        self.mapping = mapping
        mapped = mapping != nil
        cancelStyle = cancel
        let n = device.slots
        // A new device's values are the kernel's 0; an unknown one, a value no panel sends.
        let start: Int32 = valuesUnknown ? .min : 0
        shown = [UInt32](repeating: 0, count: n)
        trackingIDs = [Int32](repeating: -1, count: n)
        positions = [(x: Int32, y: Int32)](repeating: (start, start), count: n)
        axes = [PanelAxes](repeating: PanelAxes(all: start), count: n)
        single = (start, start, start)
        landedAt = [UInt64](repeating: 0, count: n)
        keysDown.reserveCapacity(8)
        hidden.reserveCapacity(n)
        held.reserveCapacity(n)
        out.reserveCapacity(32 * n + 16)
    }

    /// A reload's calibration and rotation, on the same axes: each touch goes on from its next move.
    public mutating func remap(_ geometry: MirrorGeometry?) { mapping = geometry }

    /// Slots the mirror shows a touch in.
    public var touches: Int { shownCount }

    /// A frame of the panel (`contacts`, as the input stage decoded it) after the engine ran on
    /// it: the contacts in `taken` are ended and never shown again, those in `hold` held back
    /// (at most `bound` ns, from `now`, monotonic), the rest shown as they are; `others` (keys,
    /// switches, misc events) passed on. After lost events (`discontinuity`), what was shown is
    /// lifted in a frame of its own and the panel's state lands anew, as a reader of the panel
    /// itself would have it after its own resync.
    public mutating func frame(
        _ contacts: borrowing FrameList<PanelContact>, others: borrowing FrameList<PanelEvent> = FrameList(), discontinuity: Bool = false,
        taken: borrowing [UInt32], hold: borrowing [UInt32], bound: Int64, now: Int64
    ) {
        if discontinuity { restart() }
        if swallowing {
            let since = swallowingSince ?? now
            swallowingSince = since
            if now - since <= WakeTouch.windowNanoseconds { swallowLandings(contacts) } else { swallowing = false }
        }
        for i in taken.indices { take(taken[i]) }
        if bound > 0 { holdBound = bound }
        if !hold.isEmpty { startHolding(hold, among: contacts, now: now) }
        if !held.isEmpty {
            record(contacts)
            releaseFinished(hold, now: now)
        }
        show(contacts, others)
    }

    /// After lost events: every touch shown lifted, in a frame of its own; held touches are let
    /// go (the panel's state shows them); hidden ones stay hidden.
    private mutating func restart() {
        held.removeAll()
        var lifted = false
        for s in shown.indices where shown[s] != 0 {
            lift(s)
            lifted = true
        }
        if lifted { endFrame() }
    }

    /// The panel's contacts as they are now, less the hidden and held ones: lifts, landings and
    /// moves, as one frame.
    mutating func show(_ contacts: borrowing FrameList<PanelContact>, _ others: borrowing FrameList<PanelEvent> = FrameList()) {
        var start = out.count
        // The slots shown, up to the last of them (most touches are in the lowest slots).
        var left = shownCount, s = 0
        while left > 0 && s < shown.count {
            if shown[s] != 0 {
                left -= 1
                if !Self.contains(contacts, shown[s]) { lift(s) }
            }
            s += 1
        }
        // A lift and a landing never share a frame: a reader that sees a slot end and begin in
        // one frame (libinput) drops the second touch and keeps the first.
        if out.count > start && lands(contacts) {
            endFrame()
            start = out.count
        }
        for i in contacts.indices {
            let c = contacts[i]
            if isHidden(c.id) || isHeld(c.id) { continue }
            place(c)
        }
        for i in others.indices where device.passes(others[i]) { add(others[i].type, others[i].code, others[i].value) }
        if out.count > start || keysOrSingleDiffer() { endFrame() }
        if swallowing && contacts.isEmpty { swallowing = false }
        if !hidden.isEmpty { hidden.removeAll { !Self.contains(contacts, $0) } }
    }

    /// Contact `c` where it is: in its slot, or landed in a free one (the panel's own when it is
    /// free, as the panel's readers would see it); a contact with no free slot waits for one.
    mutating func place(_ c: PanelContact) {
        var s = slot(of: c.id)
        if s == nil {
            let own = Int(c.slot)
            s = own >= 0 && own < shown.count && shown[own] == 0 ? own : shown.firstIndex(of: 0)
            guard let free = s else { return }
            land(c, in: free)
        }
        write(c, in: s!)
    }

    func slot(of id: UInt32) -> Int? { shown.firstIndex(of: id) }

    /// Some contact of the frame lands now (visible, and in no slot yet).
    private func lands(_ contacts: borrowing FrameList<PanelContact>) -> Bool {
        for i in contacts.indices where slot(of: contacts[i].id) == nil && !isHidden(contacts[i].id) && !isHeld(contacts[i].id) { return true }
        return false
    }

    /// A contact lands in slot `s`: a tracking id of the mirror's. Its tool type goes first where
    /// it differs from the slot's (a palm cancelled there before): libinput reads the slot's tool
    /// type when the tracking id arrives, and a touch that begins as a palm is never a touch.
    private mutating func land(_ c: PanelContact, in s: Int) {
        let tool = Evdev.ABS_MT_TOOL_TYPE
        if device.multitouch && device.otherAxes.contains(tool) && c.axes[tool] != axes[s][tool] {
            setAxis(s, tool, c.axes[tool])
            axes[s][tool] = c.axes[tool]
        }
        shown[s] = c.id
        oldestKnown = false
        shownCount += 1
        landings &+= 1
        landedAt[s] = landings
        trackingIDs[s] = freshTrackingID()
        if device.multitouch {
            select(s)
            add(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, trackingIDs[s])
        }
    }

    /// The next tracking id, 0 to the advertised maximum and round again, passing over any still
    /// shown (a contact held through 65,536 landings: a stuck one): one id, one contact.
    private mutating func freshTrackingID() -> Int32 {
        var id = nextTrackingID
        for _ in 0...trackingIDs.count where trackingIDs.contains(id) { id = id >= device.trackingMaximum ? 0 : id + 1 }
        nextTrackingID = id >= device.trackingMaximum ? 0 : id + 1
        return id
    }

    /// Slot `s`'s values that differ from `c`'s (multitouch mirrors; a single-touch mirror's
    /// come from `endFrame`).
    private mutating func write(_ c: PanelContact, in s: Int) {
        var m = (x: c.x, y: c.y)
        if mapped, let g = mapping { m = g.map(x: c.x, y: c.y) }
        let p = (x: min(max(m.x, device.xRange.lowerBound), device.xRange.upperBound), y: min(max(m.y, device.yRange.lowerBound), device.yRange.upperBound))
        guard device.multitouch else {
            positions[s] = p
            axes[s] = c.axes
            return
        }
        if p.x != positions[s].x { setAxis(s, Evdev.ABS_MT_POSITION_X, p.x) }
        if p.y != positions[s].y { setAxis(s, Evdev.ABS_MT_POSITION_Y, p.y) }
        positions[s] = p
        guard c.axes != axes[s] else { return }
        for code in device.otherAxes where c.axes[code] != axes[s][code] { setAxis(s, code, c.axes[code]) }
        axes[s] = c.axes
    }

    private mutating func setAxis(_ s: Int, _ code: UInt16, _ value: Int32) {
        select(s)
        add(Evdev.EV_ABS, code, value)
    }

    /// Ends the touch in slot `s` (its values stay, as the kernel keeps them).
    mutating func lift(_ s: Int) {
        shown[s] = 0
        oldestKnown = false
        shownCount -= 1
        trackingIDs[s] = -1
        if device.multitouch {
            select(s)
            add(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
        }
    }

    /// A frame lifting every touch and key the mirror shows (the panel went, or the daemon
    /// stops); what was held or hidden is forgotten.
    public mutating func liftAll() {
        for s in shown.indices where shown[s] != 0 { lift(s) }
        held.removeAll()
        hidden.removeAll()
        if !out.isEmpty || keysOrSingleDiffer() { endFrame() }
    }

    /// The keys and single-touch axes for the touches shown, where they changed, then SYN_REPORT.
    mutating func endFrame() {
        let oldest = oldestShown()
        if shownCount != keysFor {
            keysFor = shownCount
            for k in MirrorDevice.toolOrder where device.touchKeys.contains(k) {
                let down = k == Evdev.BTN_TOUCH ? shownCount > 0 : MirrorDevice.tool(for: shownCount) == k
                guard down != keysDown.contains(k) else { continue }
                add(Evdev.EV_KEY, k, down ? 1 : 0)
                if down { keysDown.append(k) } else { keysDown.removeAll { $0 == k } }
            }
        }
        if let s = oldest, device.singleAxes {
            if positions[s].x != single.x { add(Evdev.EV_ABS, Evdev.ABS_X, positions[s].x) }
            if positions[s].y != single.y { add(Evdev.EV_ABS, Evdev.ABS_Y, positions[s].y) }
            single.x = positions[s].x
            single.y = positions[s].y
        }
        if device.pressure {
            let p = oldest.map { axes[$0][Evdev.ABS_MT_PRESSURE] } ?? 0
            if p != single.pressure { add(Evdev.EV_ABS, Evdev.ABS_PRESSURE, p) }
            single.pressure = p
        }
        add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
    }

    /// Whether `endFrame` would write a key or a single-touch value (a frame that changed no slot).
    mutating func keysOrSingleDiffer() -> Bool {
        guard !device.multitouch else { return false }
        // A single-touch mirror's whole state is its keys and single axes.
        guard let s = oldestShown() else { return keysDown.contains(Evdev.BTN_TOUCH) || (device.pressure && single.pressure != 0) }
        return !keysDown.contains(Evdev.BTN_TOUCH) || positions[s].x != single.x || positions[s].y != single.y
            || (device.pressure && axes[s][Evdev.ABS_MT_PRESSURE] != single.pressure)
    }

    private mutating func oldestShown() -> Int? {
        guard !oldestKnown else { return oldest }
        var best: Int?
        for s in shown.indices where shown[s] != 0 && (best == nil || landedAt[s] < landedAt[best!]) { best = s }
        oldest = best
        oldestKnown = true
        return best
    }

    mutating func select(_ s: Int) {
        guard selected != s else { return }
        add(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s))
        selected = s
    }

    mutating func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        out.append(KernelInputEvent(seconds: 0, microseconds: 0, type: type, code: code, value: value))
    }

    static func contains(_ contacts: borrowing FrameList<PanelContact>, _ id: UInt32) -> Bool {
        for i in contacts.indices where contacts[i].id == id { return true }
        return false
    }

    func isHidden(_ id: UInt32) -> Bool { hidden.contains(id) }
}
