import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskInput

/// `probe --watch` prints the live decode in replay's format. The live half (libevdev reads on a
/// uinput clone while `evemu-play` plays the recording) runs in the end-to-end VM:
/// `deploy/vm/scenarios/92-live-decode.sh` compares it with `replay` line by line.
@Suite struct InputWatchTests {
    @Test func renumberingFollowsFirstAppearance() {
        var n = ContactRenumbering()
        func frame(_ ids: [(Int, TouchPhase)]) -> TouchFrame {
            TouchFrame(
                time: .zero, contacts: ids.map { TouchContact(id: $0.0, position: .zero, phase: $0.1) })
        }
        #expect(n.apply(frame([(1_000_007, .began)])).contacts.map(\.id) == [1])
        #expect(n.apply(frame([(1_000_007, .moved), (1_000_009, .began)])).contacts.map(\.id) == [1, 2])
        #expect(n.apply(frame([(2_000_001, .began), (1_000_009, .ended)])).contacts.map(\.id) == [3, 2])
        #expect(n.apply(frame([(1_000_007, .ended)])).contacts.map(\.id) == [1])
    }

    /// What the watcher prints for a device's events (decoded with the manager's id range, as the
    /// app decodes them) is exactly what `replay` prints for the recording.
    @Test(arguments: [
        "wacom-isdv4-e6-finger-two-finger-swipe.evemu",
        "ntrig-protocol-a-two-finger-touch-release.evemu",
        "egalax-0eef-0001-singletouch-z-rx-axes.evemu",
        "atmel-mxt-800x480-four-finger-drag-down.evemu",
    ])
    func watchLinesEqualReplayLines(file: String) throws {
        let recording = try TouchTestData.load(file)
        let kind = recording.device.classify()
        let profile = try #require(kind.touchProfile)
        let screen = TouchReplayOptions.defaultScreen

        let replay = try TouchReplay(recording)
        var hook = ReplayGestureHook(
            screen: replay.mapping.logicalSize, millimetres: replay.profile.physicalSizeMillimetres)
        var expected: [String] = []
        for f in replay.frames { expected += [replayFrameJSON(f)] + hook.feed(f) }

        var session = TouchSession(
            profile: profile, mapping: TouchMapping(profile: profile, panel: screen), firstContactID: 3_000_001)
        var printer = WatchPrinter(options: TouchReplayOptions())
        var printed: [String] = []
        for e in recording.events {
            if let f = session.handle(e) { printed += printer.lines(for: .touch(f), device: kind) }
        }
        #expect(!printed.isEmpty)
        #expect(printed == expected)
    }

    @Test func keysPrintTheirCommand() {
        var printer = WatchPrinter(options: TouchReplayOptions())
        #expect(printer.lines(for: .key(.right, .zero), device: .keyboard) == [#"{"type":"key","key":"right"}"#])
    }

    /// The keyboard the VM's keyboard scenario makes with `evemu-device` is a keyboard to the app.
    @Test func vmKeyboardFixtureIsAKeyboard() throws {
        let rec = try EvemuRecording(contentsOf: InputFixtures.directory + "/uinput-keyboard.desc.evemu")
        #expect(rec.device.classify() == .keyboard)
        for code in [
            EvdevCode.keyLeft, EvdevCode.keyRight, EvdevCode.keyEnter, EvdevCode.keyBackspace, EvdevCode.keyEsc,
        ] {
            #expect(rec.device.has(key: code))
        }
        #expect(rec.events.isEmpty)
    }

    @Test func watchArgumentsAreChecked() {
        #expect(runProbeCommand(arguments: ["--watch"]) == 2)
        #expect(runProbeCommand(arguments: ["--watch", "/dev/input/event0", "--seconds", "0"]) == 2)
        #expect(runProbeCommand(arguments: ["--watch", "/dev/input/event0", "--seconds", "x"]) == 2)
        #expect(runProbeCommand(arguments: ["--seconds", "1"]) == 2, "--seconds without --watch")
    }

    /// A path that is not an input device: the watcher says why and exits 1 instead of waiting.
    @Test func watchingANonDeviceFails() {
        #expect(runProbeCommand(arguments: ["--watch", "/dev/null", "--seconds", "0.2"]) == 1)
    }

    /// A path that never appears while watched: an error naming the fix, not a silent exit 0.
    @Test func watchingAMissingDeviceFails() {
        #expect(runProbeCommand(arguments: ["--watch", "/nonexistent/event99", "--seconds", "0.2"]) == 1)
    }
}
