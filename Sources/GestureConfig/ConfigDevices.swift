import TouchFrames

/// What the configuration says of one input device, as the daemon applies it when the device
/// comes (DeviceLifecycle): whether it is ignored, and the geometry it gets. `devices --local`
/// and `calibrate --node` read a device with the same rules, so what they show is what the
/// daemon will use.
extension Configuration {
    /// `[daemon] ignore_devices`: the pattern that excludes the device (a node path,
    /// `vvvv:pppp`, or a glob on the name), said as a reason; nil when none does.
    public func ignoreReason(path: String, _ d: DeviceDescription) -> String? {
        daemon.ignoreDevices.first {
            devicePatternMatches($0, path: path, name: d.name, vendor: d.vendor, product: d.product)
        }.map { "config ignore_devices \"\($0)\"" }
    }

    /// The geometry of device `d` at `path`: its `[[panel]]`'s (else `[device]`'s), with udev's
    /// LIBINPUT_CALIBRATION_MATRIX (`systemCalibration`) where the configuration sets none, and
    /// udev's size (`systemSizeMM`: the axis resolution's as input_id measured it, or an
    /// admin's rule) only where the configuration gives no size and the axes report no
    /// resolution. `ScreenGeometry` then ranks a `[[panel]]`'s size over the axes' resolution,
    /// and that over a size given for every panel.
    public func geometry(
        of d: DeviceDescription, path: String, systemSizeMM: (width: Double, height: Double)?, systemCalibration: [Double]?
    ) -> GeometryConfiguration {
        var g = geometry(path: path, name: d.name, vendor: d.vendor, product: d.product)
        if !g.calibrationIsSet, let m = systemCalibration { g.calibration = m }
        if g.widthMM == nil, d.positionAxes.map({ $0.x.resolution <= 0 || $0.y.resolution <= 0 }) ?? true, let size = systemSizeMM {
            (g.widthMM, g.heightMM) = (size.width, size.height)
        }
        return g
    }
}
