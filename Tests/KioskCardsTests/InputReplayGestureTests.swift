import CardModel
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskInput

/// The gesture lines of `replay`: real recordings judged as the card stack would judge them.
@Suite struct InputReplayGestureTests {
    func gestures(_ file: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let dir = try TouchTestData.requireDirectory(sourceLocation: sourceLocation)
        let replay = try TouchReplay(try EvemuRecording(contentsOf: dir + "/" + file), options: TouchReplayOptions())
        var hook = ReplayGestureHook(
            screen: replay.mapping.logicalSize, millimetres: replay.profile.physicalSizeMillimetres)
        return replay.frames.flatMap { hook.feed($0) }
    }

    @Test func fastTapsAreNineTapsThatDismissNothing() throws {
        let lines = try gestures("atmel-mxt-800x480-one-finger-fast-taps.evemu")
        #expect(lines.count == 9)
        #expect(lines.allSatisfy { $0.contains(#""kind":"tap""#) && $0.contains(#""dismiss":"none""#) })
    }

    @Test func swipeAlongTheTopEdgeDismissesRight() throws {
        // Two fingers swipe left→right across most of the panel; the first finger is the primary.
        let lines = try gestures("wacom-isdv4-e6-finger-two-finger-swipe.evemu")
        let drags = lines.filter { $0.contains(#""kind":"drag""#) }
        #expect(drags.count == 1)
        #expect(drags.first?.contains(#""dismiss":"right""#) == true)
    }

    @Test func verticalDragDismissesNothing() throws {
        let lines = try gestures("atmel-mxt-800x480-one-finger-drag-up-down.evemu")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""kind":"drag","translation":["#) == true)
        #expect(lines.first?.contains(#""dismiss":"none""#) == true)
    }
}
