import Testing

@testable import CardModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct ListDeckTests {
    /// Row k's centre at rest, unscrolled.
    func rowCentre(_ k: Int) -> Point { Point(x: 400, y: 56 + 76 * Double(k) + 38) }

    func list(_ n: Int = 20, seed: UInt64 = 7) -> ListDeck {
        // The seed's geometry (44 pt controls in a 56 pt bar) whatever 9 mm is on `panel7`: these
        // tests are about the list's behaviour; PanelLayoutTests checks its sizes on the glass.
        ListDeck(cards: sampleCards(n), metrics: panel7, randomSeed: seed, layout: ListLayout(screen: panel7.size))
    }

    @Test func layoutOfRowsTitleAndAdd() throws {
        var deck = list(3)
        let scene = deck.scene(at: .seconds(1))
        let title = try #require(scene.element("titlebar"))
        #expect(title.kind == .titleBar(title: "Color Cards"))
        #expect(title.frame == Rect(x: 0, y: 0, width: 800, height: 56))
        let add = try #require(scene.element("button:add"))
        #expect(title.frame.intersection(add.frame) == add.frame)
        #expect(add.zIndex > title.zIndex)
        for k in 0..<3 {
            let row = try #require(scene.element("row:c\(k)"))
            #expect(row.frame == Rect(x: 10, y: 56 + 76 * Double(k) + 2, width: 780, height: 72), "72 pt rows")
            #expect(row.kind == .row(sampleCards(3)[k]))
            #expect(row.zIndex < title.zIndex)
        }
        #expect(!scene.isAnimating)
    }

    @Test(arguments: [Size(width: 480, height: 800), Size(width: 1920, height: 1080), Size(width: 320, height: 100)])
    func layoutOnOtherScreens(size: Size) throws {
        var deck = ListDeck(
            cards: sampleCards(30), metrics: ScreenMetrics(size: size, pointsPerMillimetre: 4), randomSeed: 1)
        let scene = deck.scene(at: .seconds(1))
        let rows = scene.elements.filter { $0.id.hasPrefix("row:") }
        #expect(!rows.isEmpty || size.height <= 56)
        for r in rows {
            #expect(r.frame.width == size.width - 20)
            #expect(r.frame.minY < size.height)
        }
        #expect(try #require(scene.element("button:add")).frame.maxX <= size.width)
    }

    @Test func scrollFollowsTheFingerAfterTheSlop() {
        var deck = list()
        var s = TouchScript()
        s.down(rowCentre(5))
        s.move(to: rowCentre(5) + Point(x: 0, y: -60), over: 200)
        s.wait(100)
        deck.play(&s)
        let a = deck.scrollOffset(at: s.now)
        #expect(a > 60 - 15 && a < 60, "the slop is not scrolled: \(a)")
        s.move(to: rowCentre(5) + Point(x: 0, y: -160), over: 200)
        s.wait(100)
        deck.play(&s)
        expectClose(deck.scrollOffset(at: s.now), a + 100)
        #expect(deck.recognizer.axis == .vertical)
    }

    @Test func flingDecaysExponentiallyAndStops() {
        var deck = list(100)
        var s = TouchScript()
        s.down(rowCentre(5))
        s.move(to: rowCentre(5) + Point(x: 0, y: -120), over: 100)  // 1200 pt/s upwards
        s.up(afterMs: 1000 / 60)
        deck.play(&s)
        let r = s.now
        let o0 = deck.scrollOffset(at: r)
        func speed(_ t: Double) -> Double {
            (deck.scrollOffset(at: r.advanced(bySeconds: t + 0.001)) - deck.scrollOffset(at: r.advanced(bySeconds: t)))
                / 0.001
        }
        #expect(speed(0) > 1000)
        // v(t) = v₀·e^(−t/τ): equal intervals shrink the speed by the same factor.
        let tau = Fling.uiScrollViewTimeConstant
        expectClose(speed(0.5) / speed(0), exp(-0.5 / tau), within: 0.01)
        expectClose(speed(1.0) / speed(0.5), exp(-0.5 / tau), within: 0.01)
        let scene = deck.scene(at: r.advanced(bySeconds: 1))
        #expect(scene.isAnimating)
        let end = deck.scrollOffset(at: r.advanced(bySeconds: 10))
        expectClose(end, o0 + speed(0) * tau, within: 2)
        #expect(!deck.scene(at: r.advanced(bySeconds: 10)).isAnimating)
    }

    @Test func rubberBandAtTheTopSpringsBack() throws {
        var deck = list()
        var s = TouchScript()
        s.down(rowCentre(1))
        s.move(to: rowCentre(1) + Point(x: 0, y: 250), over: 300)
        s.wait(100)
        deck.play(&s)
        let pulled = deck.scrollOffset(at: s.now)
        #expect(pulled < -80 && pulled > -250 * 0.55, "resists: \(pulled)")
        let row = try #require(deck.scene(at: s.now).element("row:c0"))
        expectClose(row.frame.minY, 58 - pulled)
        s.up(afterMs: 16)
        deck.play(&s)
        let half = deck.scrollOffset(at: s.now.advanced(bySeconds: 0.15))
        #expect(half > pulled && half < 0)
        let later = deck.scene(at: s.now.advanced(bySeconds: 3))
        #expect(deck.scrollOffset(at: s.now.advanced(bySeconds: 3)) == 0)
        #expect(!later.isAnimating)
        #expect(deck.takeDecisions().isEmpty)
    }

    @Test func flingIntoTheEndBouncesBack() {
        var deck = list(16)  // content 1216, viewport 424: max offset 792
        var s = TouchScript()
        s.down(rowCentre(5))
        s.move(to: rowCentre(5) + Point(x: 0, y: -240), over: 100)  // 2400 pt/s
        s.up(afterMs: 1000 / 60)
        deck.play(&s)
        let offsets = stride(from: 0.0, through: 3, by: 1 / 60).map {
            deck.scrollOffset(at: s.now.advanced(bySeconds: $0))
        }
        #expect(offsets.max()! > 792 + 5, "overshoots the end")
        #expect(offsets.last! == 792)
    }

    /// WCAG 2.5.7: a card can be deleted without dragging — open it with a tap, tap the detail
    /// page's Delete. The page closes over the list, the row is gone, the decision says
    /// `.button`; a tap beside the button deletes nothing, and the Delete key does the same there.
    @Test func theDetailPageDeletesItsCardWithOneTap() throws {
        var deck = list(5)
        var open = TouchScript()
        open.tap(at: rowCentre(1))
        deck.play(&open)
        #expect(deck.openCard?.id == "c1")
        _ = deck.takeDecisions()
        let page = deck.scene(at: open.now.advanced(bySeconds: 2))
        let button = try #require(page.element("button:detail-delete"))
        #expect(button.kind == .wordButton(.remove, label: "Löschen"))
        #expect(button.frame == deck.layout.detailDeleteButton)
        #expect(button.transform.translation == .zero && button.zIndex > 400)
        #expect(button.frame.intersection(deck.layout.backButton).isEmpty)
        #expect(Rect(origin: .zero, size: deck.layout.screen).contains(button.frame.origin))

        // Beside the button (still in the bar): nothing.
        var miss = TouchScript(at: open.now.advanced(bySeconds: 2))
        miss.tap(at: Point(x: deck.layout.detailDeleteButton.minX - 20, y: 28))
        deck.play(&miss)
        #expect(deck.openCard?.id == "c1" && deck.takeDecisions().isEmpty)

        var delete = TouchScript(at: miss.now.advanced(bySeconds: 1))
        delete.tap(at: deck.layout.detailDeleteButton.center)
        deck.play(&delete)
        #expect(deck.openCard == nil)
        let d = deck.takeDecisions()
        #expect(d.map(\.action) == [.deleted] && d.first?.cardID == "c1" && d.first?.method == .button)
        #expect(d.first?.position == 1)
        let after = deck.scene(at: delete.now.advanced(bySeconds: 3))
        #expect(after.element("detail:c1") == nil && after.element("row:c1") == nil)
        #expect(deck.cards.map(\.id) == ["c0", "c2", "c3", "c4"])

        // The Delete key on a detail page deletes its card as well.
        var again = TouchScript(at: delete.now.advanced(bySeconds: 4))
        again.tap(at: rowCentre(2))
        deck.play(&again)
        #expect(deck.openCard?.id == "c3")
        _ = deck.takeDecisions()
        #expect(deck.command(for: .delete) == .deck(.remove))
        deck.perform(.remove, at: again.now.advanced(bySeconds: 2))
        #expect(deck.openCard == nil && deck.cards.map(\.id) == ["c0", "c2", "c4"])
        #expect(deck.takeDecisions().map(\.cardID) == ["c3"])
    }

    @Test func tapOpensButADragDoesNot() throws {
        var deck = list()
        var tap = TouchScript()
        tap.down(rowCentre(2))
        tap.move(to: rowCentre(2) + Point(x: 6, y: 5), over: 100)  // inside the 10.5 pt slop
        tap.up(afterMs: 30)
        deck.play(&tap)
        #expect(deck.openCard?.id == "c2")
        let d = deck.takeDecisions()
        #expect(d.map(\.action) == [.opened])
        expectClose(d[0].dwellSeconds, tap.now.seconds(since: .seconds(1)))
        let opening = deck.scene(at: tap.now.advanced(bySeconds: 0.1))
        let page = try #require(opening.element("detail:c2"))
        #expect(page.frame == Rect(x: 0, y: 0, width: 800, height: 480))
        #expect(page.transform.translation.x > 0 && page.transform.translation.x < 800)
        #expect(opening.element("button:back") != nil)
        let open = deck.scene(at: tap.now.advanced(bySeconds: 2))
        #expect(try #require(open.element("detail:c2")).transform.translation == .zero)
        // Back (tap on the back button) slides it away.
        var back = TouchScript(at: tap.now.advanced(bySeconds: 2))
        back.down(deck.layout.backButton.center)
        back.up(afterMs: 50)
        deck.play(&back)
        #expect(deck.openCard == nil)
        #expect(deck.scene(at: back.now.advanced(bySeconds: 0.1)).element("detail:c2") != nil)
        #expect(deck.scene(at: back.now.advanced(bySeconds: 3)).element("detail:c2") == nil)

        var drag = TouchScript(at: .seconds(10))
        drag.drag(from: rowCentre(2), by: Point(x: 0, y: -30), over: 200)
        deck.play(&drag)
        #expect(deck.openCard == nil)
        #expect(deck.takeDecisions().isEmpty)
    }

    @Test func aTouchThatStopsAFlingIsNoTap() {
        var deck = list(100)
        var s = TouchScript()
        s.down(rowCentre(5))
        s.move(to: rowCentre(5) + Point(x: 0, y: -120), over: 100)
        s.up(afterMs: 1000 / 60)
        s.wait(200)
        s.down(rowCentre(3))
        s.up(afterMs: 60)
        deck.play(&s)
        #expect(deck.openCard == nil)
        #expect(!deck.scrollOffset(at: s.now).isNaN)
        #expect(!deck.scene(at: s.now.advanced(bySeconds: 0.5)).isAnimating, "the fling was stopped")
        // The next tap opens.
        var t = TouchScript(at: s.now.advanced(bySeconds: 1))
        t.down(rowCentre(3))
        t.up(afterMs: 60)
        deck.play(&t)
        #expect(deck.openCard != nil)
    }

    @Test(arguments: [(Point(x: -100, y: 30), true), (Point(x: -30, y: 100), false)])
    func axisLockChoosesSwipeOrScroll(d: Point, swipes: Bool) throws {
        var deck = list()
        var s = TouchScript()
        s.down(rowCentre(3))
        s.move(to: rowCentre(3) + d, over: 300)
        s.wait(100)
        deck.play(&s)
        let scene = deck.scene(at: s.now)
        let row = try #require(scene.element("row:c3"))
        if swipes {
            #expect(row.transform.translation.x < -80)
            #expect(deck.scrollOffset(at: s.now) == 0)
            let area = try #require(scene.element("delete:c3"))
            expectClose(area.frame.maxX, row.frame.maxX)
            expectClose(area.frame.width, -row.transform.translation.x)
            #expect(area.frame.minY == row.frame.minY && area.frame.height == row.frame.height)
            #expect(area.zIndex < row.zIndex)
        } else {
            #expect(row.transform.translation.x == 0)
            #expect(scene.element("delete:c3") == nil)
            let offset = deck.scrollOffset(at: s.now)
            #expect(offset < -40 && offset > -100 * 0.55, "pulled down at the top: rubber band")
            expectClose(row.frame.minY, 56 + 3 * 76 + 2 - offset)
        }
    }

    @Test func swipeLeftDeletesAndTheGapCloses() throws {
        var deck = list(6)
        let before = try #require(deck.scene(at: .seconds(1)).element("row:c3")).frame
        var s = TouchScript()
        s.drag(from: rowCentre(2), by: Point(x: -420, y: 0), over: 500)
        deck.play(&s)
        let d = deck.takeDecisions()
        #expect(d.map(\.action) == [.deleted])
        #expect(d.first?.cardID == "c2")
        #expect(deck.cards.map(\.id) == ["c0", "c1", "c3", "c4", "c5"])
        let mid = deck.scene(at: s.now.advanced(bySeconds: 0.1))
        let moving = try #require(mid.element("row:c3")).frame
        #expect(moving.minY < before.minY && moving.minY > before.minY - 76, "closing the gap")
        let leaving = try #require(mid.element("row:c2"))
        #expect(leaving.transform.translation.x < -420)
        #expect(mid.element("delete:c2") != nil)
        let rest = deck.scene(at: s.now.advanced(bySeconds: 3))
        #expect(try #require(rest.element("row:c3")).frame.minY == before.minY - 76)
        #expect(rest.element("row:c2") == nil && rest.element("delete:c2") == nil)
        #expect(!rest.isAnimating)
    }

    @Test func shortSwipeSpringsBackAndFlickDeletes() throws {
        var deck = list(6)
        var s = TouchScript()
        s.drag(from: rowCentre(1), by: Point(x: -30, y: 0), over: 500, holdMs: 120)
        deck.play(&s)
        #expect(deck.takeDecisions().isEmpty)
        #expect(deck.openRowID == nil)
        let rest = deck.scene(at: s.now.advanced(bySeconds: 3))
        #expect(try #require(rest.element("row:c1")).transform == .identity)
        var f = TouchScript(at: s.now.advanced(bySeconds: 3))
        f.down(rowCentre(1))
        f.move(to: rowCentre(1) + Point(x: -80, y: 0), over: 60)  // ~1300 pt/s
        f.up(afterMs: 1000 / 60)
        deck.play(&f)
        #expect(deck.takeDecisions().map(\.cardID) == ["c1"])
    }

    /// A partial swipe stays open on the Delete button; a tap on the button deletes.
    @Test func partialSwipeStaysOpenAndItsDeleteButtonDeletes() throws {
        var deck = list(6)
        var s = TouchScript()
        s.drag(from: rowCentre(1), by: Point(x: -120, y: 0), over: 500, holdMs: 120)
        deck.play(&s)
        #expect(deck.takeDecisions().isEmpty)
        #expect(deck.openRowID == "c1")
        let open = deck.scene(at: s.now.advanced(bySeconds: 3))
        let row = try #require(open.element("row:c1"))
        expectClose(row.transform.translation.x, -ListLayout.deleteButtonWidth, within: 0.1)
        let button = try #require(open.element("delete:c1"))
        expectClose(button.frame.width, ListLayout.deleteButtonWidth, within: 0.1)
        #expect(!open.isAnimating, "it stays open")
        var tap = TouchScript(at: s.now.advanced(bySeconds: 3))
        tap.tap(at: button.frame.center)
        deck.play(&tap)
        #expect(deck.takeDecisions().map(\.cardID) == ["c1"])
        #expect(deck.openRowID == nil)
        #expect(deck.cards.map(\.id) == ["c0", "c2", "c3", "c4", "c5"])
    }

    /// A tap elsewhere closes the open row and does nothing else (no detail page opens).
    @Test func aTapElsewhereClosesTheOpenRow() throws {
        var deck = list(6)
        var s = TouchScript()
        s.drag(from: rowCentre(1), by: Point(x: -120, y: 0), over: 500, holdMs: 120)
        s.wait(1000)
        s.tap(at: rowCentre(3))
        deck.play(&s)
        #expect(deck.openRowID == nil)
        #expect(deck.openCard == nil)
        #expect(deck.takeDecisions().isEmpty)
        let rest = deck.scene(at: s.now.advanced(bySeconds: 3))
        #expect(try #require(rest.element("row:c1")).transform == .identity)
        #expect(rest.element("delete:c1") == nil)
        // Tapping the open row's own body closes it too.
        var again = TouchScript(at: s.now.advanced(bySeconds: 3))
        again.drag(from: rowCentre(1), by: Point(x: -120, y: 0), over: 500, holdMs: 120)
        again.wait(1000)
        again.tap(at: rowCentre(1) + Point(x: -200, y: 0))
        deck.play(&again)
        #expect(deck.openRowID == nil && deck.openCard == nil)
    }

    /// A full swipe (past half the row) deletes without a second tap.
    @Test func fullSwipeDeletes() {
        var deck = list(6)
        var s = TouchScript()
        s.drag(from: rowCentre(2), by: Point(x: -(deck.layout.deleteThreshold + 20), y: 0), over: 600, holdMs: 120)
        deck.play(&s)
        #expect(deck.takeDecisions().map(\.action) == [.deleted])
        #expect(deck.openRowID == nil)
    }

    /// The deck's empty text shows when the list has no rows.
    @Test func emptyListShowsTheEmptyText() throws {
        var deck = ListDeck(
            cards: [], metrics: panel7, emptyText: "Keine Karten", randomSeed: 1,
            layout: ListLayout(screen: panel7.size))
        let scene = deck.scene(at: .seconds(1))
        let empty = try #require(scene.element("empty"))
        #expect(empty.kind == .label(text: "Keine Karten", color: Color(rgb: 0x8E8E93)))
        #expect(deck.layout.viewport.contains(empty.frame.center))
        var full = list(1)
        #expect(full.scene(at: .seconds(1)).element("empty") == nil)
        full.perform(.remove, at: .seconds(2))
        #expect(full.scene(at: .seconds(5)).element("empty") == nil, "no empty text without one given")
    }

    /// The detail page names the list it goes back to ("‹ Color Cards").
    @Test func detailPageCarriesTheBackTitle() throws {
        var deck = list(3)
        var s = TouchScript()
        s.tap(at: rowCentre(1))
        deck.play(&s)
        let page = try #require(deck.scene(at: s.now.advanced(bySeconds: 2)).element("detail:c1"))
        #expect(
            page.kind
                == .detailPage(
                    sampleCards(3)[1], backTitle: "Color Cards", barHeight: deck.layout.titleBarHeight,
                    back: deck.layout.backButton))
        #expect(deck.layout.backButton.width >= 150, "room for \"‹ Color Cards\"")
    }

    @Test func deletingNearTheEndKeepsTheListInBounds() {
        var deck = list(10)  // content 760, max offset 336
        var s = TouchScript()
        s.drag(from: rowCentre(5), by: Point(x: 0, y: -400), over: 600)
        deck.play(&s)
        _ = deck.scene(at: s.now.advanced(bySeconds: 3))
        #expect(deck.scrollOffset(at: s.now.advanced(bySeconds: 3)) == 336)
        deck.perform(.remove, at: .seconds(10))
        #expect(deck.takeDecisions().map(\.action) == [.deleted])
        _ = deck.scene(at: .seconds(13))
        #expect(deck.scrollOffset(at: .seconds(13)) == 336 - 76)
    }

    @Test func plusAddsASeededRandomThemeAndScrollsToIt() throws {
        func themes(seed: UInt64) -> [Card] {
            var deck = list(3, seed: seed)
            for k in 0..<5 { deck.perform(.add, at: .seconds(1 + Double(k))) }
            return Array(deck.cards.dropFirst(3))
        }
        let a = themes(seed: 42)
        #expect(a == themes(seed: 42))
        #expect(a.map(\.id) == ["added-1", "added-2", "added-3", "added-4", "added-5"])
        #expect(a.map(\.color) != themes(seed: 43).map(\.color))
        for c in a {
            let theme = try #require(Theme.allCases.first { $0.mainColor == c.color })
            #expect(c.accent == theme.accentColor)
            #expect(c.title.lowercased() == theme.rawValue)
        }

        var deck = list(20)
        var s = TouchScript()
        s.down(deck.layout.addButton.center)
        s.up(afterMs: 50)
        deck.play(&s)
        let d = deck.takeDecisions()
        #expect(d.map(\.action) == [.added])
        let rest = deck.scene(at: s.now.advanced(bySeconds: 3))
        let row = try #require(rest.element("row:" + d[0].cardID))
        #expect(row.frame.maxY <= 480 && row.frame.minY >= 56)
        #expect(row.opacity == 1)
        #expect(deck.scrollOffset(at: s.now.advanced(bySeconds: 3)) == 21 * 76 - 424)
    }

    @Test func unplugMidSwipeSpringsBack() throws {
        var deck = list(5)
        var s = TouchScript()
        s.down(rowCentre(1))
        s.move(to: rowCentre(1) + Point(x: -250, y: 0), over: 300)
        deck.play(&s)
        deck.cancelTouches(at: s.now)
        #expect(deck.takeDecisions().isEmpty)
        #expect(try #require(deck.scene(at: s.now.advanced(bySeconds: 3)).element("row:c1")).transform == .identity)
    }

    @Test func commandsAndReset() {
        var deck = list(5)
        deck.perform(.open, at: .seconds(1))
        #expect(deck.openCard?.id == "c0")
        deck.perform(.back, at: .seconds(2))
        #expect(deck.openCard == nil)
        deck.perform(.undo, at: .seconds(3))
        deck.perform(.dismissRight, at: .seconds(3))
        #expect(deck.takeDecisions().map(\.action) == [.opened])
        deck.reset(cards: sampleCards(2), at: .seconds(4))
        let scene = deck.scene(at: .seconds(4))
        #expect(scene.elements.filter { $0.id.hasPrefix("row:") }.count == 2)
        deck.perform(.remove, at: .seconds(6))
        let d = deck.takeDecisions()
        #expect(d.map(\.cardID) == ["c0"])
        expectClose(d[0].dwellSeconds, 2)
    }

    @Test(arguments: [30, 144])
    func sameScenesAsAt60Hz(hz: Int) {
        func run(_ hz: Int) -> [Instant: Scene] {
            var deck = list(40)
            var s = TouchScript()
            s.down(rowCentre(5))
            s.move(to: rowCentre(5) + Point(x: 0, y: -200), over: 150)
            s.up(afterMs: 16)
            s.wait(400)
            s.drag(from: rowCentre(2), by: Point(x: -260, y: 10), over: 300, holdMs: 0)
            let scenes = deck.play(&s, drawingAt: hz, from: .seconds(1), until: .seconds(4))
            return Dictionary(uniqueKeysWithValues: scenes.map { ($0.time, $0.scene) })
        }
        let base = run(60)
        let other = run(hz)
        var compared = 0
        for (t, scene) in other where base[t] != nil {
            #expect(base[t] == scene, "\(hz) Hz differs at \(t)")
            compared += 1
        }
        #expect(compared == (hz == 30 ? 91 : 37))
    }
}

extension TouchScript {
    /// Down and up at `p` 60 ms later: a tap.
    fileprivate mutating func tap(at p: Point) {
        down(p)
        up(afterMs: 60)
    }
}
