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
    public static func dropIns(of path: String) -> [String] {
        let folder = dropInFolder(of: path)
        guard case .success(let names) = Posix.entries(of: folder) else { return [] }
        return names.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { folder + "/" + $0 }
    }

    /// Reads `path`, then `calibrations` when it exists (the daemon's saved calibrations,
    /// `CalibrationFile`: refused when it holds anything but `[[panel]]` match and calibration),
    /// then the drop-ins (`touchgestured.d/*.toml`) into one configuration. The drop-ins, the
    /// admin's and their tools', come last: what they set has the last word over a calibration a
    /// client saved.
    public static func load(path: String, calibrations: String? = nil) throws(ConfigError) -> Configuration {
        let root = try tree(path)
        var files = [path]
        if let calibrations, case .success = Posix.status(calibrations) {
            let extra = try tree(calibrations)
            if let why = CalibrationFile.notOnlyCalibrations(extra) { throw ConfigError(file: calibrations, line: 1, reason: why) }
            root.merge(extra, from: calibrations)
            files.append(calibrations)
        }
        for dropIn in dropIns(of: path) {
            let extra = try tree(dropIn)
            root.merge(extra, from: dropIn)
            files.append(dropIn)
        }
        var loader = Loader(file: path)
        var c = try loader.load(root)
        c.files = files
        return c
    }

    /// One file's TOML tree; a file that cannot be read, is too large or is not TOML is refused
    /// with its name.
    private static func tree(_ path: String) throws(ConfigError) -> TOMLTable {
        let bytes: [UInt8]
        do {
            bytes = try readRegularFile(path, limit: ConfigLimits.fileBytes)
        } catch {
            throw ConfigError(file: path, line: 1, reason: "cannot read it: \(error.reason) (a config holds \(ConfigLimits.fileBytes) bytes at most)")
        }
        do {
            return try parseTOML(bytes: bytes)
        } catch {
            throw ConfigError(file: path, line: error.line, reason: error.reason)
        }
    }
}

extension TOMLTable {
    /// Merges `other` (read from `file`) into this table, as the drop-in rules say.
    func merge(_ other: TOMLTable, from file: String) {
        for key in other.keys {
            guard let theirs = other[key] else { continue }
            let line = other.line(of: key)
            switch (self[key], theirs) {
            case (.table(let mine)?, .table(let t)):
                mine.merge(t, from: file)
            case (.tables(var mine)?, .tables(let added)):
                for t in added {
                    if key == "panel", let m = t.matchString, let i = mine.firstIndex(where: { $0.matchString == m }) {
                        mine[i].merge(t, from: file)
                    } else {
                        t.file = file
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
