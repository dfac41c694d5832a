import TouchFrames

/// What a mirror advertises, as `MirrorContacts` writes for it: multitouch or single-touch, its
/// slots, which per-contact axes and touch keys it has, and the range of its tracking ids.
/// Made from the mirror's own description (the panel's, calibrated and rotated:
/// `VirtualTouchscreen.description(mirroring:)`), so nothing is written the device would drop.
public struct MirrorDevice: Sendable {
    public let multitouch: Bool
    public let slots: Int
    /// The multitouch axes besides slot, position and tracking id that the mirror has.
    public let otherAxes: [UInt16]
    /// BTN_TOUCH and the BTN_TOOL_* it has.
    public let touchKeys: [UInt16]
    /// It has ABS_X and ABS_Y (the single-touch emulation), and ABS_PRESSURE.
    public let singleAxes: Bool
    public let pressure: Bool
    /// The largest tracking id it takes.
    public let trackingMaximum: Int32
    /// Its position axes' ranges (the panel's, or as calibration and rotation map them): a
    /// driver's value outside them (a bezel, a glitch) is written at their edge, as the
    /// gestures see it.
    public let xRange: ClosedRange<Int32>, yRange: ClosedRange<Int32>
    /// The panel's other keys, switches and misc events it has (passed on as they come).
    public let otherKeys: [UInt16]
    public let switches: [UInt16]
    public let misc: [UInt16]

    public init(_ d: DeviceDescription) {
        let abs = d.codes[Evdev.EV_ABS] ?? []
        let keys = d.codes[Evdev.EV_KEY] ?? []
        multitouch = d.touchKind == .multitouch
        slots = multitouch ? max(1, d.slotCount) : 1
        let skipped: Set<UInt16> = [Evdev.ABS_MT_POSITION_X, Evdev.ABS_MT_POSITION_Y, Evdev.ABS_MT_TRACKING_ID]
        otherAxes = (PanelAxes.first...PanelAxes.last).filter { abs.contains($0) && !skipped.contains($0) }
        touchKeys = Self.toolOrder.filter { keys.contains($0) }
        singleAxes = abs.contains(Evdev.ABS_X) && abs.contains(Evdev.ABS_Y)
        pressure = abs.contains(Evdev.ABS_PRESSURE)
        let most = d.axes[Evdev.ABS_MT_TRACKING_ID]?.maximum ?? 65535
        trackingMaximum = max(1, most)
        let axes = d.positionAxes
        xRange = axes.map { min($0.x.minimum, $0.x.maximum)...max($0.x.minimum, $0.x.maximum) } ?? Int32.min...Int32.max
        yRange = axes.map { min($0.y.minimum, $0.y.maximum)...max($0.y.minimum, $0.y.maximum) } ?? Int32.min...Int32.max
        otherKeys = keys.filter { PanelEvent.passes(Evdev.EV_KEY, $0) }.sorted()
        switches = (d.codes[Evdev.EV_SW] ?? []).sorted()
        misc = (d.codes[Evdev.EV_MSC] ?? []).sorted()
    }

    /// It has `e`'s code (the kernel drops a code the device lacks: the mirror writes none).
    func passes(_ e: PanelEvent) -> Bool {
        switch e.type {
        case Evdev.EV_KEY: otherKeys.contains(e.code)
        case Evdev.EV_SW: switches.contains(e.code)
        case Evdev.EV_MSC: misc.contains(e.code)
        default: false
        }
    }

    static let BTN_TOOL_FINGER: UInt16 = 0x145
    static let BTN_TOOL_QUINTTAP: UInt16 = 0x148
    static let BTN_TOOL_DOUBLETAP: UInt16 = 0x14d
    static let BTN_TOOL_TRIPLETAP: UInt16 = 0x14e
    static let BTN_TOOL_QUADTAP: UInt16 = 0x14f
    /// The touch keys, in the order they are written (a frame applies them together at its SYN_REPORT).
    static let toolOrder: [UInt16] = [
        BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP, BTN_TOOL_QUADTAP, BTN_TOOL_QUINTTAP, Evdev.BTN_TOUCH,
    ]

    /// What a mirror taken back from an earlier process is sent first, whatever that process
    /// left down: every slot's touch ended (`cancel`: `.palm` marks each a palm in a frame
    /// before, as the daemon cancels a touch), every touch key and other key up, the kernel's
    /// slot back at 0 (where `MirrorContacts` starts). Its values are left: the mirror's
    /// contacts then take them as unknown (`valuesUnknown`) and write each the first time.
    public func liftEverything(cancel: MirrorCancel) -> [KernelInputEvent] {
        var out: [KernelInputEvent] = []
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            out.append(KernelInputEvent(seconds: 0, microseconds: 0, type: type, code: code, value: value))
        }
        if multitouch && cancel == .palm && otherAxes.contains(Evdev.ABS_MT_TOOL_TYPE) {
            for s in 0..<slots {
                add(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s))
                add(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE, Evdev.MT_TOOL_PALM)
            }
            add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        }
        if multitouch {
            for s in 0..<slots {
                add(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, Int32(s))
                add(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID, -1)
            }
            add(Evdev.EV_ABS, Evdev.ABS_MT_SLOT, 0)
        }
        for k in touchKeys + otherKeys { add(Evdev.EV_KEY, k, 0) }
        add(Evdev.EV_SYN, Evdev.SYN_REPORT, 0)
        return out
    }

    /// The BTN_TOOL_* the kernel reports for `n` touches (`input_mt_report_finger_count`: none
    /// for 0, and none past 5).
    static func tool(for n: Int) -> UInt16? {
        switch n {
        case 1: BTN_TOOL_FINGER
        case 2: BTN_TOOL_DOUBLETAP
        case 3: BTN_TOOL_TRIPLETAP
        case 4: BTN_TOOL_QUADTAP
        case 5: BTN_TOOL_QUINTTAP
        default: nil
        }
    }
}
