import GestureEngine
import Testing
import TouchFrames
import TouchInput
import TouchMirror

/// A mirror's name, and that discovery never takes a mirror (the daemon's own, or another
/// instance's), whatever udev says of it.
@Suite struct VirtualTouchscreenTests {
    @Test func name_endsWithTheSuffix_andFitsUinput() {
        #expect(VirtualTouchscreen.name(mirroring: "ILITEK Multi-Touch") == "ILITEK Multi-Touch (touchgestured)")
        let long = VirtualTouchscreen.name(mirroring: String(repeating: "Ä", count: 60))
        #expect(long.hasSuffix(" (touchgestured)"))
        #expect(long.utf8.count <= 79, "uinput's name holds 80 bytes with its NUL")
    }

    /// A mirror's place (its `phys`, the udev rule's /dev/input/touchgestured/PLACE): the panel's
    /// ID_PATH, else its driver's phys, else its node; a file name whatever the panel says.
    @Test func place_prefersIDPath_thenPhys_thenNode_andIsAFileName() {
        let place = VirtualTouchscreen.place
        #expect(place("platform-3f204000.spi-cs-1", "spi0.1/input0", "/dev/input/event3") == "platform-3f204000.spi-cs-1")
        #expect(place(nil, "usb-0000:00:14.0-1/input0", "/dev/input/event3") == "usb-0000-00-14.0-1-input0")
        #expect(place("pci-0000:00:14.0-usb-0:1:1.0", nil, "x") == "pci-0000-00-14.0-usb-0-1-1.0")
        #expect(place("", "", "/dev/input/event3") == "event3")
        #expect(place("../../etc/passwd", nil, "/dev/input/event3") == ".--.--etc-passwd")
        #expect(place("..", nil, "x") == ".-")
        #expect(place(".", nil, "x") == "panel-.")
        #expect(place("touchscreen", nil, "x") == "panel-touchscreen")
        #expect(place("a b\n$(x)é", nil, "x") == "a-b---x--")
        #expect(place(String(repeating: "p", count: 500), nil, "x").utf8.count == 120)
    }

    /// Two mirrors never share a place: the second gets `-2`, the third `-3`.
    @Test func unique_suffixesAPlaceInUse() {
        #expect(VirtualTouchscreen.unique("pci-1", among: ["event3"]) == "pci-1")
        #expect(VirtualTouchscreen.unique("pci-1", among: ["pci-1"]) == "pci-1-2")
        #expect(VirtualTouchscreen.unique("pci-1", among: ["pci-1", "pci-1-2"]) == "pci-1-3")
    }

    @Test func discovery_skipsMirrors_evenWhenUdevSaysTouchscreen() {
        var node = InputNode(path: "/dev/input/event9")
        node.udevInitialized = true
        node.properties["ID_INPUT_TOUCHSCREEN"] = "1"
        let mirror = DeviceDescription.multitouchPanel(name: VirtualTouchscreen.name(mirroring: "panel"), maxX: 999, maxY: 499, slots: 4)
        let panel = DeviceDescription.multitouchPanel(name: "panel", maxX: 999, maxY: 499, slots: 4)
        guard case .skipped(let why) = Discovery.classify(node, mirror, excluded: { _, _ in nil }) else {
            Issue.record("a mirror was taken")
            return
        }
        #expect(why.contains("virtual touchscreen"))
        guard case .taken = Discovery.classify(node, panel, excluded: { _, _ in nil }) else {
            Issue.record("the panel was skipped")
            return
        }
    }

    /// A panel that advertises mouse buttons and a wheel (some do): its mirror has neither, so
    /// udev cannot call it a mouse, and it stays a direct touchscreen with the panel's touch keys.
    @Test func mirror_hasNoMouseButtonNorRelativeAxis() {
        var panel = DeviceDescription.multitouchPanel(name: "panel", maxX: 999, maxY: 499, slots: 4)
        panel.codes[Evdev.EV_KEY, default: []].formUnion([0x110, 0x111, 0x112, Evdev.BTN_TOOL_FINGER])
        panel.codes[Evdev.EV_REL] = [0x08]
        panel.properties = [Evdev.INPUT_PROP_POINTER]
        let mirror = VirtualTouchscreen.description(mirroring: panel)
        #expect(mirror.codes[Evdev.EV_KEY] == [Evdev.BTN_TOUCH, Evdev.BTN_TOOL_FINGER])
        #expect(mirror.codes[Evdev.EV_REL] == nil)
        #expect(mirror.properties == [Evdev.INPUT_PROP_DIRECT])
        #expect(mirror.supports(Evdev.EV_ABS, Evdev.ABS_MT_TOOL_TYPE))
        #expect(mirror.touchKind == .multitouch)
    }

    /// A protocol A panel (no slots) is mirrored with slots and tracking ids, the decoder's ten.
    @Test func aProtocolAPanelsMirror_hasSlots() {
        var panel = DeviceDescription.multitouchPanel(name: "panel", maxX: 999, maxY: 499, slots: 4)
        panel.axes[Evdev.ABS_MT_SLOT] = nil
        panel.axes[Evdev.ABS_MT_TRACKING_ID] = nil
        panel.codes[Evdev.EV_ABS] = Set(panel.axes.keys)
        let mirror = VirtualTouchscreen.description(mirroring: panel)
        #expect(!mirror.isProtocolA && mirror.supports(Evdev.EV_ABS, Evdev.ABS_MT_TRACKING_ID))
        #expect(mirror.axes[Evdev.ABS_MT_SLOT]?.maximum == 9)
        #expect(MirrorDevice(mirror).slots == 10)
    }
}

/// What a mirror kept in systemd's store is recognized by, and what a mirror taken back is sent
/// first.
@Suite struct KeptMirrorTests {
    static let panel = DeviceDescription.multitouchPanel(name: "ILITEK", maxX: 4095, maxY: 4095, slots: 10)

    @Test func fingerprint_isTheSameForTheSameMirror_andChangesWithWhatItIsMadeOf() {
        let d = VirtualTouchscreen.description(mirroring: Self.panel)
        let f = VirtualTouchscreen.fingerprint(of: d, place: "pci-1")
        #expect(f.count == 16 && f.allSatisfy(\.isHexDigit))
        #expect(VirtualTouchscreen.fingerprint(of: VirtualTouchscreen.description(mirroring: Self.panel), place: "pci-1") == f)
        #expect(VirtualTouchscreen.fingerprint(of: d, place: "pci-2") != f, "another place")
        var wider = Self.panel
        wider.axes[Evdev.ABS_MT_POSITION_X]!.maximum = 8191
        #expect(VirtualTouchscreen.fingerprint(of: VirtualTouchscreen.description(mirroring: wider), place: "pci-1") != f, "other axes")
        var fuzzy = Self.panel
        fuzzy.axes[Evdev.ABS_MT_POSITION_X]!.fuzz = 8
        let fuzzed = VirtualTouchscreen.fingerprint(of: VirtualTouchscreen.description(mirroring: fuzzy), place: "pci-1")
        #expect(VirtualTouchscreen.fingerprint(of: VirtualTouchscreen.description(mirroring: fuzzy, unfuzzed: true), place: "pci-1") != fuzzed,
            "the filters' unfuzzed axes make another mirror")
        var renamed = Self.panel
        renamed.name = "Goodix"
        #expect(VirtualTouchscreen.fingerprint(of: VirtualTouchscreen.description(mirroring: renamed), place: "pci-1") != f, "another name")
    }

    /// Every slot ended, every key up, the slot back at 0, one frame (two with `.palm`: each slot
    /// a palm first, as the daemon cancels a touch).
    @Test func liftEverything_endsEverySlot_andSelectsSlotZero() {
        var panel = Self.panel
        panel.codes[Evdev.EV_KEY, default: []].insert(0x100)  // a button of the panel's
        let out = MirrorDevice(VirtualTouchscreen.description(mirroring: panel)).liftEverything(cancel: .lift)
        let ends = out.filter { $0.type == Evdev.EV_ABS && $0.code == Evdev.ABS_MT_TRACKING_ID }
        #expect(ends.count == 10 && ends.allSatisfy { $0.value == -1 })
        let slots = out.filter { $0.type == Evdev.EV_ABS && $0.code == Evdev.ABS_MT_SLOT }.map(\.value)
        #expect(slots == Array(0..<10) + [0])
        #expect(out.filter { $0.type == Evdev.EV_KEY }.allSatisfy { $0.value == 0 })
        #expect(out.contains { $0.type == Evdev.EV_KEY && $0.code == Evdev.BTN_TOUCH })
        #expect(out.contains { $0.type == Evdev.EV_KEY && $0.code == 0x100 }, "the panel's other keys up too")
        #expect(out.last.map { $0.type == Evdev.EV_SYN && $0.code == Evdev.SYN_REPORT } == true)
        #expect(out.filter { $0.type == Evdev.EV_SYN }.count == 1, "one frame")
        let palm = MirrorDevice(VirtualTouchscreen.description(mirroring: panel)).liftEverything(cancel: .palm)
        let first = palm.prefix { $0.type != Evdev.EV_SYN }
        #expect(first.filter { $0.code == Evdev.ABS_MT_TOOL_TYPE }.count == 10 && first.filter { $0.code == Evdev.ABS_MT_TOOL_TYPE }.allSatisfy { $0.value == Evdev.MT_TOOL_PALM })
        #expect(palm.filter { $0.type == Evdev.EV_SYN }.count == 2, "each a palm, then ended")
    }

    /// A mirror taken back writes every value the first time (the kernel's copy is not known):
    /// a touch at 0, 0 still writes its position.
    @Test func aMirrorTakenBack_writesEveryValueTheFirstTime() {
        let device = MirrorDevice(VirtualTouchscreen.description(mirroring: Self.panel))
        var fresh = MirrorContacts(device: device), taken = MirrorContacts(device: device, valuesUnknown: true)
        let at0 = FrameList<PanelContact>([PanelContact(id: 1, slot: 0, x: 0, y: 0)]), none = FrameList<PanelEvent>()
        fresh.frame(at0, others: none, discontinuity: false, taken: [], hold: [], bound: 0, now: 0)
        taken.frame(at0, others: none, discontinuity: false, taken: [], hold: [], bound: 0, now: 0)
        let x = { (c: MirrorContacts) in c.out.contains { $0.type == Evdev.EV_ABS && $0.code == Evdev.ABS_MT_POSITION_X } }
        #expect(!x(fresh), "a new device's kernel copy is 0: nothing to write")
        #expect(x(taken))
    }

    /// A single-touch mirror taken back, with no pressure axis: a frame with nothing shown writes
    /// nothing (its unknown pressure is no value to write).
    @Test func aSingleTouchMirrorTakenBack_writesNothingWhileNothingIsShown() {
        var d = DeviceDescription(name: "resistive")
        d.codes[Evdev.EV_KEY] = [Evdev.BTN_TOUCH]
        d.axes[Evdev.ABS_X] = AbsAxis(minimum: 0, maximum: 4095)
        d.axes[Evdev.ABS_Y] = AbsAxis(minimum: 0, maximum: 4095)
        d.codes[Evdev.EV_ABS] = Set(d.axes.keys)
        var taken = MirrorContacts(device: MirrorDevice(d), valuesUnknown: true)
        taken.frame(FrameList<PanelContact>(), others: FrameList<PanelEvent>(), discontinuity: false, taken: [], hold: [], bound: 0, now: 0)
        taken.liftAll()
        #expect(taken.out.isEmpty, "\(taken.out.map { "\($0.type):\($0.code)=\($0.value)" })")
    }
}
