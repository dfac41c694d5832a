/// Touch to wake's state (`[idle]`), read by the route's wake stage: whether the kiosk sleeps
/// (`[idle] after` passed, set by the idle watch), and the displays watched for darkness
/// (`[idle] display`; nil: not watched).
struct WakeWatch {
    var asleep = false
    var display: DisplayWatch? { didSet { watchesDisplay = display != nil } }
    /// `display != nil`, kept as a flag: asked on each landing, where asking the optional copied
    /// the watch (its arrays retained).
    private(set) var watchesDisplay = false

    /// The displays read dark now (sysfs, read fresh).
    mutating func displayIsDark() -> Bool { display?.isDark() == true }
}
