import GestureEngine
import GestureProtocol
import TouchFrames

/// What the devices produce, out to the clients that subscribed to it: gesture lines (encoded
/// once, queued to every matching client), touch lines, device announcements.
extension Daemon: DeviceOwner {
    /// Lines are formatted only when some client takes gesture lines.
    func prepare(_ device: Device) {
        if inputSince == nil { inputSince = monotonicNanoseconds() }
        device.pipeline.encodes = server.allClients.contains { $0.subscription.gestures }
    }

    func input(_ batch: InputBatch, from device: Device) {
        prepare(device)
        device.pipeline.feed(batch)
        device.pipeline.writer.reset()
    }

    func frame(_ f: TouchFrame, from device: Device) {
        stats.frames += 1
        var first = true
        for c in server.allClients where c.subscription.touches && (c.subscription.devices?.contains(device.id) ?? true) {
            if first {
                writer.reset()
                Messages.touch(&writer, device: device.id, frame: f)
                first = false
            }
            server.enqueue(writer.bytes[...], to: c, since: inputSince)
            stats.touchLines += 1
        }
    }

    func line(_ e: GestureEvent, region: String?, _ bytes: ArraySlice<UInt8>, from device: Device) {
        stats.gestureLines += 1
        let regionName = region ?? EngineConfiguration.screenRegionName
        for c in server.allClients where c.subscription.gestures {
            if let k = c.subscription.kinds, !k.contains(e.kind) { continue }
            if let r = c.subscription.regions, !r.contains(regionName) { continue }
            if let d = c.subscription.devices, !d.contains(device.id) { continue }
            server.enqueue(bytes, to: c, since: inputSince)
        }
    }

    func added(_ device: Device) {
        announce(device, added: true)
        systemd.notify("STATUS=\(status)")
    }

    func removed(_ device: Device) {
        announce(device, added: false)
        systemd.notify("STATUS=\(status)")
    }

    private func announce(_ device: Device, added: Bool) {
        writer.reset()
        Messages.device(&writer, added: added, device.summary, time: Double(monotonicNanoseconds()) / 1e9)
        for c in server.allClients where c.subscription.devices?.contains(device.id) ?? true {
            server.enqueue(writer.bytes[...], to: c, since: nil)
        }
        writer.reset()
    }
}
