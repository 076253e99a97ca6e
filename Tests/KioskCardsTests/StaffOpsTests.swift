import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskInput
@testable import KioskStore
@testable import KioskSystem

/// The staff menu's entry settings in kiosk.conf and the key combination.
@Suite struct StaffEntryConfigTests {
    func parse(_ file: String) -> Result<KioskConfig.Invocation, ConfigError> {
        KioskConfig.parse(arguments: []) { path in path == KioskConfig.defaultPath ? .text(file) : .missing }
    }

    @Test func cornerTapsHoldAndKeysAreRead() throws {
        let file = "staff-corner = bottom-right\nstaff-taps = 4\nstaff-hold = 2s\nstaff-keys = ctrl+shift+F12\n"
        guard case .run(let c) = try parse(file).get() else { throw ConfigError(source: "t", message: "no run") }
        #expect(c.staffGesture.corner == .bottomRight)
        #expect(c.staffGesture.taps == 4)
        #expect(c.staffGesture.hold == 2)
        #expect(c.staffKeys?.description == "ctrl+shift+f12")
        guard case .run(let d) = try parse("").get() else { throw ConfigError(source: "t", message: "no run") }
        #expect(d.staffGesture == StaffEntry.Rule())
        #expect(d.staffKeys?.description == "ctrl+alt+s")
        guard case .run(let off) = try parse("staff-keys = off\n").get() else {
            throw ConfigError(source: "t", message: "no run")
        }
        #expect(off.staffKeys == nil)
    }

    @Test func badValuesNameTheLineAndWhatIsAccepted() {
        let cases: [(String, String)] = [
            ("staff-corner = middle", "top-left, top-right, bottom-left, bottom-right"),
            ("staff-taps = 1", "from 2 to 6"),
            ("staff-taps = three", "from 2 to 6"),
            ("staff-hold = 30s", "from 1s to 10s"),
            ("staff-keys = ctrl+alt", "a key besides ctrl"),
            ("staff-keys = s", "at least two keys"),
            ("staff-keys = ctrl+hyper+s", "'hyper' is not one"),
            ("staff-keys = ctrl+ctrl+s", "'ctrl' is named twice"),
        ]
        for (line, expected) in cases {
            guard case .failure(let e) = parse("# staff\n" + line + "\n") else {
                Issue.record("accepted: \(line)")
                continue
            }
            #expect(e.source.hasSuffix(":2"), "\(line): \(e)")
            #expect(e.message.contains(expected), "\(line): \(e)")
        }
    }

    @Test func aChordIsMadeWhenAllItsKeysAreHeldLeftOrRight() throws {
        let chord = try KeyChord.parse("Ctrl + Alt + S").get()
        let leftCtrl: UInt16 = 29
        let rightAlt: UInt16 = 100
        let s: UInt16 = 31
        #expect(chord.isMade(by: [leftCtrl, rightAlt, s]))
        #expect(chord.isMade(by: [97, 56, s]))
        #expect(!chord.isMade(by: [leftCtrl, s]))
        #expect(!chord.isMade(by: [leftCtrl, rightAlt, 32]))  // d, not s
        #expect(KeyChord.codes("f12") == [88] && KeyChord.codes("f1") == [59] && KeyChord.codes("0") == [11])
        #expect(KeyChord.codes("q") == [16] && KeyChord.codes("m") == [50] && KeyChord.codes("1") == [2])
    }
}

/// `LoopDelivery`: work off the loop, its answer on the loop, and the loop never waits for it.
@Suite struct LoopDeliveryTests {
    @Test func theLoopRunsOnWhileTheWorkIsOutAndGetsTheAnswerAfter() {
        let loop = EventLoop()
        let gate = ReadySignal(what: "test gate")  // the worker blocks until the test opens it
        var events: [String] = []
        let delivery = LoopDelivery<Int>(loop: loop, what: "test") { value in events.append("answer \(value)") }
        let gateFD = gate.fd
        delivery.run("test-work") {
            // Blocks the worker thread (not the loop) until the gate is written.
            var p = pollfd(fd: gateFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 30_000)
            return 42
        }
        #expect(delivery.inFlight == 1)
        // The loop turns and fires its timer while the work is out.
        loop.schedule(at: MonotonicClock.now()) { events.append("timer") }
        loop.runOnce(maxWait: 0)
        #expect(events == ["timer"])
        gate.notify()
        for _ in 0..<3000 where events.count < 2 { loop.runOnce(maxWait: 0.01) }
        #expect(events == ["timer", "answer 42"])
        #expect(delivery.inFlight == 0)
    }

    @Test func thePINIsCheckedOnAWorkerAndTheAnswerArrivesOnTheLoop() throws {
        let hash = try #require(StaffPin.hash("2468"))
        let loop = EventLoop()
        var answers: [Bool] = []
        let checks = LoopDelivery<Bool>(loop: loop, what: "staff PIN") { answers.append($0) }
        checks.run("pin") { StaffPin.matches("2468", storedHash: hash) }
        checks.run("pin") { StaffPin.matches("1357", storedHash: hash) }
        // run() returned before any check finished: nothing delivered before the loop turns.
        #expect(answers.isEmpty)
        for _ in 0..<3000 where answers.count < 2 { loop.runOnce(maxWait: 0.01) }
        #expect(answers.count == 2 && answers.filter { $0 }.count == 1)
    }
}

/// A schedule window's "deck": read and checked with the primary deck.
@Suite struct DeckScheduleDeckTests {
    static func deck(_ id: String, schedule: String? = nil) -> String {
        """
        {
          "id": "\(id)", "version": 1, "title": "\(id)", "layout": "stack",
          \(schedule.map { "\"schedule\": \($0)," } ?? "")
          "cards": [{"id": "a", "title": "A", "theme": "teal"}]
        }
        """
    }

    @Test func aWindowsDeckIsResolvedNextToTheDeck() throws {
        let dir = DeckFixtures.temporaryDirectory("deck-window")
        defer { DeckFixtures.removeTree(dir) }
        DeckFixtures.write(Self.deck("evening"), to: dir + "/evening.json")
        DeckFixtures.write(
            Self.deck(
                "main",
                schedule: """
                    {"open": [{"from": "08:00", "to": "17:00"}, {"from": "17:00", "to": "22:00", "deck": "evening.json"}]}
                    """), to: dir + "/deck.json")
        let file = try DeckLoader.load(path: dir + "/deck.json").get()
        let s = try #require(file.schedule)
        #expect(s.windows[0].deck == nil)
        #expect(s.windows[1].deck == PathName.normalize(dir + "/evening.json"))
    }

    @Test func aMissingOrBrokenWindowDeckNamesLineAndField() {
        let dir = DeckFixtures.temporaryDirectory("deck-window")
        defer { DeckFixtures.removeTree(dir) }
        DeckFixtures.write("{\"id\": \"x\"", to: dir + "/broken.json")
        DeckFixtures.write(
            Self.deck("nested", schedule: "{\"open\": [{\"from\": \"08:00\", \"to\": \"09:00\"}]}"),
            to: dir + "/nested.json")
        DeckFixtures.write(
            Self.deck(
                "main",
                schedule: """
                    {"open": [{"days": ["mon"], "from": "08:00", "to": "17:00", "deck": "gone.json"},
                              {"days": ["tue"], "from": "08:00", "to": "17:00", "deck": "broken.json"},
                              {"days": ["wed"], "from": "08:00", "to": "17:00", "deck": "nested.json"},
                              {"days": ["thu"], "from": "08:00", "to": "17:00", "deck": 7}]}
                    """), to: dir + "/deck.json")
        guard case .failure(let p) = DeckLoader.load(path: dir + "/deck.json") else {
            Issue.record("a schedule naming a missing deck was accepted")
            return
        }
        func problem(_ path: String) -> DeckProblem? { p.problems.first { $0.path == path } }
        #expect(problem("schedule.open[0].deck")?.message.contains("no deck file \(dir)/gone.json") == true)
        #expect(problem("schedule.open[0].deck")?.position?.line == 3)
        #expect(problem("schedule.open[1].deck")?.message.contains("has problems") == true)
        #expect(problem("schedule.open[1].deck")?.position?.line == 4)
        #expect(problem("schedule.open[2].deck")?.message.contains("a \"schedule\" of its own") == true)
        #expect(problem("schedule.open[3].deck")?.message.contains("a deck file's path") == true)
        let line = p.description.split(separator: "\n").first { $0.contains("gone.json") }
        #expect(line?.contains(":3:") == true && line?.contains("schedule.open[0].deck") == true)
    }
}
