import Testing

@testable import CardModel

/// The countdown before the idle reset, its extensions and the partial-visit policy; time is
/// a parameter throughout.
@Suite struct InactivityWarningTests {
    final class Counter {
        var n = 0
        func next() -> String {
            n += 1
            return "s\(n)"
        }
    }

    func session(
        idle: Double = 60, warning: Double = 10, blank: Double? = nil,
        partial: VisitorSession.PartialVisitPolicy = .keep
    ) -> VisitorSession {
        let counter = Counter()
        return VisitorSession(
            policy: .init(idleTimeout: idle, blankTimeout: blank, warningSeconds: warning, partialVisit: partial),
            now: .zero, newSessionID: counter.next)
    }

    func frame(_ t: Double, _ id: Int, _ phase: TouchPhase) -> TouchFrame {
        TouchFrame(time: .seconds(t), contacts: [TouchContact(id: id, position: Point(x: 10, y: 10), phase: phase)])
    }

    /// Down and up 0.1 s later; how many of the two frames reached the deck.
    @discardableResult
    func tap(_ s: inout VisitorSession, at t: Double, id: Int = 1) -> (delivered: Int, effects: [VisitorSession.Effect])
    {
        let a = s.handle(frame(t, id, .began))
        let b = s.handle(frame(t + 0.1, id, .ended))
        return ((a.deliver == nil ? 0 : 1) + (b.deliver == nil ? 0 : 1), a.effects + b.effects)
    }

    @Test func countdownStartsTenSecondsBeforeTheResetAndCountsDown() {
        var s = session()
        tap(&s, at: 0)  // last activity 0.1
        #expect(s.nextDeadline == .seconds(50.1))
        #expect(s.warning(at: .seconds(50.09)) == nil)
        #expect(s.advance(to: .seconds(50.09)).isEmpty)
        #expect(s.advance(to: .seconds(50.1)) == [.warningShown(resetAt: .seconds(60.1))])
        #expect(s.warningShowing)
        #expect(s.advance(to: .seconds(51)).isEmpty)  // shown once
        #expect(s.warning(at: .seconds(50.1))?.secondsLeft == 10)
        #expect(s.warning(at: .seconds(55.0))?.secondsLeft == 6)
        #expect(s.warning(at: .seconds(60.0))?.secondsLeft == 1)
        // The redraw for the next number comes when the number changes.
        let tick = s.warningTick(after: .seconds(55.0))
        #expect(tick.map { abs($0.seconds(since: .seconds(55.1))) < 1e-6 } == true)
        #expect(s.nextDeadline == .seconds(60.1))
        #expect(s.advance(to: .seconds(60.1)) == [.reset(sessionID: "s2")])
        #expect(s.warning(at: .seconds(60.1)) == nil)
        #expect(!s.warningShowing)
        #expect(s.phase == .attract)
    }

    @Test func aTouchDuringTheCountdownExtendsAndDecidesNothing() {
        var s = session()
        tap(&s, at: 0)
        _ = s.advance(to: .seconds(52))
        let down = s.handle(frame(52, 7, .began))
        #expect(down.deliver == nil)  // swallowed
        #expect(down.effects == [.warningExtended(count: 1)])
        let move = s.handle(frame(52.05, 7, .moved))
        #expect(move.deliver == nil)
        let up = s.handle(frame(52.1, 7, .ended))
        #expect(up.deliver == nil)
        #expect(s.warning(at: .seconds(53)) == nil)
        #expect(s.phase == .active)
        #expect(s.sessionID == "s1")  // the same visit goes on
        // The next touch after the extension reaches the deck again.
        #expect(tap(&s, at: 53).delivered == 2)
        #expect(s.nextDeadline == .seconds(103.1))
    }

    @Test func aSecondFingerLandingWithTheExtendingOneIsSwallowedToo() {
        var s = session()
        tap(&s, at: 0)
        _ = s.advance(to: .seconds(55))
        #expect(s.handle(frame(55, 1, .began)).deliver == nil)
        #expect(s.handle(frame(55.02, 2, .began)).deliver == nil)
        #expect(s.handle(frame(55.1, 1, .ended)).deliver == nil)
        #expect(s.handle(frame(55.12, 2, .ended)).deliver == nil)
        #expect(tap(&s, at: 56).delivered == 2)
    }

    @Test func aKeyDuringTheCountdownExtendsAndIsNotDelivered() {
        var s = session()
        tap(&s, at: 0)
        let before = s.handleKey(at: .seconds(10))
        #expect(before.deliver && before.effects.isEmpty)
        _ = s.advance(to: .seconds(61))
        let during = s.handleKey(at: .seconds(61))
        #expect(!during.deliver)
        #expect(during.effects == [.warningExtended(count: 1)])
        #expect(s.warning(at: .seconds(61.5)) == nil)
        #expect(s.nextDeadline == .seconds(111))
    }

    @Test func theVisitCanBeExtendedAtLeastTenTimes() throws {
        var s = session(idle: 30, warning: 10)
        tap(&s, at: 0)
        for n in 1...25 {
            let warnAt = try #require(s.nextDeadline)
            #expect(s.advance(to: warnAt) == [.warningShown(resetAt: warnAt.advanced(bySeconds: 10))])
            let r = tap(&s, at: warnAt.seconds + 3)
            #expect(r.delivered == 0)
            #expect(r.effects == [.warningExtended(count: n)])
            #expect(s.sessionID == "s1")
        }
        #expect(s.extensions == 25)
        // Left alone, the visit then ends and the count starts over.
        let warnAt = try #require(s.nextDeadline)
        _ = s.advance(to: warnAt)
        #expect(s.advance(to: warnAt.advanced(bySeconds: 10)) == [.reset(sessionID: "s2")])
        #expect(s.extensions == 0)
    }

    @Test func aDecisionDuringTheCountdownHidesItLikeATouch() {
        var s = session()
        tap(&s, at: 0)
        _ = s.advance(to: .seconds(55))
        s.noteActivity(at: .seconds(56))
        #expect(s.warning(at: .seconds(56)) == nil)
        #expect(!s.warningShowing)
        #expect(s.nextDeadline == .seconds(106))
    }

    @Test func noCountdownWhileAFingerIsDownOrInAttractMode() {
        var s = session()
        #expect(s.warning(at: .seconds(55)) == nil)  // attract: nothing to warn about
        _ = s.handle(frame(0, 1, .began))  // held
        #expect(s.warning(at: .seconds(55)) == nil)
        #expect(s.advance(to: .seconds(55)).isEmpty)
        _ = s.handle(frame(56, 1, .ended))
        #expect(s.nextDeadline == .seconds(106))
    }

    @Test func warningZeroMeansNoCountdownAndALongerWarningIsCappedAtTheTimeout() {
        var off = session(warning: 0)
        tap(&off, at: 0)
        #expect(off.nextDeadline == .seconds(60.1))
        #expect(off.advance(to: .seconds(59)).isEmpty)
        var long = session(idle: 20, warning: 30)
        tap(&long, at: 0)
        #expect(long.nextDeadline == .seconds(0.1))
        #expect(long.warning(at: .seconds(0.2))?.secondsLeft == 20)
    }

    @Test func accessibleModeWarnsAtLeastTwentySeconds() {
        let p = VisitorSession.Policy(idleTimeout: 15, warningSeconds: 10).accessible()
        #expect(p.warningSeconds == 20)
        #expect(p.idleTimeout == 30)
        let already = VisitorSession.Policy(idleTimeout: 120, warningSeconds: 45).accessible()
        #expect(already.warningSeconds == 45)
        #expect(already.idleTimeout == 120)
        var s = VisitorSession(policy: p, now: .zero) { "s" }
        _ = s.handle(frame(0, 1, .began))
        _ = s.handle(frame(0.1, 1, .ended))
        #expect(s.nextDeadline == .seconds(10.1))
        #expect(s.warning(at: .seconds(10.1))?.secondsLeft == 20)
    }

    @Test func discardPolicyMarksTheTimedOutVisitBeforeTheReset() {
        var s = session(partial: .discard)
        tap(&s, at: 0)
        _ = s.advance(to: .seconds(50.1))
        #expect(s.advance(to: .seconds(60.1)) == [.discardVisit(sessionID: "s1"), .reset(sessionID: "s2")])
        // Also when the blank timeout ends the visit.
        var b = session(warning: 0, blank: 30, partial: .discard)
        tap(&b, at: 0)
        #expect(b.advance(to: .seconds(40)) == [.discardVisit(sessionID: "s1"), .reset(sessionID: "s2"), .blank])
    }

    @Test func keepPolicyNeverAsksToDiscard() {
        var s = session(partial: .keep)
        tap(&s, at: 0)
        let effects = s.advance(to: .seconds(50.1)) + s.advance(to: .seconds(60.1))
        #expect(!effects.contains { if case .discardVisit = $0 { true } else { false } })
        #expect(effects.last == .reset(sessionID: "s2"))
    }

    @Test func overlayPutsTheCountdownOnTopOfTheScene() {
        let card = SceneElement(
            id: "card:a", kind: .card(Card(id: "a", title: "A", color: .white)),
            frame: Rect(x: 0, y: 0, width: 100, height: 100), zIndex: 5)
        let scene = Scene(size: Size(width: 800, height: 480), background: .white, elements: [card], isAnimating: false)
        #expect(InactivityWarning.overlay(scene, nil, text: "x") == scene)
        let w = VisitorSession.Warning(resetAt: .seconds(10), secondsLeft: 7, extensions: 0)
        let shown = InactivityWarning.overlay(scene, w, text: "Tippen")
        #expect(shown.elements.last?.kind == .countdown(secondsLeft: 7, text: "Tippen"))
        #expect(shown.elements.last?.frame == Rect(x: 0, y: 0, width: 800, height: 480))
        let later = InactivityWarning.overlay(
            scene, VisitorSession.Warning(resetAt: .seconds(10), secondsLeft: 6, extensions: 0), text: "Tippen")
        #expect(later.damage(since: shown) == Rect(x: 0, y: 0, width: 800, height: 480))
    }
}

@Suite struct VisitOrderTests {
    let cards = (0..<12).map { Card(id: "c\($0)", title: "C\($0)", color: .white) }

    @Test func theSameSeedGivesTheSameOrderAndAnotherSeedAnother() {
        let order = VisitOrder(shuffle: true)
        let a = order.order(cards, seed: 42).map(\.id)
        #expect(a == order.order(cards, seed: 42).map(\.id))
        #expect(Set(a) == Set(cards.map(\.id)))
        #expect(a.count == cards.count)
        #expect(a != cards.map(\.id))
        let others = (1...20).map { order.order(cards, seed: UInt64($0)).map(\.id) }
        #expect(Set(others).count > 15)
    }

    /// The documented algorithm's orders, computed once outside this code (a Python
    /// SplitMix64 that gives the published first output 0xE220A8397B1DCDAF for seed 0, and a
    /// Fisher–Yates from the last index down, j = next() % (i + 1)), written here as literals:
    /// a change in the algorithm would silently change past visits' positions.
    @Test func knownOrdersStayTheSameAcrossVersions() {
        var zero = SplitMix64(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
        var one = SplitMix64(seed: 1)
        #expect([one.next(), one.next()] == [0x910A_2DEC_8902_5CC1, 0xBEEB_8DA1_658E_EC67])
        let shuffled = VisitOrder(shuffle: true)
        #expect(shuffled.order(Array(cards.prefix(5)), seed: 1).map(\.id) == ["c2", "c1", "c4", "c3", "c0"])
        #expect(
            shuffled.order(cards, seed: 42).map(\.id)
                == ["c9", "c6", "c7", "c10", "c3", "c11", "c4", "c2", "c0", "c8", "c5", "c1"])
        let pinned = VisitOrder(shuffle: true, pinnedFirst: ["c3", "c0"], pinnedLast: ["c11"])
        #expect(
            pinned.order(cards, seed: 9).map(\.id)
                == ["c3", "c0", "c5", "c10", "c7", "c9", "c2", "c1", "c8", "c4", "c6", "c11"])
    }

    @Test func pinnedCardsComeFirstAndLastInTheirOrder() {
        let order = VisitOrder(shuffle: true, pinnedFirst: ["c3", "c0"], pinnedLast: ["c11", "nope"])
        for seed in UInt64(0)..<50 {
            let ids = order.order(cards, seed: seed).map(\.id)
            #expect(Array(ids.prefix(2)) == ["c3", "c0"])
            #expect(ids.last == "c11")
            #expect(Set(ids).count == 12)
        }
        let positions = VisitOrder.positions(order.order(cards, seed: 9))
        #expect(positions["c3"] == 0)
        #expect(positions["c0"] == 1)
        #expect(positions["c11"] == 11)
    }

    @Test func withoutShuffleTheFileOrderStays() {
        #expect(VisitOrder().order(cards, seed: 5) == cards)
        #expect(VisitOrder(shuffle: false, pinnedFirst: ["c5"]).order(cards, seed: 5) == cards)
    }

    @Test func theStackShowsTheRealisedOrder() {
        let order = VisitOrder(shuffle: true, pinnedFirst: ["c4"]).order(cards, seed: 77)
        var deck = StackDeck(
            cards: order, metrics: ScreenMetrics(size: Size(width: 800, height: 480), pointsPerMillimetre: 6.3))
        deck.perform(.dismissRight, at: .seconds(1))
        _ = deck.scene(at: .seconds(3))
        deck.perform(.dismissLeft, at: .seconds(4))
        _ = deck.scene(at: .seconds(6))
        let decided = deck.takeDecisions().map(\.cardID)
        #expect(decided == [order[0].id, order[1].id])
        #expect(decided.first == "c4")
    }
}

@Suite struct DecisionCooldownTests {
    func decision(_ t: Double) -> Decision {
        Decision(cardID: "a", action: .swipedRight, time: .seconds(t), dwellSeconds: 0)
    }

    func flag(_ c: inout DecisionCooldown, _ t: Double) -> Bool { c.isTooFast(decision(t)) }

    @Test func decisionsInsideTheCooldownAreFlagged() {
        var c = DecisionCooldown(seconds: 1)
        #expect(flag(&c, 10) == false)  // the first of a visit
        #expect(flag(&c, 10.5) == true)
        #expect(flag(&c, 11.25) == true)  // 0.75 s after the flagged one: mashing goes on
        #expect(flag(&c, 12.25) == false)  // exactly the cooldown
        #expect(flag(&c, 20) == false)
        c.reset()
        #expect(flag(&c, 20.1) == false)  // a new visit
    }

    @Test func zeroIsOff() {
        var c = DecisionCooldown()
        #expect(flag(&c, 1) == false)
        #expect(flag(&c, 1) == false)
        #expect(flag(&c, 1.001) == false)
    }
}
