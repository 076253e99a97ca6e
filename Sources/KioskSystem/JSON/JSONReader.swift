/// A place in a text file: 1-based line and column. Columns count Unicode scalars, as editors
/// show them, not bytes.
package struct TextPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package static func < (a: TextPosition, b: TextPosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    package var description: String { "\(line):\(column)" }
}

/// A parsed JSON value that remembers where it starts in the text, so a checker can name the
/// line of every problem (Foundation's JSONSerialization forgets positions).
package struct JSONNode: Hashable, Sendable {
    package enum Value: Hashable, Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        /// Members in file order; duplicate keys are kept so a checker can report them.
        case object([Member])
    }

    package struct Member: Hashable, Sendable {
        package var key: String
        package var keyPosition: TextPosition
        package var value: JSONNode
    }

    package var value: Value
    package var position: TextPosition

    /// The JSON Schema name of this value's type, for messages ("expected a string, found an array").
    package var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let d): d == d.rounded() && abs(d) < 1e15 ? "an integer" : "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    package var stringValue: String? {
        if case .string(let s) = value { return s }
        return nil
    }

    package var members: [Member]? {
        if case .object(let m) = value { return m }
        return nil
    }

    package var elements: [JSONNode]? {
        if case .array(let a) = value { return a }
        return nil
    }

    /// The first member named `key`, for tools that read known-good JSON.
    package subscript(key: String) -> JSONNode? {
        members?.first { $0.key == key }?.value
    }
}

/// Why a text is not JSON, with the place the reader stopped.
package struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Kind: Hashable, Sendable {
        /// The bytes are not UTF-8 (RFC 8259 requires it).
        case invalidUTF8
        case syntax
    }

    package var kind: Kind
    package var message: String
    package var position: TextPosition

    package var description: String { "\(position): \(message)" }
}

/// A strict RFC 8259 JSON reader over UTF-8 bytes that keeps line and column positions.
///
/// Accepts a leading UTF-8 byte order mark (some Windows editors write one). Rejects
/// everything else RFC 8259 rejects: comments, trailing commas, control characters in
/// strings, lone surrogates, leading zeros. Nesting is limited so hostile input cannot
/// overflow the stack.
package struct JSONReader {
    static let maximumDepth = 128

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON document (surrounding whitespace allowed).
    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        try validateUTF8(bytes)
        var reader = JSONReader(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        reader.skipWhitespace()
        if reader.index >= bytes.count {
            throw reader.error("the file is empty; a deck is a JSON object starting with '{'")
        }
        let node = try reader.parseValue()
        reader.skipWhitespace()
        if reader.index < bytes.count {
            throw reader.error("unexpected \(reader.describeCurrent()) after the end of the JSON value")
        }
        return node
    }

    static func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    // MARK: - UTF-8

    /// Throws at the first byte that does not start or continue a well-formed UTF-8 sequence
    /// (overlong forms, surrogates and values past U+10FFFF are malformed, as in Unicode §3.9).
    static func validateUTF8(_ bytes: [UInt8]) throws(JSONSyntaxError) {
        var i = 0
        var line = 1
        var column = 1
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            var length = 0
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch b {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F
            default: length = 0
            }
            var ok = length > 0 && i + length <= n
            if ok && length > 1 {
                let second = bytes[i + 1]
                ok = second >= lower && second <= upper
                var k = 2
                while ok && k < length {
                    ok = bytes[i + k] & 0xC0 == 0x80
                    k += 1
                }
            }
            guard ok else {
                let hex = String(b, radix: 16, uppercase: true)
                throw JSONSyntaxError(
                    kind: .invalidUTF8,
                    message: "the file is not valid UTF-8 (byte 0x\(hex.count == 1 ? "0" + hex : hex) at offset \(i));"
                        + " save it as UTF-8",
                    position: TextPosition(line: line, column: column))
            }
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
            i += length
        }
    }

    // MARK: - Scanning

    private var position: TextPosition { TextPosition(line: line, column: column) }

    private func error(_ message: String, at position: TextPosition? = nil) -> JSONSyntaxError {
        JSONSyntaxError(kind: .syntax, message: message, position: position ?? self.position)
    }

    /// Moves past one byte, keeping line and column (continuation bytes do not count as columns).
    private mutating func advance() {
        let b = bytes[index]
        index += 1
        if b == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if b & 0xC0 != 0x80 {
            column += 1
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): advance()
            default: return
            }
        }
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b == UInt8(ascii: "/") { return "'/' (JSON has no comments)" }
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        let end = min(bytes.count, index + 4)
        if b >= 0x80, let s = String(validating: bytes[index..<end], as: UTF8.self)?.first {
            return "'\(s)'"
        }
        return "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    private mutating func expect(_ literal: String, value: JSONNode.Value) throws(JSONSyntaxError) -> JSONNode {
        let start = position
        for c in literal.utf8 {
            guard index < bytes.count, bytes[index] == c else {
                throw error("invalid literal; expected '\(literal)'", at: start)
            }
            advance()
        }
        return JSONNode(value: value, position: start)
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
        guard index < bytes.count else { throw error("unexpected end of file; expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let start = position
            return JSONNode(value: .string(try parseString()), position: start)
        case UInt8(ascii: "t"): return try expect("true", value: .bool(true))
        case UInt8(ascii: "f"): return try expect("false", value: .bool(false))
        case UInt8(ascii: "n"): return try expect("null", value: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "'"): throw error("strings need double quotes (\"), not single quotes")
        default: throw error("unexpected \(describeCurrent()); expected a value")
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONNode {
        let start = position
        try enter()
        advance()  // {
        var members: [JSONNode.Member] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            advance()
            depth -= 1
            return JSONNode(value: .object(members), position: start)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else {
                throw error("unexpected end of file; the object that starts at \(start) is not closed with '}'")
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "}") && !members.isEmpty {
                    throw error("trailing comma before '}' (JSON does not allow one)")
                }
                throw error("unexpected \(describeCurrent()); expected a key in double quotes")
            }
            let keyPosition = position
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()); expected ':' after the key \"\(Excerpt.of(key))\"")
            }
            advance()
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONNode.Member(key: key, keyPosition: keyPosition, value: value))
            skipWhitespace()
            guard index < bytes.count else {
                throw error("unexpected end of file; the object that starts at \(start) is not closed with '}'")
            }
            if bytes[index] == UInt8(ascii: ",") {
                advance()
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                advance()
                depth -= 1
                return JSONNode(value: .object(members), position: start)
            }
            throw error("unexpected \(describeCurrent()); expected ',' or '}' (a missing comma?)")
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONNode {
        let start = position
        try enter()
        advance()  // [
        var elements: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            advance()
            depth -= 1
            return JSONNode(value: .array(elements), position: start)
        }
        while true {
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") && !elements.isEmpty {
                throw error("trailing comma before ']' (JSON does not allow one)")
            }
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else {
                throw error("unexpected end of file; the array that starts at \(start) is not closed with ']'")
            }
            if bytes[index] == UInt8(ascii: ",") {
                advance()
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                advance()
                depth -= 1
                return JSONNode(value: .array(elements), position: start)
            }
            throw error("unexpected \(describeCurrent()); expected ',' or ']' (a missing comma?)")
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("unexpected end of file in a \\u escape") }
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("a \\u escape needs four hex digits")
            }
            v = v << 4 | digit
            advance()
        }
        return v
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = position
        advance()  // opening quote
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw error("unexpected end of file; the string that starts at \(start) is not closed", at: start)
            }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                advance()
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 {
                if b == UInt8(ascii: "\n") {
                    throw error("the string that starts at \(start) runs past the end of the line (missing '\"'?)")
                }
                throw error("control character 0x\(String(b, radix: 16)) inside a string; write it as an escape")
            }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                advance()
                continue
            }
            let escapePosition = position
            advance()
            guard index < bytes.count else { throw error("unexpected end of file after '\\'") }
            let e = bytes[index]
            advance()
            switch e {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else {
                        throw error("lone UTF-16 high surrogate in a \\u escape", at: escapePosition)
                    }
                    advance()
                    advance()
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("a UTF-16 high surrogate must be followed by a low one", at: escapePosition)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("lone UTF-16 low surrogate in a \\u escape", at: escapePosition)
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                throw error("unknown escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: escapePosition)
            }
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNode {
        let start = position
        let first = index
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[index] == UInt8(ascii: "-") { advance() }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw error("a number needs a digit after '-'", at: start)
        }
        if bytes[index] == UInt8(ascii: "0") {
            advance()
            if index < bytes.count && isDigit(bytes[index]) {
                throw error("numbers may not have leading zeros", at: start)
            }
        } else {
            while index < bytes.count && isDigit(bytes[index]) { advance() }
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            advance()
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("a number needs a digit after '.'", at: start)
            }
            while index < bytes.count && isDigit(bytes[index]) { advance() }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            advance()
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                advance()
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("a number needs a digit in its exponent", at: start)
            }
            while index < bytes.count && isDigit(bytes[index]) { advance() }
        }
        let text = String(decoding: bytes[first..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("the number \(text) is out of range", at: start)
        }
        return JSONNode(value: .number(value), position: start)
    }
}

/// Writes JSON text (for `export` and tools); strings are escaped per RFC 8259.
package enum JSONWriter {
    package static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // Control characters (C0, DEL, C1) and the bidi and line-separator controls as
                // \u escapes: the same JSON, and nothing a terminal would act on.
                if u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0) || Escape.terminal(u) != nil {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
