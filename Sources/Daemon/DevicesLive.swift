import GestureConfig
import Logging
import TouchFrames
import TouchInput

/// Live devices: discovery at start, hotplug, which nodes are taken (`ignore_devices`, `grab`).
extension Devices {
    // MARK: - Live devices

    /// Every input node now: touchscreens are opened, the rest are logged as skipped.
    func scan() {
        for node in Discovery.nodes() { open(node) }
    }

    private func open(_ node: InputNode) {
        guard !all.contains(where: { $0.source.node == node.path }) else { return }
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
            if base.daemon.grab {
                do { try evdev.grab(true) } catch { log.warning("\(node.path): cannot grab: \(error)") }
            }
            log.info("\(node.path) (\(evdev.description.name)): taken: \(reason)")
            do {
                try add(LiveSource(device: evdev, node: node, log: log))
            } catch {
                log.error("\(node.path): \(error)")
            }
        }
    }

    /// `[daemon] ignore_devices`: a node path, `vvvv:pppp`, or a glob on the name.
    private func excluded(_ node: InputNode, _ d: DeviceDescription) -> String? {
        base.daemon.ignoreDevices.first {
            devicePatternMatches($0, path: node.path, name: d.name, vendor: d.vendor, product: d.product)
        }.map { "config ignore_devices \"\($0)\"" }
    }

    /// Devices that come and go: the udev monitor, or inotify on /dev/input without udevd.
    func startHotplug() {
        do {
            let monitor = try HotplugMonitor()
            hotplug = monitor
            try loop.add(monitor.fd) { [unowned self] _ in
                for change in monitor.drain() {
                    switch change {
                    case .added(let path): self.open(Discovery.node(devnode: path))
                    case .removed(let path):
                        if let d = self.all.first(where: { $0.source.node == path }) { self.remove(d.id) }
                    }
                }
            }
            log.info("hotplug: \(monitor.mode.rawValue)")
        } catch {
            log.notice("no hotplug: \(error)")
        }
    }
}
