import GestureConfig
import Logging
import TouchFrames
import TouchInput
import TouchMirror

/// Live devices: discovery at start, hotplug, which nodes are taken (`ignore_devices`, `grab`).
extension DeviceLifecycle {
    // MARK: - Live devices

    /// Every input node now: touchscreens are opened, the rest are logged as skipped.
    func scan(_ state: inout FrameState) {
        for node in Discovery.nodes() { open(node, &state) }
    }

    private func open(_ node: InputNode, _ state: inout FrameState) {
        guard !state.devices.all.contains(where: { $0.source.node == node.path }) else { return }
        let evdev: EvdevDevice
        do {
            evdev = try EvdevDevice(path: node.path)
        } catch {
            log.debug("\(node.path): skipped: \(error)")
            return
        }
        switch Discovery.classify(node, evdev.description, excluded: excluded) {
        case .skipped(let reason):
            log.debug("\(node.path) (\(evdev.description.name)): skipped: \(reason)")
        case .taken(let reason):
            log.info("\(node.path) (\(evdev.description.name)): taken: \(reason)")
            do {
                let source = LiveSource(device: evdev, node: node, log: log)
                // The panel's past first: the kernel does not repeat a slot's last position.
                let past = try? evdev.slotState()
                try add(source, mirror: takeExclusively(evdev, node: node, geometry: geometry(of: source)), past: past, &state)
            } catch {
                // No device, so no mirror's name to keep, nor its mirror.
                if let place = places.removeValue(forKey: node.path) { mirrors.removed(place: place) }
                log.error("\(node.path): \(error)")
            }
        }
    }

    /// `[device] mode`: grabs the panel (grab, passthrough) and makes its mirror (passthrough).
    /// A panel that cannot be grabbed is read beside the compositor, and gets no mirror: the
    /// compositor would see its touches twice.
    /// In pass-through, a panel with a calibration or rotation (`geometry`) gets a mirror that
    /// carries its touches calibrated and rotated (`MirrorGeometry`): the compositor needs no
    /// setting of its own.
    private func takeExclusively(_ evdev: EvdevDevice, node: InputNode, geometry g: GeometryConfiguration) -> MirrorParts? {
        guard base.daemon.mode != .observe else { return nil }
        do {
            try evdev.grab(true)
        } catch {
            log.warning("\(evdev.path): cannot grab (\(error)): read beside the compositor, which sees its touches\(base.daemon.mode == .passthrough ? "; no virtual touchscreen" : "")")
            return nil
        }
        guard base.daemon.mode == .passthrough else { return nil }
        let place = place(of: node, evdev)
        do {
            let axes = evdev.description.positionAxes
            let mapped = axes.flatMap { MirrorGeometry(x: $0.x, y: $0.y, calibration: g.calibration, rotation: g.rotation) }
            // Filtered positions with the panel's fuzz would be smoothed again by the kernel.
            let described = VirtualTouchscreen.description(
                mirroring: mapped?.mirroring(evdev.description) ?? evdev.description, unfuzzed: !g.filters.isEmpty)
            let (screen, adopted) = try mirrors.mirror(described, place: place, cancel: base.daemon.cancel)
            log.info("\(evdev.path): passed through to \(screen.devnode ?? "a virtual touchscreen")\(adopted ? " (kept across the restart)" : "") (\(VirtualTouchscreen.name(mirroring: evdev.description.name)); /dev/input/touchgestured/\(place) with the udev rule)\(mapped.map { ", calibrated and rotated: X \($0.xAxis.minimum)-\($0.xAxis.maximum), Y \($0.yAxis.minimum)-\($0.yAxis.maximum)" } ?? "")")
            let sink: any TouchSink & Sendable = trace.map { TracedTouchSink(screen, trace: $0) } ?? screen
            return MirrorParts(screen: sink, described: described, cancel: base.daemon.cancel, geometry: mapped, adopted: adopted)
        } catch {
            // Grabbed without a mirror, the compositor would have no touchscreen at all.
            try? evdev.grab(false)
            places[node.path] = nil
            log.error("\(evdev.path): cannot make its virtual touchscreen (\(error)): read beside the compositor instead (is /dev/uinput writable? see docs/GUIDE.md, \"Running under a compositor\")")
            return nil
        }
    }

    /// The panel's place, its mirror's stable name (`VirtualTouchscreen.place`), unique among the
    /// panels present; said when it is not stable (no ID_PATH nor phys: the node's name).
    private func place(of node: InputNode, _ evdev: EvdevDevice) -> String {
        let id = node.properties["ID_PATH"].flatMap { $0.isEmpty ? nil : $0 }
        let base = VirtualTouchscreen.place(idPath: id, phys: evdev.phys, node: node.path)
        let place = VirtualTouchscreen.unique(base, among: places.filter { $0.key != node.path }.values)
        if id == nil && evdev.phys == nil {
            log.warning("\(node.path): no udev ID_PATH and no phys: its mirror's name (\(place)) may change when the system restarts")
        } else if place != base {
            log.warning("\(node.path): another panel's mirror is /dev/input/touchgestured/\(base): this one's is \(place)")
        }
        places[node.path] = place
        return place
    }

    /// `[daemon] ignore_devices` (`Configuration.ignoreReason`).
    private func excluded(_ node: InputNode, _ d: DeviceDescription) -> String? { base.ignoreReason(path: node.path, d) }

    /// Devices that come and go: the udev monitor, or inotify on /dev/input without udevd.
    func startHotplug() {
        do {
            let monitor = try HotplugMonitor()
            hotplug = monitor
            try loop.add(monitor.fd) { [unowned self] _, state in
                for change in monitor.drain() {
                    switch change {
                    case .added(let path): self.open(Discovery.node(devnode: path), &state)
                    case .removed(let path):
                        if let d = state.devices.all.first(where: { $0.source.node == path }) { self.remove(d.id, &state) }
                    }
                }
            }
            log.info("hotplug: \(monitor.mode.rawValue)")
        } catch {
            log.notice("no hotplug: \(error)")
        }
    }
}
