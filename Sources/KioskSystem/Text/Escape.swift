/// Text a kiosk or a file supplied, made into data for one output context each: HTML text, an
/// HTML attribute value, JSON inside a `<script>` element, a spreadsheet cell.
/// Every writer of such text goes through one of these, so a card id, an end reason or a
/// heartbeat field is never markup or a formula.
package enum Escape {
    /// For HTML text content (between tags): `&`, `<`, `>` as entities, so no tag can open.
    package static func htmlText(_ s: String) -> String {
        html(s, quotes: false)
    }

    /// For a double- or single-quoted HTML attribute value: `&`, `<`, `>`, `"`, `'` and the
    /// backtick as entities, so the value cannot close its quotes or open a tag.
    package static func htmlAttribute(_ s: String) -> String {
        html(s, quotes: true)
    }

    private static func html(_ s: String, quotes: Bool) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&#39;"
            case "`" where quotes: out += "&#96;"
            case "\0": out += "\u{FFFD}"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// JSON text made safe inside `<script type="application/json">` (or a script): `<`, `>`,
    /// `&` and U+2028/U+2029 as `\uXXXX` escapes, which JSON reads back as the same
    /// characters, so `</script>` or `<!--` in a string cannot end or bend the element.
    /// `json` must be valid JSON (these characters only occur inside its strings).
    package static func jsonInScript(_ json: String) -> String {
        var out = ""
        out.reserveCapacity(json.utf8.count)
        for c in json.unicodeScalars {
            switch c.value {
            case 0x3C: out += "\\u003c"
            case 0x3E: out += "\\u003e"
            case 0x26: out += "\\u0026"
            case 0x2028: out += "\\u2028"
            case 0x2029: out += "\\u2029"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// One RFC 4180 CSV field, neutralised against formula injection (OWASP): a field that
    /// starts with `=`, `+`, `-`, `@`, a tab or a CR gets a leading `'` (a spreadsheet then
    /// shows it as text) and is quoted; a field with a comma, quote, CR or LF is quoted, its
    /// quotes doubled.
    package static func csvField(_ s: String) -> String {
        let formula = s.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } ?? false
        let text = formula ? "'" + s : s
        guard formula || text.unicodeScalars.contains(where: { "\",\r\n".unicodeScalars.contains($0) }) else {
            return text
        }
        var out = "\""
        for u in text.unicodeScalars {
            if u == "\"" { out += "\"\"" } else { out.unicodeScalars.append(u) }
        }
        return out + "\""
    }
}
