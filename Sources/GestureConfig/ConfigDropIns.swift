import SystemCalls

/// Drop-ins: `touchgestured.d/*.toml` beside the configuration file (the file's name without
/// `.toml`, plus `.d`), read after it in the byte order of their names, so a tool (the
/// calibrator) or a package adds its part without rewriting the admin's file. Each is a TOML file
/// of the same schema, merged into what was read before it:
///
/// - a table's keys are merged one by one, a later file's value replacing an earlier one's;
/// - a `[[panel]]` whose `match` is already a panel's is merged into that panel (its other keys
///   kept); any other `[[panel]]`, `[[region]]` or `[[action]]` is added after those before it.
///
/// An error names the drop-in and its line, as one in the main file does.
extension ConfigLoader {
    /// The folder of `path`'s drop-ins: `/etc/touchgestured/touchgestured.toml` →
    /// `/etc/touchgestured/touchgestured.d`.
    public static func dropInFolder(of path: String) -> String {
        (path.hasSuffix(".toml") ? String(path.dropLast(5)) : path) + ".d"
    }

    /// The drop-ins of `path` that exist: `*.toml` (not hidden), sorted by name.
    public static func dropIns(of path: String) -> [String] { dropInListing(of: path).files }

    /// The drop-ins, and a sentence for each name left out because it is not UTF-8 (it could be
    /// named in no message, nor opened again by a String).
    static func dropInListing(of path: String) -> (files: [String], skipped: [String]) {
        let folder = dropInFolder(of: path)
        guard case .success(let listing) = Posix.listing(of: folder) else { return ([], []) }
        let files = listing.names.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { folder + "/" + $0 }
        let skipped = listing.undecodable.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }
            .map { "\(folder)/\($0): skipped, its name is not UTF-8 (rename it to read it)" }
        return (files, skipped)
    }

    /// Reads `path`, then `calibrations` when it exists (the daemon's saved calibrations,
    /// `CalibrationFile`: refused when it holds anything but `[[panel]]` match and calibration),
    /// then the drop-ins (`touchgestured.d/*.toml`) into one configuration. The drop-ins, the
    /// admin's and their tools', come last: what they set has the last word over a calibration a
    /// client saved.
    ///
    /// `replacing`: one file's bytes as they would be (a save checking the whole configuration
    /// before it writes), read in that file's place, and as a drop-in when it is one not yet on
    /// disk.
    public static func load(
        path: String, calibrations: String? = nil, replacing: (path: String, bytes: [UInt8])? = nil
    ) throws(ConfigError) -> Configuration {
        var read = FilesRead(replacing: replacing)
        let root = try read.tree(path)
        let emptyFile = root.keys.isEmpty
        var files = [path]
        if let calibrations, replacing?.path == calibrations || (try? Posix.status(calibrations, followingLinks: false).get()) != nil {
            // The daemon's own file: a link there is someone's way to have another file read.
            let extra = try read.tree(calibrations, followingLinks: false)
            if let why = CalibrationFile.notOnlyCalibrations(extra) { throw ConfigError(file: calibrations, line: 1, reason: why) }
            root.merge(extra, from: calibrations)
            files.append(calibrations)
        }
        var dropIns = dropInListing(of: path)
        if let new = replacing?.path, !dropIns.files.contains(new), new.hasPrefix(dropInFolder(of: path) + "/"), isDropInName(new) {
            dropIns.files = (dropIns.files + [new]).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        }
        if dropIns.files.count > ConfigLimits.dropIns {
            throw ConfigError(file: dropIns.files[ConfigLimits.dropIns], line: 1, reason: "more than \(ConfigLimits.dropIns) drop-ins in \(dropInFolder(of: path))")
        }
        for dropIn in dropIns.files {
            let extra = try read.tree(dropIn)
            root.merge(extra, from: dropIn)
            files.append(dropIn)
        }
        try includeStrokes(root, &read, files: &files)
        var loader = Loader(file: path)
        var c = try loader.load(root)
        c.files = files
        c.notices = dropIns.skipped + loader.regionNotices + c.engine.shadows.map { loader.located($0.region, $0.gesture, $0.warning) }
        // A file emptied by accident (a failed copy, an editor's crash) reloads as the built-in
        // configuration: said, where no drop-in holds the settings instead.
        // (A saved calibration is the daemon's, not a setting: it does not count.)
        if emptyFile && dropIns.files.isEmpty {
            c.notices.insert("\(path):1: no setting in the file or its drop-ins: the built-in configuration applies (a 1920 × 1080 screen, one full-screen region with the standard gestures)", at: 0)
        }
        return c
    }

    /// The built-in configuration with the daemon's saved calibrations (`calibrations`, when it
    /// exists): a daemon run without a file of the admin's.
    public static func builtIn(calibrations: String) throws(ConfigError) -> Configuration {
        guard (try? Posix.status(calibrations, followingLinks: false).get()) != nil else { return .standard }
        var read = FilesRead(replacing: nil)
        let root = try read.tree(calibrations, followingLinks: false)
        if let why = CalibrationFile.notOnlyCalibrations(root) { throw ConfigError(file: calibrations, line: 1, reason: why) }
        var loader = Loader(file: calibrations)
        var c = try loader.load(root)
        (c.files, c.source) = ([calibrations], "built-in")
        return c
    }

    /// `[strokes] include`: template files (`[[stroke]]` tables only, checked on their own first),
    /// merged in as drop-ins are; a relative path is from the folder of the file that names it.
    static func includeStrokes(_ root: TOMLTable, _ read: inout FilesRead, files: inout [String]) throws(ConfigError) {
        guard case .table(let t)? = root["strokes"], t["include"] != nil else { return }
        let declaring = t.file(of: "include") ?? files[0]
        let scope = Scope(table: t, file: declaring, name: "[strokes]")
        guard let list = try scope.strings("include") else { return }
        guard list.count <= ConfigLimits.strokeFiles else {
            throw scope.fail("include", "'include' names \(list.count) files; \(ConfigLimits.strokeFiles) at most")
        }
        let folder = declaring.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var seen: Set<String> = []
        for name in list {
            let path = Self.plainPath(name.hasPrefix("/") ? name : (folder.isEmpty ? "." : folder) + "/" + name)
            guard seen.insert(path).inserted else { throw scope.fail("include", "'include' names \(path) twice") }
            // A shape can fire an action: its file must be the admin's, as a program's is.
            if case .success(let st) = Posix.status(path), let why = replaceableByOthers(path, st) {
                throw scope.fail("include", "\(path) \(why): anyone could redefine a shape that fires an action")
            }
            // A file that cannot be read is named at the line that includes it.
            let text: [UInt8]
            do {
                text = try read.text(path)
            } catch {
                throw scope.fail("include", "\(path) cannot be read: \(error.reason)")
            }
            let tree = try read.tree(text, path)
            _ = try StrokeFile.templates(of: tree, path: path)
            root.merge(tree, from: path)
            files.append(path)
        }
    }

    /// `path` without its `.` parts and doubled slashes (`a/./b//c` → `a/b/c`), so one file is
    /// named one way.
    static func plainPath(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    static func isDropInName(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(".toml") && !name.hasPrefix(".")
    }

    /// The files one load reads, their bytes counted against `bytesInAll`.
    struct FilesRead {
        let replacing: (path: String, bytes: [UInt8])?
        var bytes = 0

        /// One file's TOML tree; a file that cannot be read, is too large (alone, or with the
        /// files before it), is not TOML or holds more than `panelsPerFile` panels is refused
        /// with its name.
        mutating func tree(_ path: String, followingLinks: Bool = true) throws(ConfigError) -> TOMLTable {
            let text: [UInt8]
            do {
                text = try self.text(path, followingLinks: followingLinks)
            } catch {
                throw ConfigError(file: path, line: 1, reason: "cannot read it: \(error.reason)")
            }
            return try tree(text, path)
        }

        /// The bytes of `path` (the replacement's, for the file being replaced).
        func text(_ path: String, followingLinks: Bool = true) throws(SystemCallError) -> [UInt8] {
            if let r = replacing, r.path == path { return r.bytes }
            return try readRegularFile(path, limit: ConfigLimits.fileBytes, followingLinks: followingLinks)
        }

        /// `text`, read from `path`, as a TOML tree, counted against `bytesInAll`.
        mutating func tree(_ text: [UInt8], _ path: String) throws(ConfigError) -> TOMLTable {
            bytes += text.count
            guard bytes <= ConfigLimits.bytesInAll else {
                throw ConfigError(file: path, line: 1, reason: "the files read up to this one hold \(bytes) bytes; the file and its drop-ins hold \(ConfigLimits.bytesInAll) at most")
            }
            return try fileTree(text, path: path)
        }
    }

    /// One file's bytes as a TOML tree, within a file's caps (its bytes, its panels).
    static func fileTree(_ text: [UInt8], path: String) throws(ConfigError) -> TOMLTable {
        guard text.count <= ConfigLimits.fileBytes else {
            throw ConfigError(file: path, line: 1, reason: "the file is \(text.count) bytes; a config holds \(ConfigLimits.fileBytes) at most (1 MiB)")
        }
        let table: TOMLTable
        do {
            table = try parseTOML(bytes: text)
        } catch {
            throw ConfigError(file: path, line: error.line, reason: error.reason)
        }
        table.listArraysOfTables(ConfigLoader.arraysOfTables)
        if case .tables(let panels)? = table["panel"], panels.count > ConfigLimits.panelsPerFile {
            throw ConfigError(file: path, line: panels[ConfigLimits.panelsPerFile].line, reason: "more than \(ConfigLimits.panelsPerFile) [[panel]]s in one file")
        }
        return table
    }
}

extension ConfigLoader {
    /// The top-level keys whose value is a list of tables, however written: `[[region]]` or
    /// `region = [{ ... }]` (TOML's two spellings of an array of tables); a drop-in's adds to
    /// the list before it.
    static let arraysOfTables = ["panel", "region", "action", "stroke"]
}

extension TOMLTable {
    /// Each of `keys` written as an inline array of inline tables, or as one `[key]` table, held
    /// as a list of tables, as `[[key]]` makes it, so a drop-in adds to it the same way
    /// (`merge`). An empty `key = []` stays a value: a drop-in's empties the list before it.
    public func listArraysOfTables(_ keys: [String]) {
        for key in keys {
            switch self[key] {
            case .table(let t)?: set(key, .tables([t]), line: line(of: key))
            case .value(let v)?:
                guard case .array(let items) = v.kind, !items.isEmpty else { continue }
                var tables: [TOMLTable] = []
                for item in items {
                    guard case .table(let t) = item.kind else { break }
                    tables.append(t)
                }
                if tables.count == items.count { set(key, .tables(tables), line: line(of: key)) }
            default: continue
            }
        }
    }

    /// Merges `other` (read from `file`) into this table, as the drop-in rules say.
    func merge(_ other: TOMLTable, from file: String) {
        for key in other.keys {
            guard let theirs = other[key] else { continue }
            let line = other.line(of: key)
            switch (self[key], theirs) {
            case (.table(let mine)?, .table(let t)):
                mine.merge(t, from: file)
            case (.tables(var mine)?, .tables(let added)):
                // Panels keyed by match: one pass over each side, not one over `mine` per panel.
                var byMatch: [String: Int] = [:]
                if key == "panel" {
                    for (i, t) in mine.enumerated() { if let m = t.matchString, byMatch[m] == nil { byMatch[m] = i } }
                }
                for t in added {
                    if key == "panel", let m = t.matchString, let i = byMatch[m] {
                        mine[i].merge(t, from: file)
                    } else {
                        t.file = file
                        if key == "panel", let m = t.matchString { byMatch[m] = mine.count }
                        mine.append(t)
                    }
                }
                let kept = self.line(of: key), keptFile = files[key]
                set(key, .tables(mine), line: kept)
                files[key] = keptFile
            default:
                switch theirs {
                case .table(let t): t.file = file
                case .tables(let list): list.forEach { $0.file = file }
                case .value: break
                }
                set(key, theirs, line: line)
                files[key] = file
            }
        }
    }

    /// A `[[panel]]`'s `match`, when a string.
    fileprivate var matchString: String? {
        if case .value(let v)? = self["match"], case .string(let s) = v.kind { return s }
        return nil
    }
}
