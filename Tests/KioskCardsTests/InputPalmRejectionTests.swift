import CEvdev
import CardModel
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskRender

/// Palms, cloths and resting fingers, replayed from recordings written for them
/// (`Fixtures/palm-fixtures.py`) through the real decoder and the real decks: each is rejected
/// without a decision, the card springs back, and the ordinary gesture after it still works.
@Suite struct InputPalmRejectionTests {
    static let metrics = ScreenMetrics(
        size: TouchReplayOptions.defaultScreen, pointsPerMillimetre: ReplayGestureHook.defaultPointsPerMillimetre)

    /// Feeds `frames` to `deck` as the app does (a scene drawn before each frame); the
    /// decisions it took.
    func play(_ frames: [TouchFrame], into deck: inout some CardDeck) -> [Decision] {
        var decisions: [Decision] = []
        for f in frames {
            _ = deck.scene(at: f.time)
            deck.handle(f)
            decisions += deck.takeDecisions()
        }
        return decisions
    }

    func gestureLines(_ replay: TouchReplay) -> [String] {
        var hook = ReplayGestureHook(
            screen: replay.mapping.logicalSize, millimetres: replay.profile.physicalSizeMillimetres)
        return replay.frames.flatMap { hook.feed($0) }
    }

    /// The index of the first frame of the ordinary swipe that closes each recording.
    func lastGestureStart(_ replay: TouchReplay) throws -> Int {
        try #require(replay.frames.lastIndex { f in f.contacts.contains { $0.phase == .began } })
    }

    /// Rejected mid-gesture (a cancel the model sees), then an ordinary swipe.
    static let cancelledSwipes = ["palm-tool-type.evemu", "large-contact.evemu", "cloth-wipe.evemu"]
    /// Also the issue's cloth: eight MT_TOOL_PALM contacts of 40 mm, which never begin at all.
    static let rejectedSwipes = cancelledSwipes + ["cloth-wipe-palm.evemu"]

    @Test(arguments: rejectedSwipes)
    func rejectedSwipeStoresNothingAndTheCardSpringsBack(file: String) throws {
        let replay = try InputFixtures.replay(file)
        let split = try lastGestureStart(replay)
        var deck = StackDeck(cards: BuiltInCards.stack, metrics: Self.metrics)
        let top = try #require(deck.remainingCards.first)
        let rejected = Array(replay.frames[..<split])
        #expect(play(rejected, into: &deck).isEmpty)
        #expect(deck.remainingCards.first == top)
        // Springs back: well after the wipe the top card is drawn as on an untouched deck.
        let later = (rejected.last ?? replay.frames[split]).time.advanced(bySeconds: 2)
        var untouched = StackDeck(cards: BuiltInCards.stack, metrics: Self.metrics)
        let card = try #require(deck.scene(at: later).elements.first { $0.id == "card:\(top.id)" })
        let rest = try #require(untouched.scene(at: later).elements.first { $0.id == "card:\(top.id)" })
        #expect(card.frame == rest.frame)
        #expect(card.transform == rest.transform)
    }

    @Test(arguments: rejectedSwipes)
    func anOrdinarySwipeAfterTheRejectedOneDismisses(file: String) throws {
        let replay = try InputFixtures.replay(file)
        var deck = StackDeck(cards: BuiltInCards.stack, metrics: Self.metrics)
        let top = try #require(deck.remainingCards.first)
        let decisions = play(replay.frames, into: &deck)
        #expect(decisions.count == 1)
        #expect(decisions.first?.cardID == top.id)
        #expect(decisions.first?.action == .swipedRight)
    }

    @Test(arguments: cancelledSwipes)
    func replayReportsACancelThenTheSwipe(file: String) throws {
        let lines = gestureLines(try InputFixtures.replay(file))
        #expect(lines.count == 2)
        #expect(lines.first?.contains(#""kind":"cancelled""#) == true)
        #expect(lines.first?.contains(#""dismiss":"none""#) == true)
        #expect(lines.last?.contains(#""kind":"drag""#) == true)
        #expect(lines.last?.contains(#""dismiss":"right""#) == true)
    }

    @Test func palmClothNeverReachesTheModel() throws {
        let replay = try InputFixtures.replay("cloth-wipe-palm.evemu")
        #expect(ContactHistory.collect(replay.frames).count == 1, "only the swipe's finger")
        let lines = gestureLines(replay)
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""kind":"drag""#) == true)
        #expect(lines.first?.contains(#""dismiss":"right""#) == true)
    }

    @Test func palmToolTypeCancelsTheContactAndSilencesIt() throws {
        let replay = try InputFixtures.replay("palm-tool-type.evemu")
        let h = ContactHistory.collect(replay.frames)
        #expect(h.count == 2)
        #expect(h.first?.phases.last == .cancelled)
        #expect(h.first?.phases.filter { $0 == .cancelled }.count == 1)
        #expect(h.last?.phases.last == .ended)
        expectWellFormed(replay.frames, screen: TouchReplayOptions.defaultScreen)
    }

    @Test func contactGrowingPastThirtyMillimetresIsCancelled() throws {
        let replay = try InputFixtures.replay("large-contact.evemu")
        #expect(replay.profile.palm.majorLimit == 150)  // 30 mm at 5 units/mm
        #expect(replay.profile.palm.minorLimit == 100)  // 20 mm
        let h = ContactHistory.collect(replay.frames)
        #expect(h.map { $0.phases.last } == [.cancelled, .ended])
    }

    /// A contact that lands as a palm never begins: the model sees nothing at all.
    @Test func contactLandingAsAPalmNeverBegins() {
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 0)
        s.abs(ABS_MT_TRACKING_ID, 5)
        s.abs(ABS_MT_TOOL_TYPE, Int32(MT_TOOL_PALM))
        s.abs(ABS_MT_POSITION_X, 100)
        s.abs(ABS_MT_POSITION_Y, 100)
        s.key(BTN_TOUCH, 1)
        s.report()
        s.abs(ABS_MT_TOOL_TYPE, Int32(MT_TOOL_FINGER))  // looks like a finger again: still a palm
        s.abs(ABS_MT_POSITION_X, 300)
        s.report()
        s.abs(ABS_MT_TRACKING_ID, -1)
        s.key(BTN_TOUCH, 0)
        s.report()
        var decoder = TouchDecoder(profile: InputFixtures.slotted)
        #expect(s.decode(&decoder).isEmpty)
        #expect(decoder.cancelAll(at: s.time) == nil)
    }

    /// The cloth's contacts are finger-sized; the sixth one down is what cancels.
    @Test func clothContactsAreFingerSizedSoTheirCountIsWhatCancels() throws {
        let replay = try InputFixtures.replay("cloth-wipe.evemu")
        #expect(maxConcurrentContacts(replay.frames) == 8)
        // No contact is rejected by the decoder: every one of them lifts normally.
        let h = ContactHistory.collect(replay.frames)
        #expect(h.allSatisfy { $0.phases.last == .ended })
    }

    @Test func stillHoldOpensNoDetailButTheTapAfterDoes() throws {
        let replay = try InputFixtures.replay("still-hold.evemu")
        let split = try lastGestureStart(replay)
        var deck = ListDeck(cards: BuiltInCards.list, metrics: Self.metrics, randomSeed: 1)
        #expect(play(Array(replay.frames[..<split]), into: &deck).isEmpty, "a 2 s hold opened the detail page")
        #expect(deck.openCard == nil)
        let tap = play(Array(replay.frames[split...]), into: &deck)
        #expect(tap.map(\.action) == [.opened], "the tap after the hold did not open the detail page")
        #expect(deck.openCard != nil)
    }

    @Test func stillHoldOnADismissButtonStoresNothing() throws {
        let replay = try InputFixtures.replay("still-hold.evemu")
        let split = try lastGestureStart(replay)
        let hold = Array(replay.frames[..<split])
        var deck = StackDeck(cards: BuiltInCards.stack, metrics: Self.metrics, options: StackOptions(showButtons: true))
        let button = try #require(deck.layout.frame(of: .dismissRight))
        // The recording holds at the panel's centre; move it onto the button.
        let at = try #require(hold.first?.contacts.first?.position)
        let shift = button.center - at
        let moved = hold.map { f in
            TouchFrame(
                time: f.time,
                contacts: f.contacts.map { TouchContact(id: $0.id, position: $0.position + shift, phase: $0.phase) })
        }
        #expect(play(moved, into: &deck).isEmpty)
    }

    @Test func replayReportsTheHoldAsAHoldAndTheTapAsATap() throws {
        let lines = gestureLines(try InputFixtures.replay("still-hold.evemu"))
        #expect(lines.count == 2)
        #expect(lines.first?.contains(#""kind":"hold""#) == true)
        #expect(lines.last?.contains(#""kind":"tap""#) == true)
    }

    // MARK: The rule and its limits

    @Test func limitsComeFromTheResolutionElseAQuarterOfTheRange() {
        let measured = PalmRule(
            major: AbsInfo(minimum: 0, maximum: 255, resolution: 5),
            minor: AbsInfo(minimum: 0, maximum: 255, resolution: 5))
        #expect(measured.majorLimit == 150 && measured.minorLimit == 100)
        let unmeasured = PalmRule(major: AbsInfo(minimum: 0, maximum: 32767), minor: nil)
        #expect(unmeasured.majorLimit == 8192 && unmeasured.minorLimit == nil)
        #expect(PalmRule(major: AbsInfo(minimum: 0, maximum: 0), minor: nil).majorLimit == nil)
        #expect(measured.rejects(toolType: Int32(MT_TOOL_PALM), major: nil, minor: nil))
        #expect(measured.rejects(toolType: Int32(MT_TOOL_FINGER), major: 151, minor: 30))
        #expect(measured.rejects(toolType: Int32(MT_TOOL_FINGER), major: 120, minor: 101))
        #expect(!measured.rejects(toolType: Int32(MT_TOOL_FINGER), major: 150, minor: 100))
    }

    /// The shared recordings with events (a closure inside `@Test(arguments:)` crashes Swift
    /// 6.0.3's type checker, so the list is a property).
    static let recordingFiles = TouchTestData.allFiles.filter { !$0.contains(".desc.") }

    /// Every genuine finger in the shared real recordings (3M, N-Trig and Elan report touch
    /// sizes; Atmel and Wacom a tool type) stays a finger: no contact is cancelled on the way.
    @Test(arguments: Self.recordingFiles)
    func realRecordingsHaveNoPalms(file: String) throws {
        let replay = try TouchTestData.replay(file)
        let cancelled = replay.frames.flatMap(\.contacts).filter { $0.phase == .cancelled }.count
        #expect(cancelled == replay.cancelledAtEnd)
    }

    /// Protocol A restates every contact each frame; a report that turns into a palm cancels
    /// the contact it continues, and the palm stays silent until it lifts.
    @Test func protocolAPalmCancelsTheContactItContinues() {
        var profile = InputFixtures.anonymous
        profile.palm = PalmRule(major: AbsInfo(minimum: 0, maximum: 255, resolution: 5))  // > 150: palm
        var s = EventScript()
        for (x, major): (Int32, Int32) in [(100, 40), (200, 40), (300, 200), (400, 40)] {
            s.abs(ABS_MT_POSITION_X, x)
            s.abs(ABS_MT_POSITION_Y, 300)
            s.abs(ABS_MT_TOUCH_MAJOR, major)
            s.mtReport()
            if x == 100 { s.key(BTN_TOUCH, 1) }
            s.report()
        }
        s.key(BTN_TOUCH, 0)
        s.report()
        var decoder = TouchDecoder(profile: profile)
        let frames = s.decode(&decoder)
        #expect(frames.map { $0.contacts.map(\.phase) } == [[.began], [.moved], [.cancelled]])
        #expect(decoder.activeContactCount == 0)
    }
}
