import Testing

@testable import CardModel

/// What the report needs from the model: each decision's position in the visit and how it was
/// given, a stack's completion, and the visitor session's visit events.
@Suite struct DecisionPositionTests {
    let centre = Point(x: 400, y: 240)

    func swipe(_ deck: inout StackDeck, _ s: inout TouchScript, dx: Double) {
        s.down(centre)
        s.move(to: centre + Point(x: dx, y: 0), over: 150)
        s.up()
        deck.play(&s)
    }

    @Test func positionsCountDecidedCardsAndMethodsNameTheInput() throws {
        var deck = StackDeck(cards: sampleCards(4), metrics: panel7, options: StackOptions(showButtons: true))
        var s = TouchScript()
        swipe(&deck, &s, dx: 300)
        s.wait(500)
        let right = try #require(deck.layout.frame(of: .dismissLeft)).center
        s.down(right)
        s.up(afterMs: 60)
        deck.play(&s)
        s.wait(500)
        deck.perform(.undo, at: s.now)
        deck.perform(.dismissRight, at: s.now.advanced(bySeconds: 1))
        let d = deck.takeDecisions()
        #expect(d.map(\.action) == [.swipedRight, .swipedLeft, .undone, .swipedRight])
        #expect(d.map(\.position) == [0, 1, 1, 1])
        #expect(d.map(\.method) == [.swipe, .button, nil, nil])
        #expect(!deck.isCompleted)
        deck.perform(.dismissLeft, at: s.now.advanced(bySeconds: 2))
        deck.perform(.remove, at: s.now.advanced(bySeconds: 3))
        #expect(deck.takeDecisions().map(\.position) == [2, 3])
        #expect(deck.isCompleted)
        deck.reset(cards: sampleCards(2), at: s.now.advanced(bySeconds: 4))
        #expect(!deck.isCompleted)
        deck.perform(.dismissLeft, at: s.now.advanced(bySeconds: 5))
        #expect(deck.takeDecisions().map(\.position) == [0])
    }

    @Test func dwellOfTheFirstCardCountsFromTheEndOfTheAttractScreen() {
        var deck = StackDeck(cards: sampleCards(2), metrics: panel7)
        deck.setAttract(since: .seconds(1), at: .seconds(1))
        deck.setAttract(since: nil, at: .seconds(100))
        deck.perform(.dismissRight, at: .seconds(102.5))
        let d = deck.takeDecisions()
        #expect(d.count == 1)
        #expect(abs((d.first?.dwellSeconds ?? 0) - 2.5) < 1e-9)
    }

    /// The visit's first action decides the first card: it was on show since the attract screen
    /// appeared, so its time to decide counts from there, not from the action that made it.
    @Test func aFirstCardDecidedByTheVisitsFirstActionCountsFromTheAttractScreen() {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        deck.setAttract(since: .seconds(1), at: .seconds(1))
        deck.setAttract(since: nil, at: .seconds(40))
        deck.perform(.dismissRight, at: .seconds(40))
        deck.perform(.dismissLeft, at: .seconds(43))
        let d = deck.takeDecisions()
        #expect(d.map(\.dwellSeconds) == [39, 3])
    }

    @Test func sessionReportsVisitsWithTheirEndReasons() {
        var n = 0
        var session = VisitorSession(
            policy: .init(idleTimeout: 60), now: .seconds(0),
            newSessionID: {
                n += 1
                return "s\(n)"
            })
        #expect(session.takeVisitEvents() == [.attractShown(at: .seconds(0))])
        _ = session.handle(
            TouchFrame(time: .seconds(10), contacts: [TouchContact(id: 1, position: centre, phase: .began)]))
        _ = session.handle(
            TouchFrame(time: .seconds(10.1), contacts: [TouchContact(id: 1, position: centre, phase: .ended)]))
        session.noteActivity(at: .seconds(20))
        #expect(session.takeVisitEvents() == [.started(sessionID: "s1", at: .seconds(10))])
        _ = session.advance(to: .seconds(81))
        #expect(
            session.takeVisitEvents() == [
                .ended(sessionID: "s1", at: .seconds(20), reason: .idle), .attractShown(at: .seconds(81)),
            ])
        session.noteActivity(at: .seconds(100))
        session.deckCompleted = true
        _ = session.advance(to: .seconds(161))
        #expect(
            session.takeVisitEvents() == [
                .started(sessionID: "s2", at: .seconds(100)),
                .ended(sessionID: "s2", at: .seconds(100), reason: .completed),
                .attractShown(at: .seconds(161)),
            ])
        session.endVisit(reason: .reset, at: .seconds(170))  // no visitor: nothing to end
        #expect(session.takeVisitEvents().isEmpty)
        session.noteActivity(at: .seconds(180))
        session.endVisit(reason: .shutdown, at: .seconds(190))
        #expect(
            session.takeVisitEvents() == [
                .started(sessionID: "s3", at: .seconds(180)),
                .ended(sessionID: "s3", at: .seconds(190), reason: .shutdown),
                .attractShown(at: .seconds(190)),
            ])
        #expect(session.sessionID == "s4")
    }
}
