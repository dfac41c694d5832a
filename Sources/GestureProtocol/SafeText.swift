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

    /// Unicode's bidirectional formatting characters (UAX #9): marks, embeddings, overrides,
    /// isolates.
    static func reorders(_ v: UInt32) -> Bool {
        v == 0x061C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
}
