import CardModel
import Testing

@Suite struct DeckVisitorSessionTests {
    /// Session ids "s1", "s2", … so tests can name them.
    final class Counter {
        var n = 0
        func next() -> String {
            n += 1
            return "s\(n)"
        }
    }

    /// Without a warning unless `warning` says (the countdown's own tests are in
    /// InactivityWarningTests).
    func session(idle: Double = 60, blank: Double? = nil, at t: Double = 0, warning: Double = 0) -> VisitorSession {
        let counter = Counter()
        return VisitorSession(
            policy: .init(idleTimeout: idle, blankTimeout: blank, warningSeconds: warning), now: .seconds(t),
            newSessionID: counter.next)
    }

    func frame(_ t: Double, _ contacts: (Int, TouchPhase)...) -> TouchFrame {
        TouchFrame(
            time: .seconds(t),
            contacts: contacts.map { TouchContact(id: $0.0, position: Point(x: 10, y: 10), phase: $0.1) })
    }

    /// A tap: down at `t`, up 0.1 s later; returns the delivered frames' count.
    @discardableResult
    func tap(_ s: inout VisitorSession, at t: Double, id: Int = 1) -> Int {
        var delivered = 0
        if s.handle(frame(t, (id, .began))).deliver != nil { delivered += 1 }
        if s.handle(frame(t + 0.1, (id, .ended))).deliver != nil { delivered += 1 }
        return delivered
    }

    @Test func startsInAttractAndTheFirstTouchIsDeliveredAndStartsTheVisit() {
        var s = session()
        #expect(s.phase == .attract)
        #expect(s.sessionID == "s1")
        #expect(s.attractSince == .zero)
        #expect(s.nextDeadline == nil)  // nothing to time out while waiting
        let r = s.handle(frame(5, (1, .began)))
        #expect(r.deliver == frame(5, (1, .began)))
        #expect(r.effects.isEmpty)
        #expect(s.phase == .active)
        #expect(s.attractSince == nil)
    }

    @Test func idleTimeoutResetsWithANewSessionExactlyOnTime() {
        var s = session(idle: 60)
        tap(&s, at: 10)
        #expect(s.nextDeadline == Instant.seconds(10.1).advanced(bySeconds: 60))
        #expect(s.advance(to: .seconds(70.09)).isEmpty)
        #expect(s.phase == .active)
        #expect(s.advance(to: .seconds(70.1)) == [.reset(sessionID: "s2")])
        #expect(s.phase == .attract)
        #expect(s.sessionID == "s2")
        #expect(s.attractSince == .seconds(70.1))
        // In attract mode the next timeout does not reset again.
        #expect(s.advance(to: .seconds(500)).isEmpty)
        #expect(s.sessionID == "s2")
    }

    @Test func activityPostponesTheReset() {
        var s = session(idle: 60)
        tap(&s, at: 0)
        tap(&s, at: 50)
        #expect(s.advance(to: .seconds(100)).isEmpty)
        s.noteActivity(at: .seconds(100))  // e.g. the on-screen "remove card" button
        #expect(s.advance(to: .seconds(159)).isEmpty)
        #expect(s.advance(to: .seconds(160)) == [.reset(sessionID: "s2")])
    }

    @Test func aFingerRestingOnTheScreenIsNotIdle() {
        var s = session(idle: 60)
        _ = s.handle(frame(0, (1, .began)))
        #expect(s.nextDeadline == nil)
        #expect(s.advance(to: .seconds(300)).isEmpty)
        _ = s.handle(frame(301, (1, .ended)))
        #expect(s.nextDeadline == .seconds(361))
        #expect(s.advance(to: .seconds(361)) == [.reset(sessionID: "s2")])
    }

    @Test func blankAfterTheLongerTimeoutAndTheWakingTouchDoesNotActOnACard() {
        var s = session(idle: 60, blank: 300)
        tap(&s, at: 0)
        #expect(s.advance(to: .seconds(60.1)) == [.reset(sessionID: "s2")])
        #expect(s.nextDeadline == .seconds(300.1))
        #expect(s.advance(to: .seconds(300.1)) == [.blank])
        #expect(s.phase == .blanked)
        #expect(s.nextDeadline == nil)

        // The waking touch: a swipe whose frames would fling the top card if delivered.
        let down = s.handle(frame(1000, (1, .began)))
        #expect(down.effects == [.wake])
        #expect(down.deliver == nil)
        #expect(s.phase == .attract)
        // A second finger joining the waking touch is swallowed too; the first finger's moves too.
        #expect(s.handle(frame(1000.05, (1, .moved), (2, .began))).deliver == nil)
        #expect(s.handle(frame(1000.1, (1, .moved), (2, .moved))).deliver == nil)
        #expect(s.handle(frame(1000.2, (1, .ended), (2, .moved))).deliver == nil)
        #expect(s.handle(frame(1000.3, (2, .ended))).deliver == nil)
        #expect(s.phase == .attract)
        #expect(s.sessionID == "s2")  // the reset before blanking already started the next session

        // The next touch acts.
        let next = s.handle(frame(1002, (3, .began)))
        #expect(next.deliver == frame(1002, (3, .began)))
        #expect(next.effects.isEmpty)
        #expect(s.phase == .active)
    }

    @Test func blankShorterThanIdleResetsAndBlanksTogether() {
        var s = session(idle: 120, blank: 30)
        tap(&s, at: 0)
        #expect(s.nextDeadline == .seconds(30.1))
        #expect(s.advance(to: .seconds(30.1)) == [.reset(sessionID: "s2"), .blank])
        #expect(s.phase == .blanked)
    }

    @Test func aLateAdvanceDoesBothAtOnce() {
        var s = session(idle: 60, blank: 300)
        tap(&s, at: 0)
        #expect(s.advance(to: .seconds(1000)) == [.reset(sessionID: "s2"), .blank])
    }

    @Test func emptyFramesAreNotActivity() {
        var s = session(idle: 60)
        tap(&s, at: 0)
        let r = s.handle(TouchFrame(time: .seconds(50), contacts: []))
        #expect(r.effects.isEmpty)
        #expect(s.advance(to: .seconds(60.1)) == [.reset(sessionID: "s2")])
    }

    /// Seeded random visits: invariants after every step.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomVisitsKeepTheInvariants(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var s = session(idle: 60, blank: 240)
        var t = 0.0
        var down: Set<Int> = []
        var nextID = 1
        var wokenContacts: Set<Int> = []
        var sessions: Set<String> = [s.sessionID]
        for _ in 0..<3000 {
            t += [0.01, 0.5, 5, 70, 300][Int(rng.next() % 5)]
            let wasBlanked = s.phase == .blanked
            var contacts: [TouchContact] = []
            if rng.next() % 3 == 0 || down.isEmpty {
                contacts.append(TouchContact(id: nextID, position: .zero, phase: .began))
                down.insert(nextID)
                nextID += 1
            }
            for id in down where !contacts.contains(where: { $0.id == id }) {
                let phase: TouchPhase = rng.next() % 3 == 0 ? .ended : .moved
                contacts.append(TouchContact(id: id, position: .zero, phase: phase))
            }
            for c in contacts where c.phase == .ended { down.remove(c.id) }
            let r = s.handle(TouchFrame(time: .seconds(t), contacts: contacts))
            if wasBlanked {
                #expect(r.effects == [.wake])
                for c in contacts where c.phase == .began { wokenContacts.insert(c.id) }
            }
            if !wokenContacts.isEmpty && !wasBlanked {
                // Contacts that begin while a waking contact is down join the waking touch.
                if wokenContacts.contains(where: { down.contains($0) }) {
                    for c in contacts where c.phase == .began { wokenContacts.insert(c.id) }
                }
            }
            for c in r.deliver?.contacts ?? [] {
                #expect(!wokenContacts.contains(c.id), "a waking contact reached the deck (seed \(seed))")
            }
            if down.isEmpty { wokenContacts.removeAll() }
            if down.isEmpty && rng.next() % 2 == 0 {
                t += [1, 61, 250][Int(rng.next() % 3)]
                for e in s.advance(to: .seconds(t)) {
                    if case .reset(let id) = e {
                        #expect(!sessions.contains(id))
                        sessions.insert(id)
                    }
                }
                #expect(s.phase != .active || t - s.lastActivity.seconds < 60)
                if let d = s.nextDeadline { #expect(d > .seconds(t)) }
            }
        }
        #expect(sessions.count > 10)
    }
}
