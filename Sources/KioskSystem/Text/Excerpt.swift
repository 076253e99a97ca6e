/// A short, escaped excerpt of user text for an error message: control characters (NUL, ESC,
/// a stray CR) are shown as `\u{0}`-style escapes so they cannot garble a terminal or a
/// journal, and anything past `maxCharacters` is cut with "…" and the full length said — a
/// message never echoes a megabyte of a bad line.
package enum Excerpt {
    /// `text` escaped and shortened to at most `maxCharacters` characters (before escaping).
    package static func of<S: StringProtocol>(_ text: S, maxCharacters: Int = 60) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == maxCharacters {
                return out + "… (\(text.utf8.count) bytes)"
            }
            count += 1
            switch scalar.value {
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7f, 0x80..<0xa0: out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
