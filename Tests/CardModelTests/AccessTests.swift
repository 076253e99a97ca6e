import Testing

@testable import CardModel

/// Keys and a single switch reach every action touch reaches, for both layouts, and record
/// the same decisions (card, action, position) as the touch path, stamped `.key` / `.switch`.
@Suite struct AccessTests {
    struct Outcome: Hashable {
        var cardID: String
        var action: DecisionAction
        var position: Int?
    }

    static func outcomes(_ ds: [Decision]) -> [Outcome] {
        ds.map { Outcome(cardID: $0.cardID, action: $0.action, position: $0.position) }
    }

    // MARK: Stack

    /// What a visitor does with a 6-card stack: every kind of decision, an undo in the middle.
    static let stackPlan: [DeckAction] = [
        .dismissRight, .dismissLeft, .undo, .dismissLeft, .dismissRight, .dismissRight, .dismissLeft, .dismissRight,
    ]

    func stack() -> StackDeck {
        StackDeck(
            cards: sampleCards(6), metrics: panel7,
            options: StackOptions(showButtons: true, leftLabel: "Nein", rightLabel: "Ja"))
    }

    static func role(_ a: DeckAction) -> ButtonRole {
        switch a {
        case .dismissLeft: .dismissLeft
        case .dismissRight: .dismissRight
        default: .undo
        }
    }

    static func key(_ a: DeckAction) -> AccessKey {
        switch a {
        case .dismissLeft: .left
        case .dismissRight: .right
        default: .backspace
        }
    }

    func touchStack() throws -> [Decision] {
        var deck = stack()
        var script = TouchScript()
        var out: [Decision] = []
        for a in Self.stackPlan {
            let frame = try #require(deck.layout.frame(of: Self.role(a)))
            script.down(frame.center)
            script.up(afterMs: 60)
            deck.play(&script)
            script.wait(700)
            _ = deck.scene(at: script.now)
            out += deck.takeDecisions()
        }
        #expect(deck.isCompleted)
        return out
    }

    @Test func stackByKeysOnlyMatchesTouch() throws {
        let touch = try touchStack()
        #expect(touch.allSatisfy { $0.method == .button })
        var deck = stack()
        var t = Instant.seconds(1)
        var keyed: [Decision] = []
        for a in Self.stackPlan {
            let command = try #require(deck.command(for: Self.key(a)))
            keyed += deck.perform(command, at: t, method: .key).decisions
            t = t.advanced(bySeconds: 0.76)
            _ = deck.scene(at: t)
        }
        #expect(deck.isCompleted)
        #expect(Self.outcomes(keyed) == Self.outcomes(touch))
        #expect(keyed.allSatisfy { $0.method == .key })
        #expect(keyed.count == Self.stackPlan.count)
    }

    @Test func stackReadsTheTopCardOnUpEnterAndHelp() {
        var deck = stack()
        for key in [AccessKey.up, .enter, .help] {
            #expect(deck.command(for: key) == .speak("Card 0. Nein. Ja"))
        }
        let r = deck.perform(.deck(.dismissRight), at: .seconds(1), method: .key)
        #expect(r.decisions.map(\.cardID) == ["c0"])
        #expect(deck.spokenText == "Card 1. Nein. Ja")
        #expect(deck.command(for: .escape) == nil)
    }

    /// Drives `deck` through `plan` with one switch: steps to each wanted choice, selects it.
    func scan<D: AccessibleDeck>(
        _ deck: inout D, plan: [ScanChoice], stepping: SwitchScanner.Stepping, start: Instant
    ) throws -> (decisions: [Decision], speech: [String], end: Instant) {
        var scanner = SwitchScanner(stepping: stepping, longPress: 0.8)
        var t = start
        var decisions: [Decision] = []
        var speech: [String] = []
        func select(_ choice: ScanChoice, _ deck: inout D) {
            guard let command = deck.command(for: choice) else {
                Issue.record("\(choice) is no deck command")
                return
            }
            let r = deck.perform(command, at: t, method: .switchAccess)
            decisions += r.decisions
            if let s = r.speech { speech.append(s) }
        }
        _ = scanner.advance(to: t, choices: deck.scanChoices)
        for wanted in plan {
            let choices = deck.scanChoices
            try #require(choices.contains(wanted), "\(wanted) not offered in \(choices)")
            var guardSteps = 0
            switch stepping {
            case .perPress:
                while scanner.highlighted(in: choices) != wanted {
                    let stepDown = scanner.press(at: t, choices: choices)
                    #expect(stepDown == nil)
                    t = t.advanced(bySeconds: 0.2)
                    let stepUp = scanner.release(at: t, choices: choices)
                    #expect(stepUp == nil)
                    t = t.advanced(bySeconds: 0.3)
                    guardSteps += 1
                    try #require(guardSteps < 20)
                }
                let held = scanner.press(at: t, choices: choices)
                #expect(held == nil)
                let due = try #require(scanner.nextWakeup)
                let early = scanner.advance(to: due.advanced(bySeconds: -0.01), choices: choices)
                #expect(early == nil)
                t = due
                let fired = scanner.advance(to: t, choices: choices)
                let chosen = try #require(fired)
                #expect(chosen == wanted)
                select(chosen, &deck)
                t = t.advanced(bySeconds: 0.3)
                // The release after a long press selects nothing more and does not step.
                let after = scanner.release(at: t, choices: deck.scanChoices)
                #expect(after == nil)
            case .automatic:
                while scanner.highlighted(in: choices) != wanted {
                    t = try #require(scanner.nextWakeup)
                    let stepped = scanner.advance(to: t, choices: choices)
                    #expect(stepped == nil)
                    guardSteps += 1
                    try #require(guardSteps < 20)
                }
                t = t.advanced(bySeconds: 0.1)
                let pressed = scanner.press(at: t, choices: choices)
                let chosen = try #require(pressed)
                #expect(chosen == wanted)
                select(chosen, &deck)
                t = t.advanced(bySeconds: 0.1)
                let lifted = scanner.release(at: t, choices: deck.scanChoices)
                #expect(lifted == nil)
            }
            t = t.advanced(bySeconds: 0.8)
            _ = deck.scene(at: t)
        }
        return (decisions, speech, t)
    }

    @Test(arguments: [SwitchScanner.Stepping.perPress, .automatic(interval: 1.2)])
    func stackByOneSwitchMatchesTouch(stepping: SwitchScanner.Stepping) throws {
        let touch = try touchStack()
        var deck = stack()
        let plan = [ScanChoice.read] + Self.stackPlan.map { ScanChoice.action($0) }
        let r = try scan(&deck, plan: plan, stepping: stepping, start: .seconds(1))
        #expect(deck.isCompleted)
        #expect(r.speech == ["Card 0. Nein. Ja"])
        #expect(Self.outcomes(r.decisions) == Self.outcomes(touch))
        #expect(r.decisions.allSatisfy { $0.method == .switchAccess })
        #expect(InputMethod.switchAccess.rawValue == "switch")
    }

    @Test func scanHighlightSitsOnTheButtons() throws {
        var deck = stack()
        var scanner = SwitchScanner()
        let left = try #require(deck.scanHighlight(scanner, at: .seconds(1)))
        #expect(left.kind == .focusRing)
        let leftButton = try #require(deck.layout.frame(of: .dismissLeft))
        #expect(left.frame.contains(leftButton.center))
        _ = scanner.press(at: .seconds(1), choices: deck.scanChoices)
        _ = scanner.release(at: .seconds(1.1), choices: deck.scanChoices)
        let right = try #require(deck.scanHighlight(scanner, at: .seconds(1.2)))
        let rightButton = try #require(deck.layout.frame(of: .dismissRight))
        #expect(right.frame.contains(rightButton.center))
        _ = deck.scene(at: .seconds(1.2))
    }

    // MARK: List

    enum ListStep: Hashable {
        case open(Int), back, delete(Int), add
    }

    /// Every action of the list: open a row, back, delete two rows, add, open the added row.
    static let listPlan: [ListStep] = [.open(2), .back, .delete(0), .delete(1), .add, .open(2), .back, .open(0), .back]

    func list() -> ListDeck { ListDeck(cards: sampleCards(4), metrics: panel7, randomSeed: 11) }

    /// Row k's centre at rest, unscrolled (56 pt title bar, 76 pt slots).
    func rowCentre(_ k: Int) -> Point { Point(x: 400, y: 56 + 76 * Double(k) + 38) }

    func touchList() throws -> [Decision] {
        var deck = list()
        var script = TouchScript()
        var out: [Decision] = []
        for step in Self.listPlan {
            switch step {
            case .open(let k):
                script.down(rowCentre(k))
                script.up(afterMs: 60)
            case .back:
                script.down(deck.layout.backButton.center)
                script.up(afterMs: 60)
            case .delete(let k):
                script.drag(from: rowCentre(k) + Point(x: 300, y: 0), by: Point(x: -600, y: 0), over: 250)
            case .add:
                script.down(deck.layout.addButton.center)
                script.up(afterMs: 60)
            }
            deck.play(&script)
            script.wait(900)
            _ = deck.scene(at: script.now)
            out += deck.takeDecisions()
        }
        return out
    }

    @Test func listByKeysOnlyMatchesTouch() throws {
        let touch = try touchList()
        #expect(touch.map(\.action) == [.opened, .deleted, .deleted, .added, .opened, .opened])
        #expect(touch.map(\.method) == [.tap, .swipe, .swipe, .button, .tap, .tap])
        var deck = list()
        var t = Instant.seconds(1)
        var keyed: [Decision] = []
        var focused: Int?
        func press(_ key: AccessKey, _ deck: inout ListDeck) throws {
            let command = try #require(deck.command(for: key), "\(key) does nothing")
            keyed += deck.perform(command, at: t, method: .key).decisions
            t = t.advanced(bySeconds: 0.1)
        }
        func focus(_ k: Int, _ deck: inout ListDeck) throws {
            if focused == nil {
                try press(.down, &deck)  // the first press lands on the first visible row
                focused = 0
            }
            while let f = focused, f != k {
                try press(f < k ? .down : .up, &deck)
                focused = f < k ? f + 1 : f - 1
            }
            #expect(deck.focusedCard?.id == deck.cards[k].id)
            #expect(deck.scene(at: t).element("focus:" + deck.cards[k].id)?.kind == .focusRing)
        }
        for step in Self.listPlan {
            switch step {
            case .open(let k):
                try focus(k, &deck)
                try press(.enter, &deck)
                #expect(deck.scene(at: t).element("focus:" + deck.cards[k].id) == nil)
            case .back: try press(.escape, &deck)
            case .delete(let k):
                try focus(k, &deck)
                try press(.delete, &deck)
                // The focus moves on to the row that took the deleted one's place.
                focused = deck.focusedCard.flatMap { c in deck.cards.firstIndex { $0.id == c.id } }
            case .add: try press(.plus, &deck)
            }
            t = t.advanced(bySeconds: 0.9)
            _ = deck.scene(at: t)
        }
        #expect(Self.outcomes(keyed) == Self.outcomes(touch))
        #expect(keyed.allSatisfy { $0.method == .key })
    }

    @Test func listKeysOnTheDetailPage() throws {
        var deck = list()
        _ = deck.perform(.deck(.open), at: .seconds(1), method: .key)
        #expect(deck.command(for: .help) == .speak("Card 0"))
        #expect(deck.command(for: .backspace) == .deck(.back))
        #expect(deck.command(for: .left) == .deck(.back))
        // Delete deletes the card on the page (the page's own Delete button does the same).
        #expect(deck.command(for: .delete) == .deck(.remove))
        #expect(deck.scanChoices == [.action(.back), .action(.remove), .read])
    }

    @Test(arguments: [SwitchScanner.Stepping.perPress, .automatic(interval: 1.5)])
    func listByOneSwitchMatchesTouch(stepping: SwitchScanner.Stepping) throws {
        let touch = try touchList()
        var deck = list()
        // The switch walks the focus with "next row" (it wraps at the end) and acts on the focused row.
        var plan: [ScanChoice] = []
        var focused: Int?
        var rows = 4
        for step in Self.listPlan {
            func focus(_ k: Int) {
                if focused == nil {
                    plan.append(.action(.focusNext))
                    focused = 0
                }
                while let f = focused, f != k {
                    plan.append(.action(.focusNext))
                    focused = (f + 1) % rows
                }
            }
            switch step {
            case .open(let k):
                focus(k)
                plan.append(.action(.open))
            case .back: plan.append(.action(.back))
            case .delete(let k):
                focus(k)
                plan.append(.action(.remove))
                rows -= 1
                focused = k < rows ? k : k - 1
            case .add:
                plan.append(.action(.add))
                rows += 1
            }
        }
        let r = try scan(&deck, plan: plan, stepping: stepping, start: .seconds(1))
        #expect(Self.outcomes(r.decisions) == Self.outcomes(touch))
        #expect(r.decisions.allSatisfy { $0.method == .switchAccess })
    }

    // MARK: Scan coverage and its ring

    /// Every action a touch reaches has a scan choice, and every choice's ring is on screen
    /// around its target: the stack's three buttons and the card; the list's rows, "+" and,
    /// on a detail page, the back button.
    @Test func everyTouchActionHasAScanChoiceWithARingOnScreen() throws {
        var stack = stack()
        let screen = Rect(origin: .zero, size: stack.layout.screen)
        let touchStack = Set(stack.layout.buttons.map { ScanChoice.action($0.role.action) })
        #expect(touchStack == [.action(.dismissLeft), .action(.dismissRight), .action(.undo)])
        #expect(touchStack.isSubset(of: Set(stack.scanChoices)))
        var scanner = SwitchScanner()
        for (k, choice) in stack.scanChoices.enumerated() {
            #expect(scanner.highlighted(in: stack.scanChoices) == choice)
            let ring = try #require(stack.scanHighlight(scanner, at: .seconds(1)))
            #expect(ring.kind == .focusRing && ring.zIndex > 100)
            #expect(screen.insetBy(-8).contains(ring.frame.origin) && ring.frame.maxY <= screen.maxY + 8)
            if case .action(let a) = choice, let target = stack.layout.frame(of: Self.role(a)) {
                #expect(ring.frame.contains(target.center), "\(choice)")
            } else {
                #expect(ring.frame.contains(stack.layout.cardFrame.center), "\(choice) rings the card")
            }
            _ = scanner.press(at: .seconds(1 + Double(k)), choices: stack.scanChoices)
            _ = scanner.release(at: .seconds(1.1 + Double(k)), choices: stack.scanChoices)
        }
        _ = stack.scene(at: .seconds(9))

        // List: the touch path opens (tap), deletes (swipe or its Delete button), adds ("+") and goes back.
        var list = list()
        let touchList: Set<ScanChoice> = [.action(.open), .action(.remove), .action(.add)]
        #expect(touchList.isSubset(of: Set(list.scanChoices)))
        var listScanner = SwitchScanner()
        _ = listScanner.press(at: .seconds(1), choices: list.scanChoices)
        _ = listScanner.release(at: .seconds(1.1), choices: list.scanChoices)
        _ = listScanner.press(at: .seconds(1.2), choices: list.scanChoices)
        _ = listScanner.release(at: .seconds(1.3), choices: list.scanChoices)
        _ = listScanner.press(at: .seconds(1.4), choices: list.scanChoices)
        _ = listScanner.release(at: .seconds(1.5), choices: list.scanChoices)
        #expect(listScanner.highlighted(in: list.scanChoices) == .action(.add))
        let addRing = try #require(list.scanHighlight(listScanner, at: .seconds(2)))
        #expect(addRing.frame.contains(list.layout.addButton.center))
        list.perform(.focusNext, at: .seconds(2))
        listScanner.reset()
        let rowRing = try #require(list.scanHighlight(listScanner, at: .seconds(3)))
        #expect(rowRing.frame.contains(rowCentre(0)), "next row rings the focused row")
        list.perform(.open, at: .seconds(3))
        // The detail page: back, its Delete (the tap-only way to delete), read.
        #expect(list.scanChoices == [.action(.back), .action(.remove), .read])
        let backRing = try #require(list.scanHighlight(listScanner, at: .seconds(4)))
        #expect(backRing.frame.contains(list.layout.backButton.center))
        _ = listScanner.press(at: .seconds(4), choices: list.scanChoices)
        _ = listScanner.release(at: .seconds(4.1), choices: list.scanChoices)
        let deleteRing = try #require(list.scanHighlight(listScanner, at: .seconds(4.2)))
        #expect(deleteRing.frame.contains(list.layout.detailDeleteButton.center))
    }

}
