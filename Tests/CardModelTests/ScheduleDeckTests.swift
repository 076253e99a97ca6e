import Testing

@testable import CardModel

/// A deck per schedule window, and the switch that waits for the visit in progress.
@Suite struct ScheduleDeckTests {
    func t(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> CivilTime {
        CivilTime(year: y, month: mo, day: d, hour: h, minute: mi)
    }

    /// Mornings the primary deck, afternoons "day.json", Friday and Saturday nights
    /// "night.json" running past midnight.
    let schedule = Schedule(windows: [
        .init(from: 8 * 60, to: 12 * 60),
        .init(from: 12 * 60, to: 18 * 60, deck: "/decks/day.json"),
        .init(days: [.fri, .sat], from: 22 * 60, to: 2 * 60, deck: "/decks/night.json"),
    ])

    @Test func eachWindowNamesItsDeckIncludingPastMidnight() {
        #expect(schedule.deck(at: t(2026, 12, 4, 11, 59)) == nil)  // Friday morning: the primary
        #expect(schedule.deck(at: t(2026, 12, 4, 12, 0)) == "/decks/day.json")
        #expect(schedule.deck(at: t(2026, 12, 4, 17, 59)) == "/decks/day.json")
        #expect(schedule.deck(at: t(2026, 12, 4, 19, 0)) == nil)  // closed
        #expect(schedule.state(at: t(2026, 12, 4, 19, 0)) == .closed)
        #expect(schedule.deck(at: t(2026, 12, 4, 23, 30)) == "/decks/night.json")
        // Saturday 01:30 belongs to Friday's night window.
        #expect(schedule.deck(at: t(2026, 12, 5, 1, 30)) == "/decks/night.json")
        #expect(schedule.deck(at: t(2026, 12, 5, 2, 0)) == nil)
        // Thursday night has no night window.
        #expect(schedule.state(at: t(2026, 12, 3, 23, 30)) == .closed)
        // The next change from the morning is the boundary to the afternoon deck.
        #expect(schedule.nextChange(after: t(2026, 12, 4, 9, 0)) == t(2026, 12, 4, 12, 0))
    }

    @Test func daylightSavingChangesMoveNoWindow() {
        // Europe's spring change 2026-03-29 (Sunday): the wall goes 02:00 → 03:00. A window from
        // 02:30 has no start that day; at 03:00 on the wall its deck shows.
        let s = Schedule(windows: [
            .init(from: 0, to: 2 * 60 + 30), .init(from: 2 * 60 + 30, to: 6 * 60, deck: "/decks/early.json"),
        ])
        #expect(s.deck(at: t(2026, 3, 29, 1, 59)) == nil)
        #expect(s.deck(at: t(2026, 3, 29, 3, 0)) == "/decks/early.json")
        // The autumn change 2026-10-25: 02:00–03:00 comes twice; both times the same deck.
        #expect(s.deck(at: t(2026, 10, 25, 2, 40)) == "/decks/early.json")
        #expect(s.deck(at: t(2026, 10, 25, 2, 10)) == nil)
        #expect(s.nextChange(after: t(2026, 10, 25, 2, 10)) == t(2026, 10, 25, 2, 30))
    }

    @Test func theSwitchWaitsForTheVisitToEnd() {
        var r = DeckRotation()
        // 11:59, idle: the primary stays.
        #expect(r.update(wanted: schedule.deck(at: t(2026, 12, 4, 11, 59)), visitActive: false) == .keep)
        // 12:00 with a visitor at the screen: wait, still showing the primary.
        let noon = schedule.deck(at: t(2026, 12, 4, 12, 0))
        #expect(r.update(wanted: noon, visitActive: true) == .wait("/decks/day.json"))
        #expect(r.shown == nil)
        #expect(
            r.update(wanted: schedule.deck(at: t(2026, 12, 4, 12, 2)), visitActive: true) == .wait("/decks/day.json"))
        // 12:03 the visit ends: switch.
        #expect(
            r.update(wanted: schedule.deck(at: t(2026, 12, 4, 12, 3)), visitActive: false)
                == .switchTo("/decks/day.json"))
        #expect(r.shown == "/decks/day.json")
        #expect(r.update(wanted: schedule.deck(at: t(2026, 12, 4, 12, 4)), visitActive: true) == .keep)
        // Back to a window without a deck: the primary again, when idle.
        #expect(r.update(wanted: nil, visitActive: false) == .switchTo(nil))
        #expect(r.shown == nil)
    }
}

@Suite struct StaffEntryCornerTests {
    func tapsOpen(_ rule: StaffEntry.Rule, at p: Point, screen: Size) -> Bool {
        var e = StaffEntry(rule: rule, screen: screen)
        var t = 0.0
        for i in 1..<rule.taps {
            e.handle(TouchFrame(time: .seconds(t), contacts: [.init(id: i, position: p, phase: .began)]))
            e.handle(TouchFrame(time: .seconds(t + 0.1), contacts: [.init(id: i, position: p, phase: .ended)]))
            t += 0.3
        }
        e.handle(TouchFrame(time: .seconds(t), contacts: [.init(id: 99, position: p, phase: .began)]))
        return e.advance(to: .seconds(t + rule.hold))
    }

    @Test func theConfiguredCornerTapsAndHoldOpenIt() {
        let screen = Size(width: 1000, height: 600)
        let rule = StaffEntry.Rule(corner: .bottomRight, taps: 4, within: 3, hold: 2)
        #expect(tapsOpen(rule, at: Point(x: 980, y: 580), screen: screen))
        #expect(!tapsOpen(rule, at: Point(x: 20, y: 20), screen: screen))  // the default corner no longer
        #expect(tapsOpen(.init(corner: .topRight), at: Point(x: 990, y: 10), screen: screen))
        #expect(!tapsOpen(.init(corner: .topRight), at: Point(x: 990, y: 590), screen: screen))
        #expect(tapsOpen(.init(corner: .bottomLeft), at: Point(x: 5, y: 595), screen: screen))
        // Held 1.9 s of a 2 s hold: not yet.
        var e = StaffEntry(rule: rule, screen: screen)
        for i in 0..<3 {
            let at = Double(i) * 0.3
            e.handle(
                TouchFrame(time: .seconds(at), contacts: [.init(id: i, position: .init(x: 990, y: 590), phase: .began)])
            )
            e.handle(
                TouchFrame(
                    time: .seconds(at + 0.1), contacts: [.init(id: i, position: .init(x: 990, y: 590), phase: .ended)]))
        }
        e.handle(
            TouchFrame(time: .seconds(1), contacts: [.init(id: 9, position: .init(x: 990, y: 590), phase: .began)]))
        let early = e.advance(to: .seconds(2.9))
        let held = e.advance(to: .seconds(3))
        #expect(!early && held)
    }
}
