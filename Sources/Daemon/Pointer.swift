import PointerDevice
import GestureConfig
import TouchInput

/// The virtual pointer's life: it exists while some region of the file emulates one
/// (`emulate = "pointer"`), spans the configured screen, and is made again when the screen's
/// size changes. Made at start and at each reload; the devices' table writes to it.
extension DeviceLifecycle {
    func configurePointer(_ state: inout FrameState) {
        let wanted = !base.pointerRegions.isEmpty
        let screen = base.engine.screen
        let width = Int32(max(2, screen.width.rounded())), height = Int32(max(2, screen.height.rounded()))
        if let p = state.devices.pointer.device {
            if wanted && p.width == width && p.height == height { return }
            state.devices.pointer.device = nil
            log.info("virtual pointer removed\(wanted ? " (the screen's size changed)" : ": no region emulates one")")
        }
        guard wanted else { return }
        do {
            let p = try VirtualPointer(screenWidth: screen.width, screenHeight: screen.height)
            state.devices.pointer.device = p
            let names = base.pointerRegions.map { "'\($0.name)'" }.joined(separator: ", ")
            log.info("virtual pointer for \(names): \(p.devnode ?? "(node unknown)"), \(width)×\(height)")
        } catch {
            log.error("cannot make the virtual pointer (/dev/uinput): \(error); the pointer regions' gestures go to clients only")
        }
        if base.daemon.mode == .observe {
            log.notice("[device] mode = \"observe\": the app sees the pointer regions' touches as well as the pointer; mode = \"passthrough\" (or \"grab\") gives it the pointer alone")
        }
    }
}
