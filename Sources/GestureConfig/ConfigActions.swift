import GestureEngine
import SystemCalls
import TouchFrames

#if canImport(Glibc)
    import Glibc
#endif

/// `[[action]]` tables (docs/CONFIG.md, "Actions"). Everything that can be checked when the file
/// is read is: the gesture it is bound to exists (with that region, phase, direction, edge), key
/// names are the kernel's, the command is an absolute path to an executable file.
extension Loader {
    static let actionKeys = [
        "name", "gesture", "region", "fingers", "direction", "edge", "shape", "phase", "keys", "exec", "keyboard", "cooldown", "timeout", "on",
    ]
    /// Keys in one chord: more is no chord a person could press.
    static let maxChordKeys = 8

    /// `idleAfter`: `[idle] after` in seconds (0: off), which `on = "idle"` actions need;
    /// `on = "wake"` ones need it or `[idle] display` (a touch on a dark display wakes).
    func readActions(_ scopes: [Scope], _ engine: EngineConfiguration, idleAfter: Double, displayWakes: Bool) throws(ConfigError) -> [Action] {
        let compiled = CompiledConfiguration(engine)
        var actions: [Action] = []
        for a in scopes {
            try a.checkKeys(Self.actionKeys)
            guard let name = try a.string("name") else { throw a.fail(nil, "an [[action]] needs a 'name'") }
            try checkName(name, a, "action")
            if actions.contains(where: { $0.name == name }) { throw a.fail("name", "two actions are named '\(name)'") }
            if let moment = try a.choice("on", Action.Moment.self) {
                actions.append(try readMomentAction(a, name, moment, idleAfter: idleAfter, displayWakes: displayWakes))
                continue
            }
            guard let gesture = try a.string("gesture") else {
                throw a.fail(nil, "action '\(name)' needs 'gesture': a kind (tap, swipe, ...), a gesture's name, or \"region/name\"")
            }
            let region = try a.string("region")
            if let region, !engine.regions.contains(where: { $0.name == region }) {
                throw a.fail("region", "action '\(name)': no region '\(region)' (regions: \(engine.regions.map(\.name).joined(separator: ", ")))")
            }
            let probe = Action(name: name, gesture: gesture, region: region, phase: .recognized, effect: .exec([]))
            let bound = ActionTable.bound(probe, compiled).map { compiled.gestures[$0] }
            guard let first = bound.first else {
                let inRegion = region.map { " in region '\($0)'" } ?? ""
                throw a.fail("gesture", "action '\(name)': no gesture '\(gesture)'\(inRegion) (a kind, a gesture's name, or \"region/name\")")
            }
            let discrete = first.spec.kind.isDiscrete
            guard bound.allSatisfy({ $0.spec.kind.isDiscrete == discrete }) else {
                throw a.fail("gesture", "action '\(name)': '\(gesture)' names both tap/swipe gestures and continuous ones; name one region/gesture")
            }
            let phase = try readPhase(a, name, discrete: discrete)
            let direction = try a.choice("direction", SwipeDirection.self)
            if let direction {
                let swipes = bound.filter { $0.spec.kind == .swipe }
                guard !swipes.isEmpty else { throw a.fail("direction", "action '\(name)': 'direction' is for swipes, and '\(gesture)' is no swipe") }
                guard swipes.contains(where: { Self.reports(direction, $0.spec) }) else {
                    let takes = swipes.map { s in "\(s.qualifiedName): \(SwipeDirection.allCases.filter { Self.reports($0, s.spec) }.map(\.rawValue).joined(separator: ", "))" }
                    throw a.fail("direction", "action '\(name)': no '\(gesture)' swipe reports '\(direction.rawValue)' (\(takes.joined(separator: "; "))); a diagonal needs sectors = 8")
                }
            }
            let edge = try a.choice("edge", ScreenEdge.self)
            if let edge {
                let swipes = bound.filter { $0.spec.kind == .edgeSwipe }
                guard !swipes.isEmpty else { throw a.fail("edge", "action '\(name)': 'edge' is for edge swipes, and '\(gesture)' is no edge swipe") }
                guard swipes.contains(where: { $0.spec.edges.isEmpty || $0.spec.edges.contains(edge) }) else {
                    let takes = swipes.map { s in "\(s.qualifiedName): \(ScreenEdge.allCases.filter { s.spec.edges.contains($0) }.map(\.rawValue).joined(separator: ", "))" }
                    throw a.fail("edge", "action '\(name)': no '\(gesture)' edge swipe starts from the \(edge.rawValue) edge (\(takes.joined(separator: "; ")))")
                }
            }
            let shape = try a.string("shape")
            if let shape {
                let strokes = bound.filter { $0.spec.kind == .stroke }
                guard !strokes.isEmpty else { throw a.fail("shape", "action '\(name)': 'shape' is for strokes, and '\(gesture)' is no stroke") }
                let shapes = Set(strokes.flatMap { $0.spec.shapes.isEmpty ? compiled.shapeNames : $0.spec.shapes })
                guard shapes.contains(shape) else {
                    throw a.fail("shape", "action '\(name)': no '\(gesture)' stroke takes the shape '\(shape)' (it takes: \(shapes.sorted().joined(separator: ", ")))")
                }
            }
            let fingers = try a.integer("fingers", in: 1...10)
            if let fingers, !bound.contains(where: { ($0.spec.minFingers...$0.spec.maxFingers).contains(fingers) }) {
                let takes = bound.map { "\($0.qualifiedName): \($0.spec.minFingers == $0.spec.maxFingers ? "\($0.spec.minFingers)" : "\($0.spec.minFingers)-\($0.spec.maxFingers)")" }
                throw a.fail("fingers", "action '\(name)': no '\(gesture)' gesture takes \(fingers) fingers (\(takes.joined(separator: ", "))); declare one with fingers = \(fingers)")
            }
            let effect = try readEffect(a, name)
            let cooldown = try a.integer("cooldown", in: 0...3_600_000) ?? 0
            let timeout = try a.integer("timeout", in: 1...86_400_000)
            try Self.checkTimeout(timeout, effect, a, name)
            actions.append(
                Action(
                    name: name, gesture: gesture, region: region, fingers: fingers,
                    direction: direction, edge: edge, shape: shape, phase: phase, effect: effect, cooldown: .milliseconds(cooldown),
                    timeout: .milliseconds(timeout ?? 10_000), line: a.table.line))
        }
        return actions
    }

    /// Does a swipe of `spec` ever report `d`? Its sectors (four: no diagonal) and its directions.
    static func reports(_ d: SwipeDirection, _ spec: GestureSpec) -> Bool {
        let diagonal = [.upLeft, .upRight, .downLeft, .downRight].contains(d)
        return (spec.directionCount == 8 || !diagonal) && (spec.directions.isEmpty || spec.directions.contains(d))
    }

    /// An action fired `on` idle or wake: no gesture, nothing that selects one.
    private func readMomentAction(
        _ a: Scope, _ name: String, _ moment: Action.Moment, idleAfter: Double, displayWakes: Bool
    ) throws(ConfigError) -> Action {
        for key in ["gesture", "region", "fingers", "direction", "edge", "shape", "phase"] where a.table[key] != nil {
            throw a.fail(key, "action '\(name)' fires on \(moment.rawValue), not on a gesture: '\(key)' does not apply")
        }
        guard idleAfter > 0 || (moment == .wake && displayWakes) else {
            throw a.fail("on", "action '\(name)' fires on \(moment.rawValue), but the kiosk never goes idle: set [idle] after (seconds)")
        }
        let effect = try readEffect(a, name)
        let cooldown = try a.integer("cooldown", in: 0...3_600_000) ?? 0
        let timeout = try a.integer("timeout", in: 1...86_400_000)
        try Self.checkTimeout(timeout, effect, a, name)
        return Action(
            name: name, gesture: "", phase: .recognized, effect: effect, cooldown: .milliseconds(cooldown),
            timeout: .milliseconds(timeout ?? 10_000), line: a.table.line, on: moment)
    }

    private func readPhase(_ a: Scope, _ name: String, discrete: Bool) throws(ConfigError) -> GesturePhase {
        guard let s = try a.string("phase") else { return discrete ? .recognized : .began }
        switch (s, discrete) {
        case ("recognized", true): return .recognized
        case ("began", false): return .began
        case ("ended", false): return .ended
        case (_, true):
            throw a.fail("phase", "action '\(name)': a tap, a swipe or a stroke fires at \"recognized\", found \"\(s)\"")
        case (_, false):
            throw a.fail("phase", "action '\(name)': 'phase' must be \"began\" or \"ended\" for this gesture, found \"\(s)\"")
        }
    }

    private static func checkTimeout(_ timeout: Int?, _ effect: Action.Effect, _ a: Scope, _ name: String) throws(ConfigError) {
        guard timeout != nil else { return }
        if case .exec = effect { return }
        throw a.fail("timeout", "action '\(name)': 'timeout' is for exec actions")
    }

    private func readEffect(_ a: Scope, _ name: String) throws(ConfigError) -> Action.Effect {
        let keys = try a.string("keys")
        let argv = try a.strings("exec")
        if let command = try a.choice("keyboard", Action.KeyboardCommand.self) {
            guard keys == nil && argv == nil else {
                throw a.fail("keyboard", "action '\(name)' needs exactly one of 'keys', 'exec' and 'keyboard'")
            }
            return .keyboard(command)
        }
        switch (keys, argv) {
        case (nil, nil), (.some, .some):
            throw a.fail(nil, "action '\(name)' needs exactly one of 'keys' (a chord such as \"KEY_LEFTALT+KEY_LEFT\"), 'exec' (an argv) and 'keyboard' (\"show\", \"hide\", \"toggle\")")
        case (let keys?, nil):
            let names = keys.split(separator: "+", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
            guard !names.isEmpty, names.count <= Self.maxChordKeys else {
                throw a.fail("keys", "action '\(name)': a chord has 1 to \(Self.maxChordKeys) keys, found \(names.count)")
            }
            var codes: [UInt16] = []
            for n in names {
                guard let code = KeyCodes.byName[n] else {
                    throw a.fail("keys", "action '\(name)': unknown key '\(n)' (names as in linux/input-event-codes.h: KEY_A, KEY_LEFTALT, KEY_F5, KEY_BACK, ...)")
                }
                guard !codes.contains(code) else { throw a.fail("keys", "action '\(name)': '\(n)' is twice in the chord") }
                codes.append(code)
            }
            return .keys(codes, names: names)
        case (nil, let argv?):
            guard let program = argv.first, !program.isEmpty else { throw a.fail("exec", "action '\(name)': 'exec' is empty") }
            guard program.hasPrefix("/") else {
                throw a.fail("exec", "action '\(name)': '\(program)' is a relative path; give the program's absolute path (no shell, no PATH search)")
            }
            // (Before any system call: a NUL would cut the path or an argument where C reads it.)
            guard !argv.contains(where: { $0.utf8.contains(0) }) else { throw a.fail("exec", "action '\(name)': an argument holds a NUL byte") }
            if let e = Posix.access(program, X_OK) {
                throw a.fail("exec", "action '\(name)': '\(program)' is not an executable file: \(e.reason)")
            }
            if let why = unsafeProgram(program) { throw a.fail("exec", "action '\(name)': '\(program)' \(why)") }
            return .exec(argv)
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }

}

/// Why `program` may not be run for an action, or nil: not a regular file (a directory passes
/// `access(X_OK)`), or one that others could replace: writable by anyone, or in a directory
/// anyone may write to without the sticky bit (the daemon would run what they put there).
private func unsafeProgram(_ program: String) -> String? {
    let st: FileStatus
    switch Posix.status(program) {
    case .success(let s): st = s
    case .failure(let e): return "cannot be read: \(e.reason)"
    }
    guard st.isRegular else { return "is not a regular file" }
    return replaceableByOthers(program, st).map { "\($0): anyone could change what the action runs" }
}

/// How anyone could change the file at `path` (status `st`, its links followed), or nil: it is
/// writable by anyone, or it lies in a directory anyone may write to without the sticky bit
/// (anyone could put another file in its place), on its own path or, through a symbolic link,
/// on the path it resolves to. A file that can fire an action (a program, a shape) must be
/// neither.
func replaceableByOthers(_ path: String, _ st: FileStatus) -> String? {
    if st.permissions & 0o002 != 0 { return "is writable by anyone" }
    if let why = inDirectoryAnyoneWrites(path) { return why }
    if let why = linkAnyoneCouldRepoint(path) { return why }
    guard case .success(let real) = Posix.realPath(path) else { return "cannot be resolved" }
    return real == path ? nil : inDirectoryAnyoneWrites(real).map { "leads to '\(real)', which \($0)" }
}

/// The first symbolic link on the way to `path` (a folder's or the file's, one leading to
/// another) that lies in a folder anyone may write to without the sticky bit, as "leads
/// through 'LINK', which is in 'DIR', …": anyone could point it elsewhere. The path is walked a
/// name at a time as the kernel does (at most 40 links), from the working folder when relative.
private func linkAnyoneCouldRepoint(_ path: String) -> String? {
    var pending = path.split(separator: "/").map(String.init)
    var resolved = ""
    if !path.hasPrefix("/"), case .success(let here) = Posix.realPath(".") { resolved = here == "/" ? "" : here }
    var links = 0
    while !pending.isEmpty {
        let name = pending.removeFirst()
        if name == "." { continue }
        if name == ".." {
            resolved = String(resolved[..<(resolved.lastIndex(of: "/") ?? resolved.startIndex)])
            continue
        }
        let next = resolved + "/" + name
        guard case .success(let s) = Posix.status(next, followingLinks: false), s.kind == .symbolicLink,
            case .success(let target) = Posix.readLink(next)
        else {
            resolved = next
            continue
        }
        links += 1
        guard links <= 40 else { return nil }
        if let why = inDirectoryAnyoneWrites(next) { return "leads through '\(next)', which \(why)" }
        pending = target.split(separator: "/").map(String.init) + pending
        if target.hasPrefix("/") { resolved = "" }
    }
    return nil
}

/// "is in 'DIR', which anyone may write to" for the first directory above `path` that anyone
/// may write to without the sticky bit, or nil.
private func inDirectoryAnyoneWrites(_ path: String) -> String? {
    var dir = path
    while let slash = dir.lastIndex(of: "/"), slash != dir.startIndex {
        dir = String(dir[..<slash])
        guard case .success(let d) = Posix.status(dir) else { continue }
        // Written by others (0o002), without the sticky bit (0o1000).
        if d.permissions & 0o002 != 0 && d.permissions & 0o1000 == 0 { return "is in '\(dir)', which anyone may write to" }
    }
    return nil
}
