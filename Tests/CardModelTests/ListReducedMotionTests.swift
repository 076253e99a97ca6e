import Testing

@testable import CardModel

/// Reduced motion on the list (WCAG 2.3.3): a swipe let go, the rows closing up after a delete,
/// the detail page and a fling into the end neither spring past their rest nor bounce. Each
/// case first shows that the default look does overshoot, so the calm assertion can fail.
@Suite struct ListReducedMotionTests {
    func rowCentre(_ k: Int) -> Point { Point(x: 400, y: 56 + 76 * Double(k) + 38) }

    func list(_ n: Int, reduced: Bool) -> ListDeck {
        // The seed's geometry (a 56 pt bar) whatever 9 mm is on `panel7`, as in ListDeckTests.
        var deck = ListDeck(
            cards: sampleCards(n), metrics: panel7, randomSeed: 7, layout: ListLayout(screen: panel7.size))
        deck.setAccessibility(VisitAccessibility(reducedMotion: reduced), at: .seconds(0.5))
        return deck
    }

    /// `read` at 120 Hz for 1.5 s from `from`.
    func samples(_ deck: inout ListDeck, from: Instant, _ read: (Scene) -> Double?) -> [Double] {
        (0..<180).compactMap { k in read(deck.scene(at: from.advanced(bySeconds: Double(k) / 120))) }
    }

    /// A row pulled 36 pt left (short of the Delete button) and let go springs back to 0.
    func swipeBack(reduced: Bool) -> [Double] {
        var deck = list(6, reduced: reduced)
        var s = TouchScript()
        s.drag(from: rowCentre(1), by: Point(x: -36, y: 0), over: 120, holdMs: 0)
        deck.play(&s)
        return samples(&deck, from: s.now) { $0.element("row:c1")?.transform.translation.x }
    }

    @Test func aSwipeLetGoComesBackWithoutPassingRest() {
        let normal = swipeBack(reduced: false)
        let calm = swipeBack(reduced: true)
        #expect(normal.contains { $0 > 0.05 }, "the default springs past 0 (ζ 0.825: about 1 %)")
        #expect(!calm.isEmpty && calm.allSatisfy { $0 <= 0.001 })
        #expect(calm.last.map { abs($0) < 0.1 } == true)
    }

    /// A fast partial swipe snaps open on the Delete button (−80 pt).
    func swipeOpen(reduced: Bool) -> [Double] {
        var deck = list(6, reduced: reduced)
        var s = TouchScript()
        s.drag(from: rowCentre(1), by: Point(x: -120, y: 0), over: 500, holdMs: 0)
        deck.play(&s)
        return samples(&deck, from: s.now) { $0.element("row:c1")?.transform.translation.x }
    }

    @Test func aPartialSwipeSettlesOnItsDeleteButtonWithoutOvershoot() {
        let w = ListLayout.deleteButtonWidth
        let normal = swipeOpen(reduced: false)
        let calm = swipeOpen(reduced: true)
        #expect(normal.contains { $0 > -w + 0.05 }, "the default passes −80 on its way back")
        #expect(!calm.isEmpty && calm.allSatisfy { $0 <= -w + 0.001 })
        #expect(calm.last.map { abs($0 + w) < 0.1 } == true)
    }

    /// Row 3 deleted by key: the rows below close up by one slot.
    func closeUp(reduced: Bool) -> [Double] {
        var deck = list(6, reduced: reduced)
        for _ in 0..<4 { deck.perform(.focusNext, at: .seconds(1)) }
        #expect(deck.focusedCard?.id == "c3")
        deck.perform(.remove, at: .seconds(1))
        #expect(deck.takeDecisions().map(\.cardID) == ["c3"])
        // Row c4's top: it moves up from slot 4 to slot 3.
        return samples(&deck, from: .seconds(1)) { $0.element("row:c4")?.frame.minY }
    }

    @Test func rowsCloseUpWithoutPassingTheirSlot() {
        let slot3 = 56 + 76 * 3.0 + 2
        let normal = closeUp(reduced: false)
        let calm = closeUp(reduced: true)
        #expect(normal.contains { $0 < slot3 - 0.5 }, "the default springs past the slot")
        #expect(!calm.isEmpty && calm.allSatisfy { $0 >= slot3 - 0.001 })
        #expect(calm.last.map { abs($0 - slot3) < 0.1 } == true)
    }

    func detailSlide(reduced: Bool) -> [Double] {
        var deck = list(3, reduced: reduced)
        deck.perform(.open, at: .seconds(1))
        return samples(&deck, from: .seconds(1)) { $0.element("detail:c0")?.transform.translation.x }
    }

    @Test func theDetailPageSlidesInWithoutOvershoot() {
        let normal = detailSlide(reduced: false)
        let calm = detailSlide(reduced: true)
        #expect(normal.contains { $0 < -0.5 }, "the default slides past 0")
        #expect(!calm.isEmpty && calm.allSatisfy { $0 >= -0.001 })
        #expect(calm.last.map { abs($0) < 0.1 } == true)
    }

    /// A 2400 pt/s fling towards the end of 16 rows (max offset 792).
    func fling(reduced: Bool) -> [Double] {
        var deck = list(16, reduced: reduced)
        var s = TouchScript()
        s.down(rowCentre(5))
        s.move(to: rowCentre(5) + Point(x: 0, y: -240), over: 100)
        s.up(afterMs: 1000 / 60)
        deck.play(&s)
        return stride(from: 0.0, through: 3, by: 1 / 60).map { deck.scrollOffset(at: s.now.advanced(bySeconds: $0)) }
    }

    @Test func aFlingStopsAtTheEndWithoutBouncing() {
        let normal = fling(reduced: false)
        let calm = fling(reduced: true)
        #expect(normal.max()! > 792 + 5, "the default bounces past the end")
        #expect(calm.max()! <= 792 + 0.001)
        #expect(calm.last! == 792, "the momentum still carries it to the end")
        // Monotonic: it coasts and stops, it never comes back.
        #expect(zip(calm, calm.dropFirst()).allSatisfy { $0.1 >= $0.0 - 0.001 })
    }
}
