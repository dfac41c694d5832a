/// Touch to wake's state (`[idle]`), read by the route's wake stage: whether the kiosk sleeps
/// (`[idle] after` passed, set by the idle watch), and the displays watched for darkness
/// (`[idle] display`; nil: not watched).
struct WakeWatch {
    var asleep = false { didSet { flags.asleep.store(asleep, ordering: .relaxed) } }
    var display: DisplayWatch? {
        didSet {
            watchesDisplay = display != nil
            flags.watchesDisplay.store(watchesDisplay, ordering: .relaxed)
        }
    }
    /// The same, for the panels' threads (`ThreadedPanel`: a landing that may wake the kiosk is
    /// left to the loop).
    let flags = WakeFlags()
    /// `display != nil`, kept as a flag: asked on each landing, where asking the optional copied
    /// the watch (its arrays retained).
    private(set) var watchesDisplay = false

    /// The displays read dark now (sysfs, read fresh).
    mutating func displayIsDark() -> Bool { display?.isDark() == true }
}
