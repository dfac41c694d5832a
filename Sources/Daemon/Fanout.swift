import GestureEngine
import GestureProtocol
import Pipeline
import TouchFrames

/// What the devices produce, out to the clients that subscribed to it: touch and gesture lines
/// (each encoded once by the device's pipeline and queued to every client it passes), device
/// announcements.
extension Daemon: DeviceOwner {
    /// What the pipelines make: lines are formatted only when some client takes them.
    func subscriptionsChanged() {
        var wants = PipelineOutput.Wants(touchLines: false, gestureLines: false, transitions: options.verbose)
        for c in server.allClients {
            wants.touchLines = wants.touchLines || c.subscription.touches
            wants.gestureLines = wants.gestureLines || c.subscription.gestures
        }
        devices.wants = wants
    }

    /// `out` is inout only so that it is not copied on the way in; it is read, not changed.
    func output(_ out: inout PipelineOutput, from device: Device) {
        stats.frames += out.frameCount
        // A line's latency starts at its input: the kernel's timestamp of the first frame behind
        // it (CLOCK_MONOTONIC), or, for lines no frame led to (a deadline), this turn.
        let since = out.firstFrameTime.map { device.source.monotonic(of: $0) } ?? loop.turnStarted
        if out.firstFrameTime != nil { server.inputNow = max(server.inputNow ?? since, since) }
        device.health.events += out.eventCount
        if out.frameCount > 0 {
            device.health.frames += out.frameCount
            device.health.lastFrameAt = since
            let last = out.frameCount > 1 ? out.lastFrameTime.map { device.source.monotonic(of: $0) } ?? since : since
            pacing.frames(first: since, last: last, count: out.frameCount)
        }
        // The lines are queued from the buffer in place (a slice of it retained the buffer per
        // line), and events are read field by field (a copy of one is ~190 bytes).
        out.text.bytes.withUnsafeBufferPointer { text in
            for k in out.items.indices {
                switch out.items[k] {
                case .touch(let line):
                    for c in server.allClients where c.subscription.touches && c.subscription.takes(device: device.id) {
                        server.enqueue(UnsafeBufferPointer(rebasing: text[line]), to: c, since: since, continuous: true)
                        stats.touchLines += 1
                    }
                case .gesture(let i, let line, let origin):
                    stats.gestureLines += 1
                    stats.gestures.add(out.events[i].kind, out.events[i].phase)
                    guard !line.isEmpty else { continue }
                    let continuous = out.events[i].phase == .changed
                    for c in server.allClients
                    where c.subscription.takesEveryGesture
                        || (c.subscription.takes(out.events[i], origin: origin, in: out) && c.subscription.takes(device: device.id))
                    {
                        server.enqueue(UnsafeBufferPointer(rebasing: text[line]), to: c, since: since, continuous: continuous)
                    }
                case .action(let f):
                    let firing = out.firings[f]
                    actions.fire(
                        firing.action,
                        .init(event: out.events[firing.event], gestureName: firing.gesture, region: firing.region, device: device.id))
                }
            }
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
        for c in server.allClients where c.subscription.takes(device: device.id) {
            writer.bytes.withUnsafeBufferPointer { server.enqueue($0, to: c, since: nil) }
        }
        writer.reset()
    }
}
