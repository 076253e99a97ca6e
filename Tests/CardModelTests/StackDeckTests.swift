import Testing

@testable import CardModel

@Suite struct StackDeckTests {
    let centre = Point(x: 400, y: 240)

    func top(_ scene: Scene, _ id: String = "c0", sourceLocation: SourceLocation = #_sourceLocation) throws
        -> SceneElement
    {
        try #require(scene.element("card:" + id), sourceLocation: sourceLocation)
    }

    @Test func restingStackOffsetsAndScales() throws {
        var deck = StackDeck(cards: sampleCards(6), metrics: panel7)
        let scene = deck.scene(at: .seconds(1))
        #expect(!scene.isAnimating)
        for i in 0..<4 {
            let e = try top(scene, "c\(i)")
            #expect(e.frame == Rect(x: 240, y: 20, width: 320, height: 440))
            expectClose(e.transform.translation, Point(x: 0, y: 8 * Double(i)))
            expectClose(e.transform.scale, 1 - 0.04 * Double(i))
            #expect(e.transform.rotation == 0)
            #expect(e.shadowRadius == 8)
        }
        // Deeper cards are hidden entirely by the ones above and are not drawn.
        #expect(scene.element("card:c4") == nil)
        // Top card drawn last.
        #expect(
            scene.elements.filter { $0.id.hasPrefix("card:") }.map(\.id) == [
                "card:c3", "card:c2", "card:c1", "card:c0",
            ])
    }

    @Test(arguments: [Point(x: 90, y: 36), Point(x: -60, y: -24), Point(x: 15, y: 120)])
    func dragTransformFollowsTheFinger(d: Point) throws {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        var s = TouchScript()
        s.down(centre)
        s.move(to: centre + d, over: 200)
        s.wait(100)
        deck.play(&s)
        let e = try top(deck.scene(at: s.now))
        expectClose(e.transform.translation, Point(x: d.x, y: d.y / 12))
        expectClose(e.transform.rotation, d.x / 20 * degrees)
        #expect(e.shadowRadius == 18)
        #expect(deck.takeDecisions().isEmpty)
    }

    @Test(arguments: [(119.0, nil), (121.0, DecisionAction.swipedRight), (-119.0, nil), (-121.0, .swipedLeft)])
    func threshold120(dx: Double, action: DecisionAction?) throws {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        var s = TouchScript()
        s.drag(from: centre, by: Point(x: dx, y: 20), over: 400, holdMs: 150)
        deck.play(&s)
        let decisions = deck.takeDecisions()
        #expect(decisions.map(\.action) == (action.map { [$0] } ?? []))
        let later = deck.scene(at: s.now.advanced(bySeconds: 3))
        #expect(!later.isAnimating)
        if action == nil {
            // Sprang back exactly to rest.
            #expect(try top(later).transform == Transform(translation: .zero, rotation: 0, scale: 1))
            #expect(deck.remainingCards.count == 3)
        } else {
            #expect(later.element("card:c0") == nil)
            #expect(try top(later, "c1").transform == Transform(translation: .zero, rotation: 0, scale: 1))
            #expect(deck.remainingCards.map(\.id) == ["c1", "c2"])
        }
    }

    @Test func flyOutGoesTo800AlongTheDragSide() throws {
        for (dx, sign) in [(150.0, 1.0), (-150.0, -1.0)] {
            var deck = StackDeck(cards: sampleCards(2), metrics: panel7)
            var s = TouchScript()
            s.drag(from: centre, by: Point(x: dx, y: 30), over: 400)
            deck.play(&s)
            let flying = try #require(deck.departures.first)
            #expect(flying.entry.drag.target == Point(x: 800 * sign, y: 30))
            // It moves outwards on every frame until it has left the screen, then is dropped.
            var last = dx
            var t = s.now
            while let e = deck.scene(at: t).element("card:c0") {
                #expect(e.transform.translation.x * sign >= last * sign)
                last = e.transform.translation.x
                t = t.advanced(bySeconds: 1 / 60)
            }
            #expect(abs(last) > 500)
            #expect(t.seconds(since: s.now) < 1)
        }
        // A wider screen sends it further, so it always leaves.
        let wide = StackLayout(screen: Size(width: 1920, height: 1080), showButtons: false)
        #expect(wide.flyOutDistance > 960 + 272)
    }

    @Test func flickDismissesBeforeTheThreshold() {
        var deck = StackDeck(cards: sampleCards(2), metrics: panel7)
        var flick = TouchScript()
        flick.down(centre)
        flick.move(to: centre + Point(x: -70, y: 0), over: 80)  // ~875 pt/s
        flick.up(afterMs: 1000 / 60)
        deck.play(&flick)
        #expect(deck.takeDecisions().map(\.action) == [.swipedLeft])

        var slow = StackDeck(cards: sampleCards(2), metrics: panel7)
        var s = TouchScript()
        s.drag(from: centre, by: Point(x: -70, y: 0), over: 400, holdMs: 120)
        slow.play(&s)
        #expect(slow.takeDecisions().isEmpty)
    }

    /// The issue's accidental decision: a 24 pt jab over 60 ms (400 pt/s, predicted end 124 pt)
    /// used to dismiss; a flick must now travel 60 pt as well as be fast.
    @Test func aShortFastJabDoesNotDismiss() {
        var deck = StackDeck(cards: sampleCards(2), metrics: panel7)
        var jab = TouchScript()
        jab.down(centre)
        jab.move(to: centre + Point(x: 24, y: 0), over: 60)
        jab.up(afterMs: 1000 / 60)
        deck.play(&jab)
        #expect(deck.takeDecisions().isEmpty)
        #expect(StackLayout.dismissDirection(translation: Point(x: 24, y: 0), predictedEnd: Point(x: 124, y: 0)) == nil)
    }

    /// Both rules at their edges: a flick needs ≥ 60 pt, ≥ 300 pt/s and a predicted end beyond
    /// 120 pt on its own side; without a flick only the seed's 120 pt counts, at any speed.
    @Test func flickAndDistanceThresholds() {
        func side(_ tx: Double, _ vx: Double) -> DismissDirection? {
            StackLayout.dismissDirection(
                translation: Point(x: tx, y: 0), predictedEnd: Point(x: tx + vx * DragRecognizer.projectionTime, y: 0))
        }
        #expect(side(60, 600) == .right)
        #expect(side(59, 600) == nil, "short of 60 pt no flick counts")
        #expect(side(-60, -600) == .left)
        #expect(side(-59, -2000) == nil)
        #expect(side(100, 250) == nil, "predicted beyond 120 but slower than 300 pt/s")
        #expect(side(100, 300) == .right)
        #expect(side(70, -600) == nil, "flung back towards the centre")
        #expect(side(121, 0) == .right, "past 120 pt a slow release dismisses")
        #expect(side(-121, 0) == .left)
        #expect(side(121, -2000) == .right, "past 120 pt the drag's side wins")
        #expect(side(119, 0) == nil)
    }

    @Test func grabbingACardSpringingBackHasNoJump() throws {
        var deck = StackDeck(cards: sampleCards(2), metrics: panel7)
        var s = TouchScript()
        s.drag(from: centre, by: Point(x: 100, y: 0), over: 300)
        s.wait(120)
        deck.play(&s)
        let grabTime = s.now
        let before = try top(deck.scene(at: grabTime)).transform.translation.x
        #expect(before > 5 && before < 100)
        var s2 = TouchScript(at: grabTime)
        s2.down(Point(x: 300, y: 300))
        deck.play(&s2)
        expectClose(try top(deck.scene(at: grabTime)).transform.translation.x, before, within: 1e-9)
        // It stays put under a resting finger, then moves with it.
        expectClose(try top(deck.scene(at: grabTime.advanced(bySeconds: 0.2))).transform.translation.x, before)
        s2.move(to: Point(x: 330, y: 300), over: 100)
        s2.wait(60)
        deck.play(&s2)
        expectClose(try top(deck.scene(at: s2.now)).transform.translation.x, before + 30, within: 1e-9)
    }

    @Test func secondCardCanBeGrabbedWhileTheFirstFlies() throws {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        var s = TouchScript()
        s.drag(from: centre, by: Point(x: 160, y: 0), over: 300)
        let firstRelease = s.now
        s.wait(50)
        s.down(centre)
        s.move(to: centre + Point(x: -60, y: 0), over: 100)
        s.wait(50)
        deck.play(&s)
        let mid = deck.scene(at: s.now)
        let flying = try top(mid, "c0")
        let held = try top(mid, "c1")
        #expect(flying.transform.translation.x > 160, "the first card is still on its way out")
        #expect(flying.zIndex > held.zIndex)
        expectClose(held.transform.translation.x, -60, within: 1e-9)
        #expect(held.shadowRadius == 18)
        #expect(mid.isAnimating)
        var s2 = TouchScript(at: s.now)
        s2.move(to: centre + Point(x: -200, y: 0), over: 100)
        s2.wait(100)
        s2.up(afterMs: 16)
        deck.play(&s2)
        let decisions = deck.takeDecisions()
        #expect(decisions.map(\.cardID) == ["c0", "c1"])
        #expect(decisions.map(\.action) == [.swipedRight, .swipedLeft])
        #expect(decisions[0].time == firstRelease)
        #expect(deck.remainingCards.map(\.id) == ["c2"])
    }

    @Test func unplugMidDragSpringsBackWithoutDeciding() throws {
        for unplug in [true, false] {
            var deck = StackDeck(cards: sampleCards(2), metrics: panel7)
            var s = TouchScript()
            s.down(centre)
            s.move(to: centre + Point(x: 200, y: 0), over: 200)
            deck.play(&s)
            if unplug {
                deck.cancelTouches(at: s.now.advanced(bySeconds: 0.01))
            } else {
                var c = TouchScript(at: s.now.advanced(bySeconds: 0.01))
                c.down(centre + Point(x: 200, y: 0), id: 1)
                deck.handle(
                    TouchFrame(time: c.now, contacts: [TouchContact(id: 1, position: .zero, phase: .cancelled)]))
            }
            // The lost finger's later reports are ignored.
            let t = s.now.advanced(bySeconds: 0.05)
            deck.handle(
                TouchFrame(time: t, contacts: [TouchContact(id: 1, position: Point(x: 700, y: 240), phase: .moved)]))
            deck.handle(
                TouchFrame(time: t, contacts: [TouchContact(id: 1, position: Point(x: 700, y: 240), phase: .ended)]))
            #expect(deck.takeDecisions().isEmpty)
            let e = try top(deck.scene(at: t))
            #expect(e.shadowRadius == 8)
            #expect(e.transform.translation.x > 100)
            #expect(try top(deck.scene(at: t.advanced(bySeconds: 3))).transform.translation == .zero)
            // A new touch works.
            var n = TouchScript(at: t.advanced(bySeconds: 3))
            n.drag(from: centre, by: Point(x: -150, y: 0), over: 300)
            deck.play(&n)
            #expect(deck.takeDecisions().map(\.action) == [.swipedLeft])
        }
    }

    @Test func otherFingersNeverDisturbTheDrag() throws {
        var deck = StackDeck(cards: sampleCards(2), metrics: panel7)
        var s = TouchScript()
        s.down(centre, id: 1)
        s.move(to: centre + Point(x: 50, y: 0), over: 100, id: 1)
        s.down(Point(x: 100, y: 100), id: 2)
        s.move(to: Point(x: 700, y: 400), over: 100, id: 2)
        s.wait(60)
        deck.play(&s)
        expectClose(try top(deck.scene(at: s.now)).transform.translation.x, 50)
        s.up(id: 1)
        s.move(to: Point(x: 100, y: 400), over: 300, id: 2)
        s.up(id: 2)
        deck.play(&s)
        #expect(deck.takeDecisions().isEmpty)
        #expect(try top(deck.scene(at: s.now.advanced(bySeconds: 3))).transform.translation == .zero)
    }

    @Test func decisionsComeExactlyOnceWithDwellTime() {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        _ = deck.scene(at: .seconds(1))  // first shown
        var s = TouchScript(at: .seconds(3))
        s.drag(from: centre, by: Point(x: 150, y: 0), over: 300, holdMs: 200)
        let release = s.now
        deck.play(&s)
        deck.perform(.dismissLeft, at: .seconds(6))
        deck.perform(.remove, at: .seconds(10))
        let d = deck.takeDecisions()
        #expect(d.map(\.cardID) == ["c0", "c1", "c2"])
        #expect(d.map(\.action) == [.swipedRight, .swipedLeft, .removed])
        #expect(d[0].time == release)
        expectClose(d[0].dwellSeconds, release.seconds(since: .seconds(1)), within: 1e-9)
        expectClose(d[1].dwellSeconds, 6 - release.seconds, within: 1e-9)
        expectClose(d[2].dwellSeconds, 4, within: 1e-9)
        #expect(deck.takeDecisions().isEmpty)
        _ = deck.scene(at: .seconds(20))
        #expect(deck.takeDecisions().isEmpty)
    }

    @Test func commandsAnimateLikeTheGesture() throws {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        deck.perform(.dismissRight, at: .seconds(1))
        let a = deck.scene(at: .seconds(1.1))
        #expect(try top(a, "c0").transform.translation.x > 50)
        // The stack closes up with a spring: the next card rises from depth 1 to 0.
        let next = try top(a, "c1").transform
        #expect(next.scale > 0.96 && next.scale < 1)
        #expect(next.translation.y > 0 && next.translation.y < 8)
        deck.perform(.remove, at: .seconds(2))
        let b = deck.scene(at: .seconds(2.1))
        let fading = try top(b, "c1")
        #expect(fading.opacity < 1 && fading.opacity > 0)
        #expect(fading.transform.translation.x == 0)
        let rest = deck.scene(at: .seconds(4))
        #expect(rest.element("card:c1") == nil && !rest.isAnimating)
        #expect(deck.takeDecisions().map(\.action) == [.swipedRight, .removed])
    }

    @Test func undoBringsTheCardBackFromWhereItIs() throws {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        deck.perform(.dismissLeft, at: .seconds(1))
        let t = Instant.seconds(1.15)
        let flying = try top(deck.scene(at: t), "c0").transform
        #expect(deck.canUndo)
        deck.perform(.undo, at: t)
        let back = try top(deck.scene(at: t), "c0")
        expectClose(back.transform.translation, flying.translation, within: 1e-9)
        let next = try top(deck.scene(at: t), "c1")
        #expect(back.zIndex > next.zIndex)
        #expect(deck.remainingCards.map(\.id) == ["c0", "c1", "c2"])
        let rest = deck.scene(at: .seconds(4))
        #expect(try top(rest, "c0").transform == .identity)
        expectClose(try top(rest, "c1").transform.translation.y, 8)
        let d = deck.takeDecisions()
        #expect(d.map(\.action) == [.swipedLeft, .undone])
        expectClose(d[1].dwellSeconds, 0.15, within: 1e-9)
        // Undo after the card has gone: it comes back in from its side; after a removal it fades in.
        deck.perform(.remove, at: .seconds(5))
        _ = deck.scene(at: .seconds(8))
        deck.perform(.undo, at: .seconds(8))
        let fadeIn = try top(deck.scene(at: .seconds(8.05)), "c0")
        #expect(fadeIn.opacity > 0 && fadeIn.opacity < 1)
        deck.perform(.undo, at: .seconds(9))
        #expect(deck.takeDecisions().map(\.action) == [.removed, .undone], "nothing more to undo")
    }

    @Test func emptyStateAndReset() throws {
        var deck = StackDeck(cards: sampleCards(2), metrics: panel7, options: StackOptions(emptyText: "Fertig"))
        #expect(deck.scene(at: .seconds(1)).element("empty") == nil)
        deck.perform(.dismissRight, at: .seconds(1))
        deck.perform(.dismissRight, at: .seconds(1.2))
        deck.perform(.dismissRight, at: .seconds(1.4))  // nothing left: ignored
        let empty = try #require(deck.scene(at: .seconds(5)).element("empty"))
        #expect(empty.kind == .emptyState(text: "Fertig"))
        #expect(deck.takeDecisions().count == 2)
        deck.reset(cards: sampleCards(4), at: .seconds(6))
        let scene = deck.scene(at: .seconds(6))
        #expect(scene.element("empty") == nil)
        #expect(scene.element("card:c0") != nil)
        #expect(!deck.canUndo)
        deck.perform(.undo, at: .seconds(7))
        deck.perform(.dismissLeft, at: .seconds(8))
        let d = deck.takeDecisions()
        #expect(d.map(\.action) == [.swipedLeft])
        expectClose(d[0].dwellSeconds, 2, within: 1e-9)
    }

    @Test func wakesOnlyWhileSomethingMoves() {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7)
        #expect(!deck.scene(at: .seconds(1)).isAnimating)
        #expect(deck.nextWakeup == nil)
        deck.perform(.dismissRight, at: .seconds(2))
        #expect(deck.nextWakeup == .seconds(2))
        #expect(deck.scene(at: .seconds(2.2)).isAnimating)
        #expect(!deck.scene(at: .seconds(5)).isAnimating)
        #expect(deck.nextWakeup == nil)
        // A finger resting on the card needs no frames; a moving one does.
        var s = TouchScript(at: .seconds(6))
        s.down(centre)
        s.move(to: centre + Point(x: 40, y: 0), over: 100)
        deck.play(&s)
        #expect(deck.scene(at: s.now).isAnimating)
        s.wait(200)
        #expect(!deck.scene(at: s.now).isAnimating)
    }

    @Test func repeatedIDsAreKeptApart() {
        let c = Card(id: "x", title: "X", color: .white)
        var deck = StackDeck(cards: [c, c, c], metrics: panel7)
        #expect(deck.remainingCards.map(\.id) == ["x", "x#2", "x#3"])
        #expect(Set(deck.scene(at: .seconds(1)).elements.map(\.id)).count == 3)
    }

    @Test func labelsHintTheSideWhileDragging() throws {
        var deck = StackDeck(
            cards: sampleCards(2), metrics: panel7, options: StackOptions(leftLabel: "Nein", rightLabel: "Ja"))
        var s = TouchScript()
        s.down(centre)
        s.move(to: centre + Point(x: -60, y: 0), over: 200)
        s.wait(100)
        deck.play(&s)
        let scene = deck.scene(at: s.now)
        let label = try #require(scene.element("label:left"))
        #expect(scene.element("label:right") == nil)
        guard case .stamp(let text, _, let side) = label.kind else { Issue.record("not a stamp"); return }
        #expect(text == "Nein")
        #expect(side == .left)
        expectClose(label.opacity, 0.5)
        expectClose(label.transform.rotation, -3 * degrees)
        // The stamp lies on the card: same frame and transform, drawn above it.
        let card = try top(scene)
        #expect(label.zIndex > card.zIndex)
        #expect(label.frame == card.frame)
        #expect(label.transform == card.transform)
        s.up()
        deck.play(&s)
        #expect(deck.scene(at: s.now).element("label:left") == nil)
    }
}

@Suite struct StackButtonTests {
    @Test(arguments: [
        Size(width: 800, height: 480), Size(width: 480, height: 800), Size(width: 1280, height: 720),
        Size(width: 1920, height: 1080), Size(width: 320, height: 240), Size(width: 600, height: 500),
    ])
    func layoutFitsAnyScreen(size: Size) {
        let layout = StackLayout(screen: size, showButtons: true)
        let screen = Rect(origin: .zero, size: size)
        let card = SceneElement(
            id: "c", kind: .deleteArea, frame: layout.cardFrame,
            transform: Transform(scale: layout.fit))
        let cardBox = card.bounds.insetBy(SceneElement.shadowMargin(radius: 0))
        #expect(layout.buttons.map(\.role) == [.dismissLeft, .undo, .dismissRight])
        #expect(cardBox.minY >= -0.001 && cardBox.maxY <= size.height + 0.001)
        for b in layout.buttons {
            #expect(screen.intersection(b.frame) == b.frame, "\(b.role) inside \(size)")
            #expect(b.frame.intersection(cardBox).isEmpty, "\(b.role) clear of the card on \(size)")
        }
        #expect(cardBox.minX >= -0.001 && cardBox.maxX <= size.width + 0.001)
        // Only a portrait screen grows the card (into its height).
        #expect(layout.fit <= 1 || size.height > size.width)
    }

    @Test func tapsOnButtonsAct() throws {
        var deck = StackDeck(cards: sampleCards(3), metrics: panel7, options: StackOptions(showButtons: true))
        let scene = deck.scene(at: .seconds(1))
        let yes = try #require(scene.element("button:dismissRight"))
        let undo = try #require(scene.element("button:undo"))
        #expect(undo.opacity < 1, "nothing to undo yet")
        var s = TouchScript()
        s.down(yes.frame.center)
        s.up(afterMs: 80)
        deck.play(&s)
        #expect(deck.takeDecisions().map(\.action) == [.swipedRight])
        // A drag that starts on a button is no tap and moves no card.
        var d = TouchScript(at: .seconds(2))
        d.drag(from: yes.frame.center, by: Point(x: -200, y: 0), over: 200)
        deck.play(&d)
        #expect(deck.takeDecisions().isEmpty)
        var u = TouchScript(at: .seconds(3))
        u.down(undo.frame.center)
        u.up(afterMs: 50)
        deck.play(&u)
        #expect(deck.takeDecisions().map(\.action) == [.undone])
    }
}
