import Testing

@testable import CardModel

/// Seeded random sessions: touches (several fingers, unplugs), commands and frames at random
/// times. Debug builds check each deck's invariants after every mutation; here the scenes and
/// the decision ledger are checked too.
@Suite struct DeckFuzzTests {
    struct Session {
        var random: SplitMix64
        var now = Instant.seconds(1)
        var fingers: [Int: Point] = [:]
        var nextID = 1

        init(seed: UInt64) { random = SplitMix64(seed: seed) }

        mutating func double(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &random) }

        /// The next input: a touch frame, a command, or nil for "draw a frame".
        mutating func step(size: Size) -> (TouchFrame?, DeckAction?, unplug: Bool) {
            now = now.advanced(bySeconds: double(0.004...0.12))
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<3 where fingers.count < 3:
                let id = nextID
                nextID += 1
                let p = Point(x: double(0...size.width), y: double(0...size.height))
                fingers[id] = p
                return (TouchFrame(time: now, contacts: contacts(changing: id, to: p, phase: .began)), nil, false)
            case 3..<12 where !fingers.isEmpty:
                let id = fingers.keys.sorted()[Int.random(in: 0..<fingers.count, using: &random)]
                let p = fingers[id]! + Point(x: double(-90...90), y: double(-90...90))
                fingers[id] = p
                return (TouchFrame(time: now, contacts: contacts(changing: id, to: p, phase: .moved)), nil, false)
            case 12..<15 where !fingers.isEmpty:
                let id = fingers.keys.sorted()[0]
                let f = TouchFrame(time: now, contacts: contacts(changing: id, to: fingers[id]!, phase: .ended))
                fingers[id] = nil
                return (f, nil, false)
            case 15:
                let all: [DeckAction] = [
                    .dismissLeft, .dismissRight, .remove, .undo, .open, .back, .add, .focusNext, .focusPrevious,
                ]
                return (nil, all[Int.random(in: 0..<all.count, using: &random)], false)
            case 16:
                fingers.removeAll()
                return (nil, nil, true)
            default:
                return (nil, nil, false)
            }
        }

        func contacts(changing id: Int, to p: Point, phase: TouchPhase) -> [TouchContact] {
            fingers.keys.sorted().map { k in
                k == id
                    ? TouchContact(id: k, position: p, phase: phase)
                    : TouchContact(id: k, position: fingers[k]!, phase: .moved)
            }
        }
    }

    func check(_ scene: Scene, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(Set(scene.elements.map(\.id)).count == scene.elements.count, sourceLocation: sourceLocation)
        for e in scene.elements {
            let values = [
                e.frame.minX, e.frame.minY, e.frame.width, e.frame.height, e.transform.translation.x,
                e.transform.translation.y, e.transform.rotation, e.transform.scale, e.opacity,
            ]
            let finite = values.allSatisfy { $0.isFinite }
            #expect(finite, "\(e.id)", sourceLocation: sourceLocation)
            #expect(e.opacity >= 0 && e.opacity <= 1, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func stackSessions(seed: UInt64) {
        var s = Session(seed: seed)
        var deck = StackDeck(cards: sampleCards(8), metrics: panel7, options: StackOptions(showButtons: true))
        var gone = 0
        var all: [Decision] = []
        for _ in 0..<600 {
            let (frame, command, unplug) = s.step(size: panel7.size)
            if let frame { deck.handle(frame) }
            if let command { deck.perform(command, at: s.now) }
            if unplug { deck.cancelTouches(at: s.now) }
            if frame == nil && command == nil && !unplug { check(deck.scene(at: s.now)) }
            for d in deck.takeDecisions() {
                all.append(d)
                gone += d.action == .undone ? -1 : 1
                #expect(d.time == s.now && d.dwellSeconds >= 0)
            }
            #expect(deck.remainingCards.count == 8 - gone)
        }
        #expect(all.count > 5, "the session did something")
        check(deck.scene(at: s.now.advanced(bySeconds: 10)))
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func listSessions(seed: UInt64) {
        var s = Session(seed: seed)
        var deck = ListDeck(cards: sampleCards(12), metrics: panel7, randomSeed: seed)
        var count = 12
        var actions = 0
        for _ in 0..<600 {
            let (frame, command, unplug) = s.step(size: panel7.size)
            if let frame { deck.handle(frame) }
            if let command { deck.perform(command, at: s.now) }
            if unplug { deck.cancelTouches(at: s.now) }
            if frame == nil && command == nil && !unplug { check(deck.scene(at: s.now)) }
            for d in deck.takeDecisions() {
                actions += 1
                if d.action == .added { count += 1 }
                if d.action == .deleted { count -= 1 }
            }
            #expect(deck.cards.count == count)
        }
        #expect(actions > 3)
        let rest = s.now.advanced(bySeconds: 20)
        let offset = deck.scrollOffset(at: rest)
        if !deck.recognizer.isActive {
            #expect(offset >= 0 && offset <= deck.maxOffset, "scroll settles inside the content")
        }
    }
}
