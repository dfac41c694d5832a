/// Touch to wake's state (`[idle]`), read by the route's wake stage: whether the kiosk sleeps
/// (`[idle] after` passed, set by the idle watch), and the displays watched for darkness
/// (`[idle] display`; nil: not watched).
struct WakeWatch {
    var asleep = false { didSet { flags.asleep.store(asleep, ordering: .relaxed) } }
    /// The displays watched, kept in `flags` (the input thread decides a threaded panel's wake).
    var display: DisplayWatch? {
        get { flags.display.withLock { $0 } }
        set {
            flags.display.withLock { $0 = newValue }
            watchesDisplay = newValue != nil
        }
    }
    /// `display != nil`, kept as a flag: asked on each landing, where asking the optional copied
    /// the watch (its arrays retained).
    private(set) var watchesDisplay = false
    /// The same, shared with the input thread (`ThreadedPanel`).
    let flags = WakeFlags()

    /// The displays read dark now (sysfs, read fresh).
    mutating func displayIsDark() -> Bool { flags.displayIsDark() }
}
