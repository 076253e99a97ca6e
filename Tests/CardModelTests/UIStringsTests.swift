import CardModel
import Foundation
import Testing

/// The kiosk's own words: every key in all six languages with the same placeholders, and no
/// word a visitor or staff member reads written into the code outside the table.
@Suite struct UIStringsTests {
    @Test func everyKeyHasAllSixLanguagesWithTheSamePlaceholders() {
        #expect(UIStrings.languages == ["de", "en", "fr", "tr", "ar", "zh"])
        for key in UIString.allCases {
            let english = UIStrings.text(key, in: "en")
            #expect(!english.isEmpty, "\(key) has no English word")
            for language in UIStrings.languages {
                #expect(UIStrings.isComplete(language), "\(language) lacks words")
                let word = UIStrings.text(key, in: language)
                #expect(!word.trimmingCharacters(in: .whitespaces).isEmpty, "\(key) is empty in \(language)")
                #expect(
                    Self.placeholders(word) == Self.placeholders(english),
                    "\(key) in \(language) has placeholders \(Self.placeholders(word)), English \(Self.placeholders(english))"
                )
            }
        }
        #expect(UIStrings.text(.calibrateTarget, in: "de", "2", "4") == "Ziel 2 von 4 antippen")
        #expect(UIStrings.text(.wrongPINLeft, in: "sv", "2") == "Wrong PIN — 2 tries left")
    }

    static func placeholders(_ s: String) -> Set<String> {
        Set((1...9).map { "{\($0)}" }.filter { s.contains($0) })
    }

    /// The Swift files under `Sources/<folder>`, each as its lines with comments left out.
    static func sourceLines(_ folder: String) throws -> [(file: String, line: Int, text: String)] {
        // …/Tests/CardModelTests/UIStringsTests.swift → …/Sources/<folder> (this target uses CardModel only)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let root = repository.path + "/Sources/" + folder
        let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
        var out: [(String, Int, String)] = []
        for f in files.sorted() where f.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + f, encoding: .utf8)
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                out.append((folder + "/" + f, i + 1, String(line)))
            }
        }
        return out
    }

    /// The painter draws only strings the scene carries: no literal reaches `Text.show` or
    /// `Text.measure` in KioskRender, except "Aa" (the accessibility control's glyph, a symbol
    /// like ✓ and ✗, the same in every language).
    @Test func thePainterDrawsNoStringOfItsOwn() throws {
        let lines = try Self.sourceLines("KioskRender")
        #expect(lines.count > 1000)
        let literal = try Regex(#"Text\.(show|measure|layout)\(\s*"([^"]*)""#)
        var found: [String] = []
        for (file, n, text) in lines {
            for m in text.matches(of: literal) {
                let s = m.output[2].substring.map(String.init) ?? ""
                if s != "Aa" { found.append("\(file):\(n): \"\(s)\"") }
            }
        }
        #expect(found.isEmpty, "drawn literals: \(found)")
    }

    /// No string literal in the code a visitor or staff member sees carries German (its
    /// letters ä ö ü ß, or the kiosk's German words): they come from `UIStrings`. The
    /// built-in demo deck (`render` without `--deck`) is content, not the kiosk's words.
    @Test func noGermanWordIsWrittenIntoTheCode() throws {
        // The table's German words that are no English word ("Karten", not "Deck" or "Finger").
        func words(_ language: String) -> Set<String> {
            Set(UIString.allCases.flatMap { Self.words(UIStrings.text($0, in: language)) })
        }
        let germanWords = words("de").subtracting(words("en")).filter { $0.count > 3 }
        #expect(germanWords.contains("Karten") && germanWords.contains("Abbrechen"))
        var found: [String] = []
        for folder in ["CardModel", "KioskRender", "KioskCards/App", "KioskDeckFiles"] {
            for (file, n, text) in try Self.sourceLines(folder) {
                if file.hasPrefix("CardModel/Language/UIStrings") { continue }
                if file.hasPrefix("KioskRender/BuiltInCards") { continue }  // the demo deck
                if text.contains("Log.") { continue }
                for literal in Self.literals(in: text) {
                    let umlaut = literal.contains { "äöüÄÖÜß".contains($0) }
                    if umlaut || !germanWords.isDisjoint(with: Self.words(literal)) {
                        found.append("\(file):\(n): \"\(literal)\"")
                    }
                }
            }
        }
        #expect(found.isEmpty, "German in the code: \(found)")
    }

    static func words(_ s: String) -> [String] {
        s.split(whereSeparator: { !$0.isLetter }).map(String.init)
    }

    /// The string literals on a line after any trailing `//` comment is cut (simple: `"…"`
    /// pairs, escaped quotes kept inside; enough for this code base's one-line literals).
    static func literals(in line: String) -> [String] {
        var code = Substring(line)
        var from = code.startIndex
        while let r = code.range(of: "//", range: from..<code.endIndex) {
            if code[..<r.lowerBound].filter({ $0 == "\"" }).count % 2 == 0 {
                code = code[..<r.lowerBound]
                break
            }
            from = r.upperBound
        }
        var out: [String] = []
        var current: String?
        var escaped = false
        for c in code {
            guard var s = current else {
                if c == "\"" { current = "" }
                continue
            }
            if escaped {
                s.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == "\"" {
                out.append(s)
                current = nil
                continue
            } else {
                s.append(c)
            }
            current = s
        }
        return out
    }
}
