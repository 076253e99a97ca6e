/// Text a kiosk or a file supplied, made into data for one output context each: HTML text, an
/// HTML attribute value, JSON inside a `<script>` element, a spreadsheet cell, a terminal.
/// Every writer of such text goes through one of these, so a card id, an end reason or a
/// heartbeat field is never markup, a formula or a control sequence.
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

    /// For a terminal or a log line: every control character made visible, so text cannot
    /// move the cursor, recolour, retitle or clear the screen, or forge a line. `\n`, `\r`,
    /// `\t` and ESC show as `\n`, `\r`, `\t`, `\e`; other C0 controls, DEL and C1 controls
    /// (U+0080–U+009F) as `\x1f`-style escapes; the bidi controls (U+061C, U+200E/F,
    /// U+202A–U+202E, U+2066–U+2069) and the line/paragraph separators as `\u{202e}`; a
    /// backslash as `\\`, so a visible escape cannot be faked either.
    package static func terminal(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars { out += terminal(c) ?? String(c) }
        return out
    }

    /// `c` as `terminal(_:)` shows it, or nil when it is shown as itself.
    package static func terminal(_ c: Unicode.Scalar) -> String? {
        switch c.value {
        case 0x5C: return "\\\\"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x1B: return "\\e"
        case 0..<0x20, 0x7F, 0x80..<0xA0: return "\\x" + hex(c.value, digits: 2)
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029:
            return "\\u{" + hex(c.value, digits: 4) + "}"
        default: return nil
        }
    }

    private static func hex(_ v: UInt32, digits: Int) -> String {
        let h = String(v, radix: 16)
        return String(repeating: "0", count: max(0, digits - h.count)) + h
    }
}
