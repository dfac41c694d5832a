import GestureEngine
import GestureProtocol
import TouchFrames

/// What `stats` says of each touch panel (docs/PROTOCOL.md, `panels`), for fleet health: is it
/// there, when did it last see a finger, how often did it lose events or fail. Kept per panel
/// (name, vendor:product, node) after the panel goes: an unplugged touchscreen reads `up: false`
/// (and a replugged one continues its counters) instead of vanishing, so "touchscreen missing" is
/// a value to alert on, not an absent series.
struct PanelHealth {
    struct Key: Hashable {
        var name: String
        var vendor: UInt16
        var product: UInt16
        var node: String
    }

    var key: Key
    var up = true
    /// CLOCK_MONOTONIC of the loop turn that read its last frame.
    var lastFrameAt: Int64?
    /// The same for its last frame with a touch in it as the filters show it (or the lift of
    /// one): frames of contacts the filters hide (stuck, in a dead zone, a ghost) touch no one,
    /// keep no kiosk awake and are no sign of a working panel (`last_frame_age`, touch to wake).
    var lastTouchAt: Int64?
    var frames = 0
    var events = 0
    var resyncs = 0
    var errors = 0
    var removals = 0
    /// What its filters did while it was open before (a replugged panel's earlier life, or a
    /// removed one's); the open decoder's own are added to it when asked (`panels(in:)`).
    var filtered = FilterCounts()

    init(_ key: Key) { self.key = key }

    func snapshot(now: Int64) -> StatsSnapshot.Panel {
        var p = StatsSnapshot.Panel()
        p.name = key.name
        p.vendor = DeviceDescription.hex4(key.vendor)
        p.product = DeviceDescription.hex4(key.product)
        p.node = key.node
        p.up = up
        p.lastFrameAge = lastTouchAt.map { Double(now - $0) / 1e9 }
        p.counters.frames = frames
        p.counters.events = events
        p.counters.resyncs = resyncs
        p.counters.errors = errors
        p.counters.removals = removals
        (p.counters.filteredGhosts, p.counters.filteredChatter, p.counters.filteredStuck, p.counters.filteredDeadZone) =
            (filtered.ghosts, filtered.chatter, filtered.stuck, filtered.deadZone)
        p.counters.filteredContactLimit = filtered.contactLimit
        return p
    }
}

/// The panels that went, newest last; at most `capacity` (the oldest are forgotten), so a hotplug
/// storm of virtual devices cannot grow it without bound.
struct GonePanels {
    static let capacity = 64
    private(set) var all: [PanelHealth] = []

    /// A panel comes back: its entry, taken out of the gone ones, on the same node or, replugged
    /// onto another (`event5` comes back as `event6`), the one gone panel of its name, vendor and
    /// product, now under its new node (of two such gone, which is which cannot be told: a new
    /// entry).
    mutating func take(_ key: PanelHealth.Key) -> PanelHealth? {
        let same = { (k: PanelHealth.Key) in k.name == key.name && k.vendor == key.vendor && k.product == key.product }
        let alike = all.indices.filter { same(all[$0].key) }
        guard let i = all.firstIndex(where: { $0.key == key }) ?? (alike.count == 1 ? alike[0] : nil) else { return nil }
        var h = all.remove(at: i)
        h.key = key
        return h
    }

    mutating func add(_ h: PanelHealth) {
        all.removeAll { $0.key == h.key }
        all.append(h)
        if all.count > Self.capacity { all.removeFirst(all.count - Self.capacity) }
    }
}

/// Gesture lines by kind and phase, in place (a line counts with no allocation and no
/// uniqueness check: the counts are the value's own storage).
struct GestureCounts {
    /// Room for seven kinds × five phases (a test says they fit).
    private typealias Storage = InlineArray<35, Int>
    static var slots: Int { Storage.count }
    private var counts = Storage(repeating: 0)

    static func phaseIndex(_ p: GesturePhase) -> Int {
        switch p {
        case .began: return 0
        case .changed: return 1
        case .ended: return 2
        case .cancelled: return 3
        case .recognized: return 4
        }
    }

    static func kindIndex(_ k: GestureKind) -> Int {
        switch k {
        case .tap: return 0
        case .longPress: return 1
        case .pan: return 2
        case .swipe: return 3
        case .pinch: return 4
        case .edgeSwipe: return 5
        case .stroke: return 6
        }
    }

    mutating func add(_ kind: GestureKind, _ phase: GesturePhase) { counts[Self.kindIndex(kind) * 5 + Self.phaseIndex(phase)] += 1 }

    /// The kinds and phases seen, in a fixed order.
    var snapshot: [StatsSnapshot.GestureCount] {
        let phases: [GesturePhase] = [.began, .changed, .ended, .cancelled, .recognized]
        var out: [StatsSnapshot.GestureCount] = []
        for k in GestureKind.allCases {
            let row = Self.kindIndex(k) * 5
            for p in phases where counts[row + Self.phaseIndex(p)] > 0 {
                out.append(.init(kind: k.rawValue, phase: p.rawValue, count: counts[row + Self.phaseIndex(p)]))
            }
        }
        return out
    }
}
