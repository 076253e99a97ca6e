import Testing

@testable import CardModel

/// What the list asks the renderer to draw ahead: the detail page of the row under a resting
/// finger, exactly as the frame that opens it shows it, and nothing once no tap can follow.
@Suite struct ListDeckPrepareTests {
    /// Row k's centre at rest, unscrolled.
    func rowCentre(_ k: Int) -> Point { Point(x: 400, y: 56 + 76 * Double(k) + 38) }

    func list(_ n: Int = 12) -> ListDeck { ListDeck(cards: sampleCards(n), metrics: panel7, randomSeed: 3) }

    @Test func nothingAtRest() {
        var deck = list()
        let rest = deck.scene(at: .seconds(1))
        #expect(deck.elementsToPrepare(in: rest).isEmpty)
        #expect(deck.cardUnderPendingTap == nil)
    }

    /// The prepared element is the one the opening frame draws: same kind, frame, transform and
    /// shadow (the renderer's cache key), so that frame only places it.
    @Test func aRestingFingerPreparesItsRowsPageAsTheTapOpensIt() throws {
        var deck = list()
        var s = TouchScript()
        s.down(rowCentre(3))
        deck.play(&s)
        let touched = deck.scene(at: s.now)
        #expect(deck.cardUnderPendingTap?.id == "c3")
        let prepared = deck.elementsToPrepare(in: touched)
        #expect(prepared.map(\.id) == ["detail:c3", "button:back", "button:detail-delete"])
        s.up(afterMs: 80)
        deck.play(&s)
        let opening = deck.scene(at: s.now)
        for e in prepared {
            let shown = try #require(opening.element(e.id))
            #expect(e == shown)
        }
        #expect(deck.elementsToPrepare(in: opening).isEmpty, "the page is open: nothing more to prepare")
    }

    @Test(arguments: [Point(x: -120, y: 4), Point(x: 0, y: -120)])
    func aSwipeOrScrollWantsNoPage(by d: Point) {
        var deck = list()
        var s = TouchScript()
        s.down(rowCentre(2))
        deck.play(&s)
        #expect(!deck.elementsToPrepare(in: deck.scene(at: s.now)).isEmpty)
        s.move(to: rowCentre(2) + d, over: 200)
        deck.play(&s)
        #expect(deck.elementsToPrepare(in: deck.scene(at: s.now)).isEmpty)
        s.up(afterMs: 16)
        deck.play(&s)
        #expect(deck.openCard == nil)
        #expect(deck.elementsToPrepare(in: deck.scene(at: s.now.advanced(bySeconds: 3))).isEmpty)
    }

    /// A touch that stops a moving list is no tap: nothing to prepare.
    @Test func catchingAMovingListWantsNoPage() {
        var deck = list(60)
        var s = TouchScript()
        s.down(rowCentre(6))
        s.move(to: rowCentre(6) + Point(x: 0, y: -150), over: 100)
        s.up(afterMs: 16)
        s.wait(50)
        s.down(rowCentre(4))
        deck.play(&s)
        #expect(deck.cardUnderPendingTap == nil)
        #expect(deck.elementsToPrepare(in: deck.scene(at: s.now)).isEmpty)
    }

    /// With a page open, a finger on it (its back or Delete control) prepares nothing.
    @Test func anOpenPageWantsNoOtherPage() {
        var deck = list()
        var s = TouchScript()
        s.down(rowCentre(1))
        s.up(afterMs: 80)
        s.wait(2000)
        s.down(rowCentre(4))
        deck.play(&s)
        #expect(deck.openCard?.id == "c1")
        #expect(deck.elementsToPrepare(in: deck.scene(at: s.now)).isEmpty)
    }
}
