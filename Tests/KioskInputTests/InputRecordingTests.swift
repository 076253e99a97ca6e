import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput

/// Replays every shared recording of a real touchscreen and checks what PROVENANCE.md says it
/// contains.
@Suite struct InputRecordingTests {
    static let screen = TouchReplayOptions.defaultScreen

    static var recordingsWithEvents: [String] {
        TouchTestData.allFiles.filter { !$0.contains(".desc.") }
    }

    @Test func recordingsAreFound() throws {
        _ = try TouchTestData.requireDirectory()
        #expect(Self.recordingsWithEvents.count >= 15)
    }

    /// Every recording: the frame contract holds, every contact that begins also ends by itself
    /// (nothing is left for the end-of-file cancel: no stuck contact).
    @Test(arguments: recordingsWithEvents)
    func everyContactEndsAndFramesAreWellFormed(file: String) throws {
        let replay = try TouchTestData.replay(file)
        #expect(!replay.frames.isEmpty)
        expectWellFormed(replay.frames, screen: Self.screen)
        #expect(replay.cancelledAtEnd == 0, "\(file): contacts stuck down at the end")
        let histories = ContactHistory.collect(replay.frames)
        for h in histories {
            #expect(h.phases.first == .began && h.phases.last == .ended, "\(file): contact \(h.id) \(h.phases)")
        }
    }

    /// Protocol B: one contact per non-negative tracking id in the file, counted straight from
    /// the raw events (independent of the decoder).
    @Test(arguments: recordingsWithEvents)
    func protocolBContactsMatchTrackingIDs(file: String) throws {
        let rec = try TouchTestData.load(file)
        guard case .slotted = rec.device.classify().touchProfile?.touchProtocol else { return }
        let newIDs = rec.events.filter {
            $0.type == EvdevCode.evAbs && $0.code == EvdevCode.absMTTrackingID && $0.value >= 0
        }.count
        let replay = try TouchReplay(rec)
        #expect(ContactHistory.collect(replay.frames).count == newIDs)
    }

    struct Expectation: Sendable, CustomStringConvertible {
        var file: String
        var contacts: Int
        var maxConcurrent: Int
        var taps: Int? = nil
        /// Vertical direction runs of every contact that moves ("up", "down"), on screen.
        var vertical: [String]? = nil
        /// Horizontal direction of every contact that moves.
        var horizontal: String? = nil
        var description: String { file }
    }

    // Numbers from PROVENANCE.md (contacts, fingers, taps, directions).
    static let expectations: [Expectation] = [
        Expectation(file: "atmel-mxt-800x480-one-finger-fast-taps.evemu", contacts: 9, maxConcurrent: 1, taps: 9),
        Expectation(
            file: "atmel-mxt-800x480-one-finger-drag-up-down.evemu", contacts: 1, maxConcurrent: 1, taps: 0,
            vertical: ["up", "down"]),
        Expectation(
            file: "atmel-mxt-800x480-four-finger-drag-down.evemu", contacts: 4, maxConcurrent: 4, taps: 0,
            vertical: ["down"]),
        // Two fingers touch and lift together (~0.5 s: a press more than a tap; see below).
        Expectation(file: "edt-ft5x06-ep0430m09-two-finger-tap.evemu", contacts: 2, maxConcurrent: 2),
        // "scroll down"/"drag down", but y falls on this panel (see PROVENANCE.md: possibly inverted).
        Expectation(
            file: "edt-ft5x06-ep0430m09-two-finger-scroll-down.evemu", contacts: 2, maxConcurrent: 2, taps: 0,
            vertical: ["up"]),
        Expectation(
            file: "edt-ft5x06-ep0430m09-four-finger-drag-down.evemu", contacts: 4, maxConcurrent: 4, taps: 0,
            vertical: ["up"]),
        Expectation(file: "egalax-wetab-single-finger-taps.evemu", contacts: 11, maxConcurrent: 1, taps: 11),
        Expectation(file: "egalax-empia-pcap-one-finger-tap.evemu", contacts: 1, maxConcurrent: 1, taps: 1),
        Expectation(file: "dell-canvas-cooltouch-hid-win8-up-to-5-fingers.evemu", contacts: 12, maxConcurrent: 5),
        Expectation(file: "3m-microtouch-22in-up-to-5-fingers.trimmed.evemu", contacts: 10, maxConcurrent: 5),
        // PROVENANCE says "up then down"; the data goes up, down, and up again (y 1117→511→1529→629).
        Expectation(
            file: "elan-cando-win7-one-finger-drag-up-down.evemu", contacts: 1, maxConcurrent: 1, taps: 0,
            vertical: ["up", "down", "up"]),
        Expectation(
            file: "quanta-optical-1920x1080-one-finger-move.evemu", contacts: 1, maxConcurrent: 1, taps: 0,
            horizontal: "right"),
        Expectation(
            file: "wacom-isdv4-e6-finger-two-finger-swipe.evemu", contacts: 2, maxConcurrent: 2, taps: 0,
            horizontal: "right"),
        Expectation(file: "ntrig-protocol-a-two-finger-touch-release.evemu", contacts: 2, maxConcurrent: 2),
        Expectation(file: "ntrig-dell-xt2-protocol-a-multi-contact.evemu", contacts: 4, maxConcurrent: 4),
        // Two strokes; the position is only on ABS_Z/ABS_RX (quirk).
        Expectation(file: "egalax-0eef-0001-singletouch-z-rx-axes.evemu", contacts: 2, maxConcurrent: 1),
    ]

    @Test(arguments: expectations)
    func recordingContainsWhatItsProvenanceSays(_ e: Expectation) throws {
        let replay = try TouchTestData.replay(e.file)
        let histories = ContactHistory.collect(replay.frames)
        #expect(histories.count == e.contacts)
        #expect(maxConcurrentContacts(replay.frames) == e.maxConcurrent)
        if let taps = e.taps {
            #expect(histories.filter(\.isTap).count == taps)
        }
        let moving = histories.filter { $0.maxDistanceFromStart > 40 }
        if let vertical = e.vertical {
            #expect(!moving.isEmpty)
            for h in moving {
                #expect(directionRuns(h.positions.map(\.y), threshold: 40) == vertical, "contact \(h.id)")
            }
        }
        if let horizontal = e.horizontal {
            #expect(!moving.isEmpty)
            for h in moving {
                #expect(directionRuns(h.positions.map(\.x), threshold: 40) == [horizontal == "right" ? "down" : "up"])
            }
        }
    }

    /// The total moves of a coordinate as runs ("down" = increasing), ignoring wiggles smaller
    /// than `threshold` points.
    func directionRuns(_ values: [Double], threshold: Double) -> [String] {
        var runs: [String] = []
        var anchor = values.first ?? 0
        var extreme = anchor
        var direction: Int = 0
        for v in values.dropFirst() {
            if direction == 0 {
                if abs(v - anchor) >= threshold {
                    direction = v > anchor ? 1 : -1
                    extreme = v
                }
            } else if (v - extreme) * Double(direction) > 0 {
                extreme = v
            } else if abs(v - extreme) >= threshold {
                runs.append(direction > 0 ? "down" : "up")
                direction = -direction
                anchor = extreme
                extreme = v
            }
        }
        if direction != 0 { runs.append(direction > 0 ? "down" : "up") }
        return runs
    }

    /// Protocol A: each contact keeps its id — in the N-Trig recording the two fingers are far
    /// apart, so a swapped id would show up as a jump of hundreds of points.
    @Test func protocolAIDsAreStableOnRealData() throws {
        let replay = try TouchTestData.replay("ntrig-protocol-a-two-finger-touch-release.evemu")
        for h in ContactHistory.collect(replay.frames) {
            #expect(h.maxDistanceFromStart < 20, "contact \(h.id) jumped \(h.maxDistanceFromStart) pt")
        }
    }

    @Test func twoFingerTouchReleaseBeginsTogetherAndBarelyMoves() throws {
        let replay = try TouchTestData.replay("edt-ft5x06-ep0430m09-two-finger-tap.evemu")
        let first = try #require(replay.frames.first)
        #expect(first.contacts.count == 2 && first.contacts.allSatisfy { $0.phase == .began })
        for h in ContactHistory.collect(replay.frames) {
            #expect(h.maxDistanceFromStart < 5)
        }
    }

    @Test func egalaxQuirkMovesWhereABSXYNeverDoes() throws {
        let rec = try TouchTestData.load("egalax-0eef-0001-singletouch-z-rx-axes.evemu")
        #expect(
            !rec.events.contains {
                $0.type == EvdevCode.evAbs && ($0.code == EvdevCode.absX || $0.code == EvdevCode.absY)
            })
        let stroke = try #require(
            ContactHistory.collect(try TouchReplay(rec).frames).max { $0.positions.count < $1.positions.count })
        #expect(stroke.maxDistanceFromStart > 400)
    }

    @Test func quantaMaxEqualsWidthStaysOnScreen() throws {
        // 0…1920 on a 1920-pixel axis: the right edge maps inside the screen, not past it.
        let rec = try TouchTestData.load("quanta-optical-1920x1080-one-finger-move.evemu")
        let profile = try #require(rec.device.classify().touchProfile)
        let mapping = TouchMapping(profile: profile, panel: Size(width: 1920, height: 1080))
        let right = mapping.map(DevicePoint(x: 1920, y: 1080))
        #expect(right.x < 1920 && right.x > 1919)
        #expect(right.y < 1080 && right.y > 1079)
    }
}
