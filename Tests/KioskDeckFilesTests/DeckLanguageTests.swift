import CardModel
import Testing

@testable import KioskDeckFiles

/// The deck's "language" key: what speech reads the texts with.
@Suite struct DeckLanguageTests {
    func parse(_ language: String?) -> Result<DeckFile, DeckProblems> {
        let key = language.map { ", \"language\": \"\($0)\"" } ?? ""
        let json = """
            {"id": "d", "version": 1, "title": "T", "layout": "stack"\(key),
             "cards": [{"id": "a", "title": "A", "color": "#336699"}]}
            """
        return DeckParser.parse(bytes: Array(json.utf8), path: "d.json", checkImage: { .ok($0) })
    }

    @Test func defaultsToGermanAndTakesATag() throws {
        #expect(try parse(nil).get().language == "de")
        #expect(try parse("en-GB").get().language == "en-GB")
        #expect(try parse("ar").get().language == "ar")
        #expect(try parse("zh-Hans").get().language == "zh-Hans")
    }

    @Test func rejectsWhatIsNoTag() {
        for bad in ["english", "e", "de_DE", "de-", "1de"] {
            guard case .failure(let problems) = parse(bad) else {
                Issue.record("\(bad) accepted")
                continue
            }
            let p = problems.problems.first { $0.path == "language" }
            #expect(p?.message.contains("is no language tag") == true, "\(bad): \(problems.problems)")
        }
    }
}
