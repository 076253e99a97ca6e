import CardModel
import KioskDeckFiles
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskSystem

/// The app's record of a decision (`App/DecisionRecord+Deck.swift`): its wall time from a pair of
/// clock readings, its deck from the loaded file.
@Suite struct DecisionRecordDeckTests {
    @Test func wallTimeIsDerivedFromTheDecisionInstant() throws {
        let deck = try DeckLoader.load(path: DeckFixtures.good("minimal-stack.json")).get()
        let decision = Decision(cardID: "one", action: .swipedRight, time: .seconds(100), dwellSeconds: 2.5)
        let r = DecisionRecord(
            decision, kioskID: "k", sessionID: "s", deck: deck, wallNow: 1_000_000, monotonicNow: .seconds(103))
        #expect(r.wallTimeMs == 997_000)
        #expect(r.monotonicNs == 100_000_000_000)
        #expect(r.dwellMs == 2500)
        #expect(r.deckID == "minimal")
        #expect(r.deckVersion == 1)
    }
}
