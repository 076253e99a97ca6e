/// A short, escaped excerpt of user text for an error message: control characters (NUL, ESC,
/// a stray CR) are shown as `Escape.terminal` shows them (`\x00`, `\e`, `\r`) so they cannot
/// garble a terminal or a journal, and anything past `maxCharacters` is cut with "…" and the full length said — a
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
            if let visible = Escape.terminal(scalar) { out += visible } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
