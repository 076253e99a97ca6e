import CardModel
import Testing

@testable import KioskSystem

@Suite struct DeckJSONReaderTests {
    /// Drops positions so values can be compared.
    indirect enum Plain: Equatable {
        case null, bool(Bool), number(Double), string(String), array([Plain]), object([String], [Plain])

        init(_ node: JSONNode) {
            switch node.value {
            case .null: self = .null
            case .bool(let b): self = .bool(b)
            case .number(let d): self = .number(d)
            case .string(let s): self = .string(s)
            case .array(let a): self = .array(a.map(Plain.init))
            case .object(let m): self = .object(m.map(\.key), m.map { Plain($0.value) })
            }
        }

        /// JSON text with random whitespace between tokens.
        func text(_ rng: inout SplitMix64) -> String {
            let ws = [" ", "\n", "\t", "\r\n", "", ""][Int(rng.next() % 6)]
            switch self {
            case .null: return "null"
            case .bool(let b): return b ? "true" : "false"
            case .number(let d): return "\(d)"
            case .string(let s): return JSONWriter.quoted(s)
            case .array(let a):
                return "[" + ws + a.map { $0.text(&rng) }.joined(separator: "," + ws) + ws + "]"
            case .object(let k, let v):
                return "{" + ws
                    + zip(k, v).map { JSONWriter.quoted($0) + ws + ":" + $1.text(&rng) }.joined(separator: ",")
                    + "}"
            }
        }

        static func random(_ rng: inout SplitMix64, depth: Int) -> Plain {
            let pick = depth > 3 ? rng.next() % 4 : rng.next() % 6
            switch pick {
            case 0: return .null
            case 1: return .bool(rng.next() % 2 == 0)
            case 2:
                let d = Double(Int64(bitPattern: rng.next()) % 1_000_000) / Double(1 + rng.next() % 1000)
                return .number(d)
            case 3: return .string(randomString(&rng))
            case 4: return .array((0..<(rng.next() % 4)).map { _ in random(&rng, depth: depth + 1) })
            default:
                let n = Int(rng.next() % 4)
                return .object(
                    (0..<n).map { _ in randomString(&rng) }, (0..<n).map { _ in random(&rng, depth: depth + 1) })
            }
        }

        static func randomString(_ rng: inout SplitMix64) -> String {
            let alphabet: [Unicode.Scalar] = [
                "a", "Z", "\"", "\\", "/", "\n", "\t", "\u{01}", "ä", "€", "😀", "\u{2028}", " ",
            ]
            var s = ""
            for _ in 0..<(rng.next() % 8) {
                s.unicodeScalars.append(alphabet[Int(rng.next() % UInt64(alphabet.count))])
            }
            return s
        }
    }

    /// A small seeded generator so failures reproduce.
    @Test func randomDocumentsRoundTrip() throws {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let value = Plain.random(&rng, depth: 0)
            let text = value.text(&rng)
            let parsed = try JSONReader.parse(text)
            #expect(Plain(parsed) == value, "\(text)")
        }
    }

    @Test func positionsCountLinesAndScalars() throws {
        let text = "{\n  \"ä😀\": [1,\n     \"x\"],\n\t\"b\" : null }"
        let root = try JSONReader.parse(text)
        let members = try #require(root.members)
        #expect(root.position == TextPosition(line: 1, column: 1))
        #expect(members[0].keyPosition == TextPosition(line: 2, column: 3))
        #expect(members[0].value.position == TextPosition(line: 2, column: 9))
        #expect(members[0].value.elements?[1].position == TextPosition(line: 3, column: 6))
        #expect(members[1].keyPosition == TextPosition(line: 4, column: 2))
        #expect(members[1].value.position == TextPosition(line: 4, column: 8))
    }

    @Test func duplicateKeysAreKept() throws {
        let root = try JSONReader.parse(#"{"a": 1, "a": 2}"#)
        #expect(root.members?.map(\.key) == ["a", "a"])
    }

    @Test(arguments: [
        ("", 1, 1, "empty"),
        ("{", 1, 2, "not closed"),
        ("{\"a\" 1}", 1, 6, "expected ':'"),
        ("[1 2]", 1, 4, "missing comma"),
        ("[1,]", 1, 4, "trailing comma"),
        ("{\"a\":1,}", 1, 8, "trailing comma"),
        ("[01]", 1, 2, "leading zeros"),
        ("[-]", 1, 2, "digit after '-'"),
        ("[1.]", 1, 2, "digit after '.'"),
        ("[1e]", 1, 2, "exponent"),
        ("[tru]", 1, 2, "'true'"),
        ("['a']", 1, 2, "double quotes"),
        ("{\"a\":1} x", 1, 9, "after the end"),
        ("// c\n{}", 1, 1, "no comments"),
        ("[\"a\u{01}\"]", 1, 4, "control character"),
        ("[\"\\x\"]", 1, 3, "unknown escape"),
        ("[\"\\ud800\"]", 1, 3, "lone UTF-16 high surrogate"),
        ("[\"\\udc00\"]", 1, 3, "lone UTF-16 low surrogate"),
        ("[\"\\u12\"]", 1, 7, "four hex digits"),
        ("[1e999]", 1, 2, "out of range"),
        ("\n\n   [\"abc\n\"]", 3, 9, "past the end of the line"),
    ])
    func rejectsWithPosition(text: String, line: Int, column: Int, mentions: String) {
        #expect {
            _ = try JSONReader.parse(text)
        } throws: { error in
            guard let e = error as? JSONSyntaxError else { return false }
            #expect(e.kind == .syntax)
            #expect(e.position == TextPosition(line: line, column: column), "\(e)")
            #expect(e.message.contains(mentions), "\(e.message)")
            return true
        }
    }

    @Test(
        arguments: [
            ([0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D], 1, 3),  // truncated two-byte sequence
            ([0x0A, 0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], 2, 3),  // overlong '/'
            ([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], 1, 3),  // encoded surrogate
            ([0x5B, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x5D], 1, 3),  // past U+10FFFF
            ([0x5B, 0x22, 0xC3, 0xA4, 0xFF, 0x22, 0x5D], 1, 4),  // stray 0xFF after "ä"
            ([0x5B, 0x22, 0xE2, 0x82], 1, 3),  // cut off at end of file
        ] as [([UInt8], Int, Int)])
    func rejectsInvalidUTF8WithPosition(bytes: [UInt8], line: Int, column: Int) {
        #expect {
            _ = try JSONReader.parse(bytes)
        } throws: { error in
            guard let e = error as? JSONSyntaxError else { return false }
            #expect(e.kind == .invalidUTF8)
            #expect(e.position == TextPosition(line: line, column: column), "\(e)")
            return true
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONReader.parse(text) }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: Never.self) { try JSONReader.parse(ok) }
    }

    @Test func numbersAndLiterals() throws {
        let root = try JSONReader.parse("[0, -0.5, 1e3, 2E-2, true, false, null, \"\\u00e9\\ud83d\\ude00\"]")
        let values = try #require(root.elements).map(Plain.init)
        #expect(
            values == [
                .number(0), .number(-0.5), .number(1000), .number(0.02), .bool(true), .bool(false), .null,
                .string("é😀"),
            ])
    }
}
