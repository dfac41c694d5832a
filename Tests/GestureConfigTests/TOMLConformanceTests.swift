import Foundation
import Testing

@testable import GestureConfig

/// Where the suite lies, and whether it is there.
enum TOMLSuite {
    static let path: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/../shared/conformance/toml-test"
    }()
    static var present: Bool { FileManager.default.fileExists(atPath: path + "/files-toml-1.0.0") }
}

/// toml-lang/toml-test, read in place from ../shared/conformance/toml-test (beside the checkout,
/// as in CI): every valid TOML 1.0 document is read with the suite's values, types included, and
/// every invalid one is refused with a line.
@Suite(.enabled(if: TOMLSuite.present, "the toml-test suite (../shared/conformance/toml-test) is absent"))
struct TOMLConformanceTests {
    static let suite = TOMLSuite.path

    /// The suite's TOML 1.0 cases.
    static func cases(_ prefix: String) -> [String] {
        let list = FileManager.default.contents(atPath: suite + "/files-toml-1.0.0") ?? Data()
        return String(decoding: list, as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".toml") }
    }

    static func bytes(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: suite + "/" + path).map { [UInt8]($0) } ?? []
    }

    @Test func validDocuments_areReadWithTheSuitesValues() throws {
        let files = Self.cases("valid/")
        #expect(files.count == 210)
        var read = 0
        for file in files {
            let root: TOMLTable
            do {
                root = try parseTOML(bytes: Self.bytes(file))
            } catch {
                Issue.record("\(file):\(error.line): refused a valid document: \(error.reason)")
                continue
            }
            let json = try JSONSerialization.jsonObject(
                with: Data(Self.bytes(String(file.dropLast(5)) + ".json")), options: [.fragmentsAllowed])
            let differences = compare(.table(root), json, path: "")
            if differences.isEmpty {
                read += 1
            } else {
                Issue.record("\(file): \(differences.prefix(3).joined(separator: "; "))")
            }
        }
        #expect(read == files.count, "toml-test valid: \(read) of \(files.count) read with the suite's values")
    }

    @Test func invalidDocuments_areRefusedWithALine() {
        let files = Self.cases("invalid/")
        #expect(files.count == 499)
        var refused = 0
        for file in files {
            let bytes = Self.bytes(file)
            // Refused by the TOML reader itself (not by the schema, which knows none of these keys).
            guard let error = #expect(throws: TOMLError.self, "\(file): an invalid document was read", performing: { try parseTOML(bytes: bytes) })
            else { continue }
            // And as a config file, with the file and a line inside it.
            let lines = bytes.count { $0 == 0x0A } + 1
            #expect(throws: ConfigError(file: file, line: error.line, reason: error.reason), "\(file)") {
                try ConfigLoader.parse(bytes: bytes, file: file)
            }
            if error.line >= 1 && error.line <= lines {
                refused += 1
            } else {
                Issue.record("\(file): refused at line \(error.line), outside the file's \(lines) lines")
            }
        }
        #expect(refused == files.count, "toml-test invalid: \(refused) of \(files.count) refused with FILE:LINE")
    }

    /// A value read against the suite's JSON: tables as objects, arrays as arrays, and every
    /// scalar as `{"type": ..., "value": "..."}`.
    enum Read {
        case table(TOMLTable)
        case tables([TOMLTable])
        case value(TOMLValue)
    }

    func compare(_ mine: Read, _ expected: Any, path: String) -> [String] {
        switch mine {
        case .table(let t):
            guard let object = expected as? [String: Any], !isScalar(object) else { return ["\(path): a table, expected \(expected)"] }
            var out: [String] = []
            if Set(t.keys) != Set(object.keys) { out.append("\(path): keys \(t.keys.sorted()) != \(object.keys.sorted())") }
            for key in t.keys {
                guard let e = object[key] else { continue }
                let read: Read
                switch t[key]! {
                case .value(let v): read = .value(v)
                case .table(let inner): read = .table(inner)
                case .tables(let list): read = .tables(list)
                }
                out += compare(read, e, path: path + "." + key)
            }
            return out
        case .tables(let list):
            guard let array = expected as? [Any], array.count == list.count else { return ["\(path): \(list.count) tables, expected \(expected)"] }
            return zip(list, array).enumerated().flatMap { n, pair in compare(.table(pair.0), pair.1, path: "\(path)[\(n)]") }
        case .value(let v):
            switch v.kind {
            case .table(let t): return compare(.table(t), expected, path: path)
            case .array(let items):
                guard let array = expected as? [Any], array.count == items.count else { return ["\(path): \(items.count) items, expected \(expected)"] }
                return zip(items, array).enumerated().flatMap { n, pair in compare(.value(pair.0), pair.1, path: "\(path)[\(n)]") }
            default:
                guard let object = expected as? [String: Any], isScalar(object), let type = object["type"] as? String,
                    let text = object["value"] as? String
                else { return ["\(path): \(v.typeName), expected \(expected)"] }
                return scalarMatches(v.kind, type: type, text: text) ? [] : ["\(path): \(v.kind) != \(type) \(text)"]
            }
        }
    }

    func isScalar(_ object: [String: Any]) -> Bool {
        object.count == 2 && object["type"] is String && object["value"] is String
    }

    func scalarMatches(_ kind: TOMLValue.Kind, type: String, text: String) -> Bool {
        switch (kind, type) {
        case (.string(let s), "string"): return s == text
        case (.integer(let i), "integer"): return Int64(text) == i
        case (.bool(let b), "bool"): return String(b) == text
        case (.float(let d), "float"):
            switch text {
            case "nan", "+nan", "-nan": return d.isNaN
            case "inf", "+inf": return d == .infinity
            case "-inf": return d == -.infinity
            default: return Double(text).map { $0 == d && $0.sign == d.sign } ?? false
            }
        case (.dateTime(let d), _):
            let kinds = ["datetime": "offset date-time", "datetime-local": "local date-time", "date-local": "local date",
                "time-local": "local time"]
            // The suite writes RFC 3339; read it as TOML (a subset) and compare the values.
            guard kinds[type] == d.kindName, let root = try? parseTOML("v = \(text)"),
                case .value(let v)? = root["v"], case .dateTime(let e) = v.kind
            else { return false }
            return e == d
        default: return false
        }
    }
}
