/// Text from outside (a client's string, a config's exec arguments) made safe to print on one
/// line of a terminal or the journal: control characters (a newline, ESC sequences, NUL, C1
/// codes) become `\xNN`, and the characters that reorder what a reader sees (bidirectional
/// overrides and isolates such as U+202E, which can make `rm -rf /` look like something else)
/// become `\u{XXXX}`. The text is cut at `limit` bytes.
public enum SafeText {
    public static func escaped(_ text: String, limit: Int = .max) -> String {
        var out = ""
        var bytes = 0
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let piece: String
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                let hex = String(v, radix: 16)
                piece = "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else if reorders(v) {
                piece = "\\u{" + String(v, radix: 16, uppercase: true) + "}"
            } else {
                piece = String(scalar)
            }
            bytes += piece.utf8.count
            if bytes > limit {
                out += "... (\(text.utf8.count) bytes)"
                break
            }
            out += piece
        }
        return out
    }

    /// Whether `v` steers a terminal or what a reader sees: C0, DEL, C1, or a bidirectional
    /// formatting character. The one set every escaping of the project uses (this type's, the
    /// files the daemon writes, a line touchgesturectl passes through).
    public static func steers(_ v: UInt32) -> Bool {
        v < 0x20 || (0x7F...0x9F).contains(v) || reorders(v)
    }

    /// `text` with every character that `steers` as a JSON `\uXXXX` escape, so that a JSON line
    /// stays a JSON line (such characters are only ever inside its strings) and shows as sent.
    public static func jsonEscaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { steers($0.value) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if steers(scalar.value) {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Unicode's bidirectional formatting characters (UAX #9): marks, embeddings, overrides,
    /// isolates.
    static func reorders(_ v: UInt32) -> Bool {
        v == 0x061C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
}
