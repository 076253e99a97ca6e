import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskRender
@testable import KioskSystem

/// The app's flight-recorder path without a device: raw events go through the recorder and a
/// `TouchSession` (what `InputManager` does per event), the dump is written by
/// `FlightRecordingDump` (what SIGUSR2 does), read back, and replayed with the command lines
/// its header gives — and must show what the app saw.
@Suite struct InputFlightRecordingDumpTests {
    /// Raw events of the injector's touchscreen for `commands` (the same stream `KioskCards
    /// inject` writes), timed as it sleeps, in whole microseconds like evdev timestamps.
    func injected(_ commands: [InjectStep], startingAt start: Double = 100) -> [InputEvent] {
        var planner = InjectPlanner(screen: Size(width: 800, height: 480))
        var microseconds = Int64(start * 1_000_000)
        var events: [InputEvent] = []
        for command in commands {
            for action in planner.plan(command) {
                switch action {
                case .frame(let frame):
                    for e in frame {
                        events.append(
                            InputEvent(
                                time: Instant(nanoseconds: microseconds * 1000), type: e.type, code: e.code,
                                value: e.value))
                    }
                    microseconds += 50
                case .sleep(let ms): microseconds += Int64(ms * 1000)
                case .unplug, .replug: break
                }
            }
        }
        return events
    }

    /// What the app does with a device's events: one `TouchSession` (its mapping) and the recorder.
    struct LiveDevice {
        var session: TouchSession
        var recorder = FlightRecorder()
        var frames: [TouchFrame] = []

        init(description: DeviceDescription, mapping: (TouchProfile) -> TouchMapping) throws {
            let profile = try #require(description.classify().touchProfile)
            session = TouchSession(profile: profile, mapping: mapping(profile), firstContactID: 1_000_001)
        }

        mutating func feed(_ events: [InputEvent]) {
            for e in events {
                recorder.record(e)
                if let f = session.handle(e) { frames.append(f) }
            }
        }
    }

    /// Writes the dump like SIGUSR2 does and returns its path and text.
    func dump(
        _ live: LiveDevice, device: DeviceDescription, panel: (Int, Int), scale: Double, in dir: String
    ) throws -> (path: String, text: String) {
        let recording = InputManager.FlightRecording(
            path: "/dev/input/event7", device: device, events: live.recorder.replayableEvents,
            mapping: live.session.mapping)
        let paths = FlightRecordingDump.save(
            [recording], reason: "SIGUSR2",
            context: FlightRecordingDump.Context(
                dataDirectory: dir, kioskID: "lobby-1", panelWidth: panel.0, panelHeight: panel.1, scale: scale,
                deckPath: "/etc/kioskcards/deck.json"),
            wallMilliseconds: 1_764_500_000_000)
        #expect(FlightRecordingDump.waitForWrites(timeout: 10))
        let path = try #require(paths.first)
        #expect(path == dir + "/input-20251130T105320Z-event7.evemu")
        return (path, try readTextFile(path))
    }

    /// The words after `marker` on the header line that has it, quotes kept together.
    func headerArguments(_ text: String, after marker: String) throws -> [String] {
        let line = try #require(text.split(separator: "\n").first { $0.contains(marker) }, "no '\(marker)' line")
        // The text after the marker: drop characters until the line's remainder starts with it.
        var rest = Substring(line)
        while !rest.hasPrefix(marker) { rest = rest.dropFirst() }
        var words: [String] = []
        var current = ""
        var quoted = false
        for c in rest.dropFirst(marker.count) {
            if c == "\"" {
                quoted.toggle()
            } else if c == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// Contact ids renumbered by first appearance (a replay counts from 1, the app per device).
    func renumbered(_ frames: [TouchFrame]) -> [TouchFrame] {
        var ids: [Int: Int] = [:]
        return frames.map { f in
            TouchFrame(
                time: f.time,
                contacts: f.contacts.map { c in
                    let id = ids[c.id] ?? ids.count + 1
                    ids[c.id] = id
                    return TouchContact(id: id, position: c.position, phase: c.phase)
                })
        }
    }

    func gestures(_ frames: [TouchFrame], screen: Size, millimetres: (width: Double, height: Double)?) -> [String] {
        var hook = ReplayGestureHook(screen: screen, millimetres: millimetres)
        return frames.flatMap { hook.feed($0) }
    }

    static let swipes: [InjectStep] = [
        .wait(ms: 500),
        .drag(from: Point(x: 400, y: 240), to: Point(x: 700, y: 250), ms: 120),
        .wait(ms: 900),
        .drag(from: Point(x: 400, y: 240), to: Point(x: 90, y: 230), ms: 120),
        .wait(ms: 900),
        .tap(Point(x: 20, y: 20)),
        .wait(ms: 900),
        .drag(from: Point(x: 380, y: 260), to: Point(x: 760, y: 240), ms: 150),
        .wait(ms: 500),
    ]

    @Test(arguments: [Rotation.deg0, .deg90])
    func aDumpReplaysWithItsHeaderToTheFramesAndGesturesTheAppSaw(rotation: Rotation) throws {
        let description = UInputDevice.touchscreenDescription
        let matrix = TouchMatrix(a: 1.02, b: 0, c: -0.01, d: 0, e: 0.98, f: 0.015)
        let panel = Size(width: 800 / 1.25, height: 480 / 1.25)
        var live = try LiveDevice(description: description) { profile in
            TouchMapping(profile: profile, panel: panel, rotation: rotation, calibration: matrix)
        }
        live.feed(injected(Self.swipes))
        let dir = DeckFixtures.temporaryDirectory("flight")
        let (path, text) = try dump(live, device: description, panel: (800, 480), scale: 1.25, in: dir)
        #expect(text.contains("# KioskCards flight recorder: SIGUSR2 at 2025-11-30T10:53:20.000Z, kiosk 'lobby-1'"))

        // `replay FILE <the header's flags>`, as support would run it.
        let flags = try headerArguments(text, after: "KioskCards replay FILE ")
        guard case .success(let replayPath, let options) = parseReplayArguments([path] + flags) else {
            Issue.record("the header's replay flags do not parse: \(flags)")
            return
        }
        let replay = try TouchReplay(try EvemuRecording(contentsOf: replayPath), options: options)
        #expect(replay.cancelledAtEnd == 0)
        #expect(renumbered(replay.frames) == renumbered(live.frames))
        let screen = live.session.mapping.logicalSize
        let appGestures = gestures(live.frames, screen: screen, millimetres: nil)
        #expect(gestures(replay.frames, screen: replay.mapping.logicalSize, millimetres: nil) == appGestures)
        #expect(appGestures.count == 4)
        if rotation == .deg0 {
            // Turned by 90°, the same device strokes run up and down the screen: no dismissals.
            #expect(appGestures.filter { $0.contains("\"dismiss\":\"right\"") }.count == 2)
            #expect(appGestures.filter { $0.contains("\"dismiss\":\"left\"") }.count == 1)
        }
        unlink(path)
        rmdir(dir)
    }

    @Test func renderWithTheDumpEndsOnTheFrameTheAppShowed() throws {
        // The kiosk: 800×480 px at 1.25 px/pt, the sample stack, touches as the app maps them.
        let description = UInputDevice.touchscreenDescription
        let scale = 1.25
        let size = Size(width: 800 / scale, height: 480 / scale)
        let deckFile = try RenderInputs.deck(path: nil, layout: .stack)
        var live = try LiveDevice(description: description) { profile in TouchMapping(profile: profile, panel: size) }
        let events = injected(Self.swipes)
        live.feed(events)
        let metrics = ScreenMetrics(size: size, pointsPerMillimetre: RenderScale.baselinePixelsPerInch / 25.4)
        var deck = Kiosk.makeDeck(deckFile.kioskDeck(), metrics: metrics, buttons: true)
        for f in live.frames {
            _ = deck.scene(at: f.time)
            deck.handle(f)
        }
        let settled = live.frames.last!.time.advanced(bySeconds: 2)
        let appScene = deck.scene(at: settled)
        #expect(!appScene.isAnimating)
        let decisions = deck.takeDecisions()
        #expect(decisions.map(\.action) == [.swipedRight, .swipedLeft, .swipedRight])

        let dir = DeckFixtures.temporaryDirectory("flight")
        let (path, text) = try dump(live, device: description, panel: (800, 480), scale: scale, in: dir)
        let flags = try headerArguments(text, after: "KioskCards render ")
        let i = try #require(flags.firstIndex(of: "--scale"))
        #expect(Double(flags[i + 1]) == scale)
        #expect(flags.contains("800x480"))
        let rendered = try RenderInputs.scene(
            deck: deckFile, size: size, gesture: nil, scriptPath: path, atMs: 2000)
        #expect(rendered == appScene)
        // And the pixels: the same scene through the real renderer gives the same frame.
        let a = PixelBuffer(width: 800, height: 480)
        let b = PixelBuffer(width: 800, height: 480)
        SceneRenderer(pixelWidth: 800, pixelHeight: 480, scale: scale, images: ImageCache()).render(appScene, into: a)
        SceneRenderer(pixelWidth: 800, pixelHeight: 480, scale: scale, images: ImageCache()).render(rendered, into: b)
        #expect(memcmp(a.pixels, b.pixels, a.stride * a.height) == 0)
        unlink(path)
        rmdir(dir)
    }

    @Test func theFatalSignalDumpIsAnEvemuFileOfTheSameEvents() throws {
        // The handler's writer, called directly (a real crash is scenario 83 in the VM):
        // installs the handlers in this test process too, chaining to the previous ones.
        let dir = DeckFixtures.temporaryDirectory("flight")
        FatalSignalRecorder.install(directory: dir)
        let description = UInputDevice.touchscreenDescription
        let slot = try #require(FatalSignalRecorder.register(path: "/dev/input/event9", device: description))
        let events = injected(Self.swipes, startingAt: 1234.5)
        for e in events { FatalSignalRecorder.record(e, slot: slot) }
        #expect(FatalSignalRecorder.dump() >= 1)
        let path = "\(dir)/input-crash-\(getpid())-event9-\(slot).evemu"
        let dumped = try EvemuRecording(contentsOf: path)
        #expect(dumped.device.classify() == description.classify())
        // From just after the frame that lifted the first finger on, exactly the recorded events.
        let firstLift = try #require(events.firstIndex { $0.code == EvdevCode.absMTTrackingID && $0.value == -1 })
        let frameEnd = try #require(events[firstLift...].firstIndex { $0.isSynReport })
        #expect(dumped.events == Array(events[(frameEnd + 1)...]))
        let replayed = try TouchReplay(dumped)
        let full = try TouchReplay(
            EvemuRecording(parsing: FlightRecorder.evemuText(device: description, events: events, note: "")))
        // Every later touch replays as recorded, nothing starts mid-touch.
        #expect(renumbered(replayed.frames) == renumbered(full.frames.filter { $0.time > events[frameEnd].time }))
        #expect(replayed.frames.first?.contacts.first?.phase == .began)
        #expect(replayed.frames.count > 20)
        unlink(path)
        rmdir(dir)
    }

    /// What recording costs per event on the input path, and a full ring's dump on the loop
    /// thread (the copy) and off it (format + write): figures, never a timed assertion.
    @Test func recordingCostFigure() throws {
        let events = injected(Self.swipes)
        let dir = DeckFixtures.temporaryDirectory("flight")
        // A window longer than the run: the ring fills to its capacity (the worst case to dump).
        var recorder = FlightRecorder(window: 1e9)
        let rounds = max(1, 300_000 / events.count)
        var shifted = events
        let t0 = MonotonicClock.now()
        for r in 0..<rounds {
            let offset = Int64(r) * 10_000_000_000
            for i in shifted.indices {
                shifted[i].time = Instant(nanoseconds: events[i].time.nanoseconds + offset)
                recorder.record(shifted[i])
            }
        }
        let t1 = MonotonicClock.now()
        let kept = recorder.replayableEvents
        let t2 = MonotonicClock.now()
        let text = FlightRecorder.evemuText(device: UInputDevice.touchscreenDescription, events: kept, note: "bench")
        FlightRecorder.write(text, to: dir + "/bench.evemu")
        let t3 = MonotonicClock.now()
        let n = Double(rounds * events.count)
        print(
            "flight recorder: record \(jsonNumber(t1.seconds(since: t0) / n * 1e9, decimals: 1)) ns/event "
                + "(\(Int(n)) events); snapshot of \(kept.count) events on the loop thread "
                + "\(jsonNumber(t2.seconds(since: t1) * 1000, decimals: 2)) ms; format + write off it "
                + "\(jsonNumber(t3.seconds(since: t2) * 1000, decimals: 1)) ms (\(text.utf8.count / 1024) KiB)")
        #expect(kept.count > 0)
        unlink(dir + "/bench.evemu")
        rmdir(dir)
    }

    @Test func nothingRecordedWritesNothing() throws {
        let dir = DeckFixtures.temporaryDirectory("flight")
        let empty = InputManager.FlightRecording(
            path: "/dev/input/event3", device: UInputDevice.touchscreenDescription, events: [],
            mapping: TouchMapping(
                x: AbsInfo(minimum: 0, maximum: 100), y: AbsInfo(minimum: 0, maximum: 100),
                panel: Size(width: 800, height: 480)))
        let paths = FlightRecordingDump.save(
            [empty], reason: "SIGUSR2",
            context: FlightRecordingDump.Context(
                dataDirectory: dir, kioskID: "k", panelWidth: 800, panelHeight: 480, scale: 1, deckPath: "d.json"))
        #expect(paths.isEmpty)
        #expect(rmdir(dir) == 0, "the directory should still be empty")
    }
}
