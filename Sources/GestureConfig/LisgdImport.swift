import GestureEngine

/// `touchgesturectl import lisgd -- ARGS`: a lisgd command line as a touchgestured config.
///
/// Every `-g nfingers,gesture,edge,distance[,actmode],command` becomes a swipe (in the region of
/// its edge) with an exec action running the command through `/bin/sh -c`, as lisgd runs it.
/// lisgd's gestures are the swipes LR RL DU UD and the diagonals DLUR DRUL URDL ULDR; its edges
/// (* N L R T B TL TR BL BR) become regions along the screen's sides and corners, as wide as
/// lisgd's edge size (50 px), since lisgd's edge gestures are swipes that start there; N (none) is
/// the screen outside them. `-w -h` give the screen, `-o` the rotation, `-t` the swipe's least
/// distance, `-m` its longest duration. What has no equivalent is said in `notes`.
public struct LisgdImport {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// The config text (TOML), and what could not be carried over (for stderr).
    public private(set) var config = ""
    public private(set) var notes: [String] = []

    /// lisgd's edge size (config.h `edgesize*`, 50 px; no flag changes it).
    static let edgeSize = 50.0
    /// lisgd's default screen when neither -w/-h nor a display says otherwise.
    static let defaultScreen = (width: 1920.0, height: 1080.0)
    /// lisgd's thresholds are screen pixels; touchgestured's are mm. Assumed: 96 dpi.
    static let millimetresPerPixel = 25.4 / 96
    /// lisgd's defaults when -t and -m are not given (its man page and config.def.h).
    static let defaultThreshold = 125.0
    static let defaultTimeout = 800.0

    struct Binding {
        var fingers: Int
        var direction: SwipeDirection
        var edge: String
        var distance: String
        var pressed: Bool
        var command: String
    }

    public init(arguments: [String]) throws(Failure) {
        var bindings: [Binding] = []
        var width: Double?, height: Double?
        var rotation = 0
        var threshold: Double?, timeout: Double?
        var i = 0
        func value(_ flag: String) throws(Failure) -> String {
            i += 1
            guard i < arguments.count else { throw Failure("lisgd option \(flag) needs a value") }
            return arguments[i]
        }
        // Each within the range the config it becomes takes (a screen of 65536 px at most, a
        // swipe_min_distance of 2 m at 96 dpi, a swipe_max_duration from 10 ms to a minute).
        func number(_ flag: String, _ range: ClosedRange<Double>, _ unit: String) throws(Failure) -> Double {
            let v = try value(flag)
            guard let d = Double(v), d.isFinite else { throw Failure("lisgd option \(flag): '\(v)' is not a number") }
            guard range.contains(d) else {
                throw Failure("lisgd option \(flag) takes \(format(range.lowerBound)) to \(format(range.upperBound)) \(unit), found \(v)")
            }
            return d
        }
        while i < arguments.count {
            let a = arguments[i]
            switch a {
            case "-g": bindings.append(try Self.binding(try value(a)))
            case "-d":
                notes.append("-d \(try value(a)): touchgestured reads every touchscreen; to skip others, list them in [daemon] ignore_devices")
            case "-w": width = try number(a, 1...65_536, "px")
            case "-h": height = try number(a, 1...65_536, "px")
            case "-t": threshold = try number(a, 0...7_000, "px")
            case "-m": timeout = try number(a, 10...60_000, "ms")
            case "-o":
                let o = try number(a, 0...3, "")
                guard o == o.rounded(), (0...3).contains(o) else { throw Failure("lisgd option -o takes 0 to 3, found \(o)") }
                rotation = Int(o) * 90
            case "-T":
                notes.append("-T \(try value(a)): the pressed-mode threshold has no equivalent (swipes fire at the lift)")
            case "-r":
                notes.append("-r \(try value(a)): touchgestured's swipes divide directions into 4 sectors (8 with diagonals), not ± a leniency")
            case "-v": notes.append("-v: run touchgestured with --verbose for its transitions")
            default: throw Failure("unknown lisgd option '\(a)' (lisgd takes -d -g -t -T -m -o -w -h -r -v)")
            }
            i += 1
        }
        guard !bindings.isEmpty else { throw Failure("no -g gesture in the lisgd command line: nothing to import") }
        if width == nil || height == nil {
            notes.append("no -w/-h: the screen is taken as \(Int(Self.defaultScreen.width)) × \(Int(Self.defaultScreen.height)); edit [screen]")
        }
        let w = width ?? Self.defaultScreen.width, h = height ?? Self.defaultScreen.height
        notes.append(
            "-t \(Int(threshold ?? Self.defaultThreshold)) px\(threshold == nil ? " (lisgd's default)" : "") became swipe_min_distance in mm at 96 dpi; set [device] width_mm/height_mm and adjust it for your panel")
        if rotation != 0 {
            notes.append("-o \(rotation / 90) became [device] rotation = \(rotation); check the direction on the panel (lisgd turns gestures, touchgestured turns the panel's coordinates)")
        }
        for b in bindings where b.distance != "*" {
            notes.append("-g '\(b.fingers),…,\(b.distance),…': distance classes (S M L) have no equivalent; the action fires for any distance past swipe_min_distance")
        }
        for b in bindings where b.pressed {
            notes.append("-g '\(b.fingers),…,P,…': pressed mode has no equivalent; the action fires at the lift, as mode R")
        }
        config = Self.render(
            bindings, width: w, height: h, rotation: rotation, threshold: threshold ?? Self.defaultThreshold,
            timeout: timeout ?? Self.defaultTimeout)
    }

    static let directions: [String: SwipeDirection] = [
        "LR": .right, "RL": .left, "DU": .up, "UD": .down,
        "DLUR": .upRight, "DRUL": .upLeft, "URDL": .downLeft, "ULDR": .downRight,
    ]
    static let edges = ["*", "N", "L", "R", "T", "B", "TL", "TR", "BL", "BR"]

    /// One `-g` value: `nfingers,gesture,edge,distance[,actmode],command` (the command may hold
    /// commas), or lisgd's old `nfingers,gesture,command`.
    static func binding(_ spec: String) throws(Failure) -> Binding {
        let parts = spec.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, let fingers = Int(parts[0]), (1...10).contains(fingers) else {
            throw Failure("-g '\(spec)': expected nfingers,gesture,edge,distance[,actmode],command with 1 to 10 fingers")
        }
        guard let direction = directions[parts[1]] else {
            throw Failure("-g '\(spec)': unknown gesture '\(parts[1])' (LR RL DU UD DLUR DRUL URDL ULDR)")
        }
        // The old form: nfingers,gesture,command.
        if parts.count == 3 || !edges.contains(parts[2]) {
            return Binding(fingers: fingers, direction: direction, edge: "*", distance: "*", pressed: false, command: parts[2...].joined(separator: ","))
        }
        guard parts.count >= 5, ["*", "S", "M", "L"].contains(parts[3]) else {
            throw Failure("-g '\(spec)': distance must be * S M or L")
        }
        var rest = parts[4...]
        var pressed = false
        if let mode = rest.first, mode == "R" || mode == "P", rest.count > 1 {
            pressed = mode == "P"
            rest = rest.dropFirst()
        }
        let command = rest.joined(separator: ",")
        guard !command.isEmpty else { throw Failure("-g '\(spec)': the command is empty") }
        return Binding(fingers: fingers, direction: direction, edge: parts[2], distance: parts[3], pressed: pressed, command: command)
    }

    static let regionNames = [
        "L": "lisgd_left", "R": "lisgd_right", "T": "lisgd_top", "B": "lisgd_bottom",
        "TL": "lisgd_top_left", "TR": "lisgd_top_right", "BL": "lisgd_bottom_left", "BR": "lisgd_bottom_right",
    ]

    static func rect(_ edge: String, _ w: Double, _ h: Double) -> [Double] {
        let e = edgeSize
        switch edge {
        case "L": return [0, 0, e, h]
        case "R": return [w - e, 0, e, h]
        case "T": return [0, 0, w, e]
        case "B": return [0, h - e, w, e]
        case "TL": return [0, 0, e, e]
        case "TR": return [w - e, 0, e, e]
        case "BL": return [0, h - e, e, e]
        default: return [w - e, h - e, e, e]
        }
    }

    static func render(
        _ bindings: [Binding], width w: Double, height h: Double, rotation: Int, threshold: Double, timeout: Double
    ) -> String {
        func n(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
        func quoted(_ s: String) -> String {
            var out = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                default:
                    if u.value < 0x20 || u.value == 0x7f {
                        out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16)
                    } else {
                        out.unicodeScalars.append(u)
                    }
                }
            }
            return out + "\""
        }
        let mostFingers = bindings.map(\.fingers).max() ?? 1
        let diagonal = bindings.contains { ![.left, .right, .up, .down].contains($0.direction) }
        func swipe() -> String {
            "\n  [[region.gesture]]\n  kind = \"swipe\"\n  min_fingers = 1\n  max_fingers = \(mostFingers)\n" + (diagonal ? "  sectors = 8\n" : "")
        }
        var t = "# Made by touchgesturectl import lisgd. Each -g is a swipe with an exec action running its\n"
        t += "# command through /bin/sh -c, as lisgd does; lisgd's edges are regions along the sides.\n\n"
        t += "[screen]\nwidth = \(n(w))\nheight = \(n(h))\n"
        if rotation != 0 { t += "\n[device]\nrotation = \(rotation)\n" }
        let mm = (threshold * millimetresPerPixel * 10).rounded() / 10
        t += "\n[thresholds]\n"
        t += "swipe_min_distance = \(n(mm))   # lisgd -t \(n(threshold)) px at 96 dpi\n"
        t += "swipe_max_duration = \(n(timeout))   # lisgd -m \(n(timeout)) ms\n"
        t += "\n[[region]]\nname = \"screen\"\n" + swipe()
        var edgesUsed: [String] = []
        for b in bindings where b.edge != "*" && b.edge != "N" && !edgesUsed.contains(b.edge) { edgesUsed.append(b.edge) }
        // "N" (no edge) is the screen outside the four sides: they must be regions of their own.
        if bindings.contains(where: { $0.edge == "N" }) {
            for e in ["L", "R", "T", "B"] where !edgesUsed.contains(e) { edgesUsed.append(e) }
        }
        // Corners first: a corner lies inside two sides, and the smaller region is the inner one.
        for e in edgesUsed.sorted(by: { $0.count > $1.count }) {
            t += "\n[[region]]\nname = \"\(regionNames[e]!)\"\nrect = [\(rect(e, w, h).map(n).joined(separator: ", "))]\n" + swipe()
        }
        for (k, b) in bindings.enumerated() {
            t += "\n[[action]]\nname = \"lisgd_\(k + 1)\"\ngesture = \"swipe\"\n"
            switch b.edge {
            case "*": break
            case "N": t += "region = \"screen\"\n"
            default: t += "region = \"\(regionNames[b.edge]!)\"\n"
            }
            t += "fingers = \(b.fingers)\ndirection = \"\(b.direction.rawValue)\"\n"
            t += "exec = [\"/bin/sh\", \"-c\", \(quoted(b.command))]\n"
        }
        return t
    }
}
