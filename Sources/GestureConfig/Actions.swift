import GestureEngine
import TouchFrames

/// One `[[action]]`: what a gesture does on the kiosk with no client to write: a key chord
/// through the daemon's virtual keyboard, a command, or the on-screen keyboard shown or hidden.
/// Only the config file declares actions; clients cannot. A reference type so that output items
/// carry it as one pointer.
public final class Action: Sendable, CustomStringConvertible {
    public enum Effect: Hashable, Sendable {
        /// Keys pressed in order and released in reverse (EV_KEY codes, with their names).
        case keys([UInt16], names: [String])
        /// A command and its arguments, run without a shell; argv[0] is an absolute path.
        case exec([String])
        /// A `keyboard` line to the clients (`touchgesturectl keyboard` shows or hides the
        /// on-screen keyboard it runs in the kiosk's session).
        case keyboard(KeyboardCommand)
    }

    /// What a `keyboard` action asks of the on-screen keyboard.
    public enum KeyboardCommand: String, CaseIterable, Hashable, Sendable {
        case show, hide, toggle
    }

    /// A moment of the kiosk's that fires an action instead of a gesture (`on`).
    public enum Moment: String, CaseIterable, Hashable, Sendable {
        /// Nobody touched the screen for `[idle] after` seconds (once, until the next touch).
        case idle
        /// The first touch after `idle` (its whole sequence is swallowed).
        case wake
    }

    public let name: String
    /// The gesture that fires it: a kind (`swipe`), a gesture's name, or `region/name`; empty
    /// for an action fired `on` a moment.
    public let gesture: String
    /// The moment that fires it instead of a gesture.
    public let on: Moment?
    /// Only gestures of this region (nil: any).
    public let region: String?
    public let fingers: Int?
    public let direction: SwipeDirection?
    public let edge: ScreenEdge?
    /// Only strokes of this shape (nil: any).
    public let shape: String?
    /// The phase that fires it: `recognized` for tap and swipe; `began` or `ended` for the others.
    public let phase: GesturePhase
    public let effect: Effect
    /// A firing within this long of the last one is skipped (gesture time).
    public let cooldown: Duration
    /// An exec action still running after this long gets SIGTERM, then SIGKILL.
    public let timeout: Duration
    /// Its `[[action]]` line in the file (for logs).
    public let line: Int

    public init(
        name: String, gesture: String, region: String? = nil, fingers: Int? = nil, direction: SwipeDirection? = nil,
        edge: ScreenEdge? = nil, shape: String? = nil, phase: GesturePhase, effect: Effect, cooldown: Duration = .zero,
        timeout: Duration = .seconds(10), line: Int = 0, on: Moment? = nil
    ) {
        self.shape = shape
        self.name = name
        self.gesture = gesture
        self.on = on
        self.region = region
        self.fingers = fingers
        self.direction = direction
        self.edge = edge
        self.phase = phase
        self.effect = effect
        self.cooldown = cooldown
        self.timeout = timeout
        self.line = line
    }

    public var kind: String {
        switch effect {
        case .keys: return "keys"
        case .exec: return "exec"
        case .keyboard: return "keyboard"
        }
    }

    /// The chord as written (`KEY_LEFTALT+KEY_LEFT`), or the argv as a shell would read it back.
    public var description: String {
        switch effect {
        case .keys(_, let names): return names.joined(separator: "+")
        case .exec(let argv): return Self.quoted(argv)
        case .keyboard(let command): return command.rawValue
        }
    }

    /// A character that moves or turns a terminal's or a log's text: C0 and C1 controls, DEL,
    /// the line and paragraph separators, bidirectional overrides and isolates.
    static func steersText(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x20 || (0x7F...0x9F).contains(c.value) || c.value == 0x2028 || c.value == 0x2029
            || (0x202A...0x202E).contains(c.value) || (0x2066...0x2069).contains(c.value)
    }

    /// `argv` joined by spaces, a word that is empty or holds anything but letters, digits and
    /// `/._-+=:,@%` in single quotes (a quote in it as `'\''`), one with a character that steers
    /// text (a newline) as `$'…'` with `\n`, `\t`, `\xNN`, `\uNNNN`: `"two words"` and an empty
    /// argument read apart from two arguments and none, and no argument makes a log line of its own.
    public static func quoted(_ argv: [String]) -> String {
        argv.map { word in
            let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { c in
                (c.properties.isAlphabetic && c.isASCII) || ("0"..."9").contains(c) || "/._-+=:,@%".unicodeScalars.contains(c)
            }
            if plain { return word }
            guard word.unicodeScalars.contains(where: Self.steersText) else {
                return "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
            }
            var s = "$'"
            for c in word.unicodeScalars {
                switch c {
                case "\n": s += "\\n"
                case "\t": s += "\\t"
                case "\\", "'": s += "\\" + String(c)
                case _ where c.value < 0x100 && Self.steersText(c): s += "\\x" + (c.value < 16 ? "0" : "") + String(c.value, radix: 16)
                case _ where Self.steersText(c): s += "\\u" + String(repeating: "0", count: 4 - String(c.value, radix: 16).count) + String(c.value, radix: 16)
                default: s.unicodeScalars.append(c)
                }
            }
            return s + "'"
        }.joined(separator: " ")
    }

    /// Does this action fire for `event`, a gesture of `spec` in region `region`? (Which
    /// gesture and region it is bound to is resolved once, in `ActionTable`.)
    /// `shapeName`: a stroke's shape (`ActionTable.shapeName(of:)`).
    public func fires(for e: GestureEvent, shapeName: String? = nil) -> Bool {
        guard e.phase == phase else { return false }
        if let fingers, e.fingers != fingers { return false }
        if let direction, e.direction != direction { return false }
        if let edge, e.edge != edge { return false }
        if let shape, shapeName != shape { return false }
        return true
    }
}

/// The actions bound to each gesture of a compiled configuration, resolved once (by kind, name
/// or `region/name`, and region), so that an event finds its candidates with one array read.
/// Only the file's regions count: a client's regions (set_regions) never fire an action.
public struct ActionTable: Sendable {
    private let byGesture: [[Action]]
    private let shapeNames: [String]
    public let isEmpty: Bool

    /// `fileRegions`: the names of the config file's regions (the compiled configuration may
    /// hold clients' regions too).
    public init(_ actions: [Action], _ c: CompiledConfiguration, fileRegions: Set<String>) {
        var table = [[Action]](repeating: [], count: c.gestures.count)
        for a in actions {
            for g in Self.bound(a, c) where fileRegions.contains(c.regions[c.gestures[g].region].name) { table[g].append(a) }
        }
        byGesture = table
        isEmpty = actions.isEmpty
        shapeNames = c.shapeNames
    }

    /// A stroke event's shape name (nil for any other event).
    public func shapeName(of e: GestureEvent) -> String? {
        e.kind == .stroke && e.shape >= 0 && e.shape < shapeNames.count ? shapeNames[e.shape] : nil
    }

    /// The gestures `a` is bound to: those named `a.gesture` (or `region/name`) when there are
    /// any, else those of that kind; within `a.region` when it has one. So `tap` is the gesture
    /// named tap (not the double tap, also of kind tap), and `swipe` in a file whose swipes all
    /// have their own names is every swipe.
    public static func bound(_ a: Action, _ c: CompiledConfiguration) -> [Int] {
        let inRegion = c.gestures.indices.filter { a.region == nil || c.regions[c.gestures[$0].region].name == a.region }
        let named = inRegion.filter { c.gestures[$0].spec.name == a.gesture || c.gestures[$0].qualifiedName == a.gesture }
        if !named.isEmpty { return named }
        return inRegion.filter { c.gestures[$0].spec.kind.rawValue == a.gesture }
    }

    /// No action at all.
    public init() {
        byGesture = []
        shapeNames = []
        isEmpty = true
    }

    /// The actions bound to compiled gesture `g` (each says whether an event `fires` it).
    public func bound(to g: Int) -> [Action] { g < byGesture.count ? byGesture[g] : [] }
}

/// Each action's last firing, so one within its `cooldown` is skipped. Keyed by name, so a
/// reload that keeps an action keeps its cooldown running.
public struct ActionCooldowns: Sendable {
    private var last: [String: Timestamp] = [:]
    public init() {}

    /// Whether `a` may fire at `time`; if so, the firing is noted.
    public mutating func admit(_ a: Action, at time: Timestamp) -> Bool {
        if isCooling(a, at: time) { return false }
        note(a, at: time)
        return true
    }

    /// `a` fired less than its cooldown before `time`.
    public func isCooling(_ a: Action, at time: Timestamp) -> Bool {
        if let t = last[a.name], a.cooldown > .zero, time < t + a.cooldown { return true }
        return false
    }

    /// `a` ran at `time` (its cooldown starts): a firing that did not run (too many commands
    /// running) starts none.
    public mutating func note(_ a: Action, at time: Timestamp) { last[a.name] = time }
}
