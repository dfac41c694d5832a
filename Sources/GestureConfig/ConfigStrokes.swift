import GestureEngine

/// `[[stroke]]` tables: shape templates (docs/CONFIG.md, "Strokes"), in the configuration, a
/// drop-in, or a file `[strokes] include` names (what `touchgesturectl strokes learn` writes).
/// A template is a normalized path (`StrokeShape`): 64 numbers, x0, y0, x1, y1, ...
extension Loader {
    static let strokeKeys = ["name", "points", "rotation_invariant", "either_direction"]

    func readStrokes(_ top: Scope) throws(ConfigError) -> [StrokeTemplate] {
        if let s = try top.subtable("strokes") {
            try s.checkKeys(["include"])
            // Read by `ConfigLoader.load`, which merged the files' [[stroke]] tables in.
            _ = try s.strings("include")
        }
        return try Self.readStrokeTables(top)
    }

    /// The `[[stroke]]` tables of `top`, at most `ConfigLimits.strokes`.
    static func readStrokeTables(_ top: Scope) throws(ConfigError) -> [StrokeTemplate] {
        let scopes = try top.subtables("stroke", label: "[[stroke]]")
        if scopes.count > ConfigLimits.strokes {
            throw scopes[ConfigLimits.strokes].fail(nil, "more than \(ConfigLimits.strokes) stroke templates (the files together)")
        }
        var templates: [StrokeTemplate] = []
        for s in scopes { templates.append(try readStroke(s)) }
        return templates
    }

    static func readStroke(_ s: Scope) throws(ConfigError) -> StrokeTemplate {
        try s.checkKeys(strokeKeys)
        guard let name = try s.string("name") else { throw s.fail(nil, "a [[stroke]] needs a 'name' (the shape it is an example of)") }
        if let why = Loader.nameProblem(name, "shape") { throw s.fail("name", why) }
        guard let points = try s.numbers("points", count: StrokeShape.vectorLength) else {
            throw s.fail(nil, "a [[stroke]] needs 'points': \(StrokeShape.vectorLength) numbers, as `touchgesturectl strokes learn` writes them")
        }
        guard StrokeTemplate.isNormalized(points) else {
            throw s.fail("points", "'points' is no normalized path (centred on 0, of length 1): write it with `touchgesturectl strokes learn`")
        }
        return StrokeTemplate(
            name: name, vector: points, rotationInvariant: try s.bool("rotation_invariant") ?? false,
            eitherDirection: try s.bool("either_direction") ?? false)
    }

    /// A stroke gesture's `shapes`: names of templates or built-in shapes.
    func readShapes(_ g: Scope) throws(ConfigError) -> [String] {
        guard let shapes = try g.strings("shapes") else { return [] }
        let known = strokeNames + StrokeTemplate.builtIn.map(\.name)
        for shape in shapes where !known.contains(shape) {
            let list = known.isEmpty ? "none" : Array(Set(known)).sorted().joined(separator: ", ")
            throw g.fail("shapes", "no shape '\(shape)' (shapes: \(list); add templates with `touchgesturectl strokes learn`)")
        }
        return shapes
    }
}

/// Shape names, as `[[stroke]]` and the tools take them.
public enum ShapeName {
    /// What is wrong with `name` as a shape's name (nil: nothing).
    public static func problem(_ name: String) -> String? { Loader.nameProblem(name, "shape") }
}

/// Reading and writing a template file (`[[stroke]]` tables only).
public enum StrokeFile {
    /// The templates of a file; a file with anything else, or a bad template, is refused with
    /// its line.
    public static func read(_ path: String) throws(ConfigError) -> [StrokeTemplate] {
        var read = ConfigLoader.FilesRead(replacing: nil)
        return try templates(of: try read.tree(path), path: path)
    }

    static func templates(of tree: TOMLTable, path: String) throws(ConfigError) -> [StrokeTemplate] {
        let top = Scope(table: tree, file: path, name: "")
        try top.checkKeys(["stroke"])
        return try Loader.readStrokeTables(top)
    }

    /// A file's text holding `templates`.
    public static func text(_ templates: [StrokeTemplate]) -> String {
        "# Stroke templates (docs/CONFIG.md, \"Strokes\"), written by `touchgesturectl strokes learn`.\n" + tables(templates)
    }

    /// A template file's `text` with `templates` added after what it holds (its comments and
    /// layout kept), or nil where the result would not read back as its templates and these
    /// (`read` of it took `count`).
    public static func text(_ text: String, holding count: Int, adding templates: [StrokeTemplate]) -> String? {
        let joined = text + (text.isEmpty || text.hasSuffix("\n") ? "" : "\n") + tables(templates)
        guard let tree = try? parseTOML(joined), let all = try? Self.templates(of: tree, path: "-") else { return nil }
        return all.count == count + templates.count ? joined : nil
    }

    /// `[[stroke]]` tables holding `templates`, each after an empty line.
    static func tables(_ templates: [StrokeTemplate]) -> String {
        var out = ""
        for t in templates {
            out += "\n[[stroke]]\nname = \(quoted(t.name))\n"
            if t.rotationInvariant { out += "rotation_invariant = true\n" }
            if t.eitherDirection { out += "either_direction = true\n" }
            out += "points = [\n"
            var k = 0
            while k < t.vector.count {
                let row = t.vector[k..<min(k + 8, t.vector.count)].map { fixed($0) }
                out += "  " + row.joined(separator: ", ") + ",\n"
                k += 8
            }
            out += "]\n"
        }
        return out
    }

    /// A number with six decimals (a template's numbers are under 1 in size).
    static func fixed(_ v: Double) -> String {
        let scaled = Int64((v * 1_000_000).rounded())
        let sign = scaled < 0 ? "-" : ""
        let m = scaled.magnitude
        let frac = String(m % 1_000_000)
        return "\(sign)\(m / 1_000_000).\(String(repeating: "0", count: 6 - frac.count))\(frac)"
    }

    /// A TOML basic string (names hold no control character: `checkName`).
    static func quoted(_ s: String) -> String {
        "\"" + s.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"") + "\""
    }
}

extension String {
    fileprivate func replacingAll(_ a: Character, with b: String) -> String {
        var out = ""
        for c in self { if c == a { out += b } else { out.append(c) } }
        return out
    }
}
