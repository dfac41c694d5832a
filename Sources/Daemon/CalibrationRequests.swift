import GestureConfig
import GestureEngine
import GestureProtocol
import SystemCalls
import TouchFrames

/// `calibrate` (docs/PROTOCOL.md): a panel's calibration fitted to touches on targets, and with
/// `save` kept in the daemon's state folder (`calibration.toml`, read after the configuration
/// file and before its drop-ins) and applied by a reload. Saving needs the rights of the
/// socket's group: the client's user (a page's own, through the web bridge) must be root or a
/// member of the group that owns the socket.
extension Daemon {
    func calibrate(_ r: CalibrationRequest, client c: Client, _ state: inout FrameState) throws -> (CalibrationFit, saved: String?) {
        guard let k = state.devices.index(of: r.device) else {
            throw RequestError(.invalidField, "no device \(r.device) (list_devices)")
        }
        let device = state.devices.all[k]
        let g = devices.geometry(of: device.source)
        let output = g.output.flatMap { $0.clipped(to: g.screen) } ?? g.screen
        let fit: CalibrationFit
        do {
            fit = try CalibrationFit(
                r.points.map { CalibrationFit.Point(u: $0.u, v: $0.v, target: PixelPoint(x: $0.x, y: $0.y)) }, output: output,
                rotation: g.rotation, sizeMM: device.pipeline.decoder.geometry.sizeMM, limitMM: r.maxErrorMM ?? CalibrationFit.defaultLimitMM)
        } catch {
            throw RequestError(.calibrationRefused, "\(error)")
        }
        guard r.save else { return (fit, nil) }
        try checkMayChangeConfiguration(c, "saving a calibration")
        try takeChangeTurn(.notSaved)
        guard let file = options.calibrationFile else {
            throw RequestError(.notSaved, "the daemon keeps no state (no state folder: StateDirectory= under systemd, or --state-dir)")
        }
        let d = device.source.description
        let match = CalibrationFile.match(for: base, node: device.source.node, name: d.name, vendor: d.vendor, product: d.product)
        do {
            var saved = try CalibrationFile(readingFrom: file)
            saved.set(match, fit.matrix, note: "\(d.name): largest error \(calibrationNumber((fit.worstMillimeters * 100).rounded() / 100)) mm over \(r.points.count) touches, saved by uid \(c.uid)")
            let panel = CalibrationFile.PanelIdentity(node: device.source.node, name: d.name, vendor: d.vendor, product: d.product)
            try saved.write(to: file, entry: (match, panel), within: options.configPath.map { ($0, file) })
        } catch {
            throw RequestError(.notSaved, error.description)
        }
        log.notice("\(c.label): saved \(d.name)'s calibration \(fit.matrix) to \(file)")
        reload(&state)
        if let e = lastReloadError { throw RequestError(.notSaved, "saved, but the reload refused the configuration: \(e)") }
        // A drop-in (the admin's, read after the daemon's own file) may set this panel's
        // calibration too: then it is the one that applies, and the client is told.
        if let k = state.devices.index(of: r.device), devices.geometry(of: state.devices.all[k].source).calibration != fit.matrix {
            throw RequestError(.notSaved, "saved in \(file), but a drop-in in \(ConfigLoader.dropInFolder(of: options.configPath ?? "")) sets this panel's calibration after it: remove it there (the admin's files have the last word)")
        }
        return (fit, file)
    }

    /// The reply's fields: the matrix and each touch's residual.
    func writeFit(_ fit: CalibrationFit, saved: String?) {
        writer.key("calibration")
        writer.value(.array(fit.matrix.map { .number($0) }))
        writer.key("residual_px")
        writer.value(.array(fit.residualPixels.map { .number(($0 * 100).rounded() / 100) }))
        writer.key("residual_mm")
        writer.value(.array(fit.residualMillimeters.map { .number(($0 * 100).rounded() / 100) }))
        writer.field("worst_mm", fit.worstMillimeters, decimals: 2)
        writer.field("rms_mm", fit.rmsMillimeters, decimals: 2)
        if let saved { writer.field("saved", saved) }
    }
}
