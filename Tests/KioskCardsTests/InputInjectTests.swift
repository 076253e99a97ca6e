import CEvdev
import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskSystem

@Suite struct InputInjectTests {
    static let screen = Size(width: 800, height: 480)

    /// The injector's own device, classified like any other.
    static var profile: TouchProfile {
        UInputDevice.touchscreenDescription.classify().touchProfile!
    }

    /// Plays `commands` through the planner and the app's decoder and mapping, with no device.
    static func roundTrip(_ commands: [InjectStep]) -> [TouchFrame] {
        var planner = InjectPlanner(screen: screen)
        var session = TouchSession(profile: profile, mapping: TouchMapping(profile: profile, panel: screen))
        var time = Instant.seconds(1)
        var frames: [TouchFrame] = []
        for c in commands {
            for action in planner.plan(c) {
                switch action {
                case .frame(let events):
                    for e in events {
                        let event = InputEvent(time: time, type: e.type, code: e.code, value: e.value)
                        if let f = session.handle(event) { frames.append(f) }
                    }
                case .sleep(let ms):
                    time = time.advanced(bySeconds: ms / 1000)
                case .unplug:
                    if let f = session.deviceRemoved(at: time) { frames.append(f) }
                case .replug:
                    break
                }
            }
        }
        return frames
    }

    @Test func injectedDeviceIsAProtocolBTouchscreen() {
        #expect(UInputDevice.touchscreenDescription.classify() == .touchscreen(Self.profile))
        #expect(Self.profile.touchProtocol == .slotted(slots: 10))
        #expect(Self.profile.notes.isEmpty)
    }

    @Test func dragArrivesWhereItWasAimed() throws {
        let frames = Self.roundTrip([.drag(from: Point(x: 100, y: 240), to: Point(x: 700, y: 260), ms: 200)])
        expectWellFormed(frames, screen: Self.screen)
        let h = try #require(ContactHistory.collect(frames).first)
        #expect(abs(h.start.x - 100) < 0.1 && abs(h.start.y - 240) < 0.1)
        #expect(abs(h.end.x - 700) < 0.1 && abs(h.end.y - 260) < 0.1)
        #expect(h.phases.first == .began && h.phases.last == .ended)
        #expect(abs(h.duration - 0.2) < 0.001)
        #expect(h.phases.count == 22)  // began, 20 moves at 100 Hz, ended
    }

    @Test func tapsAtTheSameSpotAreSeparateTouches() {
        let frames = Self.roundTrip([.tap(Point(x: 400, y: 240)), .wait(ms: 100), .tap(Point(x: 400, y: 240))])
        let h = ContactHistory.collect(frames)
        #expect(h.count == 2)
        #expect(h.allSatisfy { $0.isTap && abs($0.start.x - 400) < 0.1 })
    }

    @Test func twoFingerGestureUsesTwoSlots() {
        let frames = Self.roundTrip([
            .twoFinger(first: Point(x: 200, y: 200), second: Point(x: 300, y: 200), by: Point(x: 0, y: 100), ms: 100)
        ])
        let h = ContactHistory.collect(frames)
        #expect(h.count == 2)
        #expect(maxConcurrentContacts(frames) == 2)
        #expect(h.allSatisfy { abs($0.translation.y - 100) < 0.1 && abs($0.translation.x) < 0.1 })
    }

    @Test func unplugMidDragCancelsTheContact() {
        let frames = Self.roundTrip([
            .down(finger: 0, at: Point(x: 100, y: 100)), .move(finger: 0, to: Point(x: 300, y: 100), ms: 50), .unplug,
        ])
        expectWellFormed(frames, screen: Self.screen)
        #expect(frames.last?.contacts.map(\.phase) == [.cancelled])
    }

    @Test func scriptParsing() throws {
        #expect(try InjectStep(parsing: "  # just a comment", lineNumber: 1) == nil)
        #expect(try InjectStep(parsing: "tap 1 2 # there", lineNumber: 1) == .tap(Point(x: 1, y: 2)))
        #expect(
            try InjectStep(parsing: "flick 10 20 30 40", lineNumber: 1)
                == .drag(from: Point(x: 10, y: 20), to: Point(x: 30, y: 40), ms: 80))
        for bad in ["tap 1", "drag 1 2 3 4", "down 11 1 1", "wiggle", "tap x y", "unplug now"] {
            #expect(throws: InjectScriptError.self) { try InjectStep(parsing: bad, lineNumber: 7) }
        }
        #expect(runInjectCommand(arguments: ["tap", "1"]) == 2)
        #expect(runInjectCommand(arguments: []) == 2)
    }

    // MARK: Real uinput device, read back through the app's input path

    @Test(TestRequirement.uinput.trait) func realUInputDeviceReadsBackThroughInputManager() throws {
        var device: UInputDevice? = try UInputDevice(UInputDevice.touchscreenDescription)
        let node: String
        switch device {
        case .some(let d):
            let devnode = d.devnode
            node = try #require(devnode)
        case .none: return
        }
        let loop = EventLoop()
        var received: [TouchFrame] = []
        var config = InputManager.Configuration(panel: Self.screen)
        config.explicitPaths = [node]
        let manager = InputManager(loop: loop, configuration: config) { output in
            if case .touch(let f) = output { received.append(f) }
        }
        // udev may still be setting the node up.
        var tries = 0
        while manager.devices.isEmpty && tries < 20 {
            try manager.start()
            if manager.devices.isEmpty {
                manager.stop()
                sleepMilliseconds(50)
            }
            tries += 1
        }
        try #require(manager.devices.count == 1, "InputManager did not open \(node)")
        var planner = InjectPlanner(screen: Self.screen)
        let actions =
            planner.plan(.down(finger: 0, at: Point(x: 100, y: 240)))
            + planner.plan(.move(finger: 0, to: Point(x: 500, y: 240), ms: 100))
        for action in actions {
            guard case .frame(let events) = action else { continue }
            switch device {
            case .some(let d): for e in events { try d.write(type: e.type, code: e.code, value: e.value) }
            case .none: break
            }
            loop.runOnce(maxWait: 0.05)
        }
        for _ in 0..<5 { loop.runOnce(maxWait: 0.02) }
        device = nil  // unplug mid-drag
        for _ in 0..<20 where received.last?.contacts.first?.phase != .cancelled { loop.runOnce(maxWait: 0.05) }
        manager.stop()
        expectWellFormed(received, screen: Self.screen)
        let h = try #require(ContactHistory.collect(received).first)
        #expect(abs(h.start.x - 100) < 0.5)
        #expect(abs(h.positions.dropLast().last!.x - 500) < 0.5)
        #expect(h.phases.last == .cancelled)
    }
}

@Suite struct InputManagerPiecesTests {
    @Test func keyCommands() {
        #expect(KeyAction(keyCode: UInt16(KEY_LEFT), value: 1) == .left)
        #expect(KeyAction(keyCode: UInt16(KEY_RIGHT), value: 1) == .right)
        #expect(KeyAction(keyCode: UInt16(KEY_KPENTER), value: 1) == .enter)
        #expect(KeyAction(keyCode: UInt16(KEY_BACKSPACE), value: 1) == .backspace)
        #expect(KeyAction(keyCode: UInt16(KEY_ESC), value: 1) == .escape)
        #expect(KeyAction(keyCode: UInt16(KEY_LEFT), value: 0) == nil, "release")
        #expect(KeyAction(keyCode: UInt16(KEY_LEFT), value: 2) == nil, "autorepeat")
        #expect(KeyAction(keyCode: UInt16(KEY_A), value: 1) == nil)
        #expect(KeyAction(keyCode: UInt16(KEY_UP), value: 1) == .up)
        #expect(KeyAction(keyCode: UInt16(KEY_DOWN), value: 1) == .down)
        #expect(KeyAction(keyCode: UInt16(KEY_DELETE), value: 1) == .delete)
        #expect(KeyAction(keyCode: UInt16(KEY_KPPLUS), value: 1) == .plus)
        #expect(KeyAction(keyCode: UInt16(KEY_F1), value: 1) == .help)
        // The accessibility control's key: F2, the PC keyboard's menu key, a keypad's Menu.
        for code in [KEY_F2, KEY_COMPOSE, KEY_MENU] {
            #expect(KeyAction(keyCode: UInt16(code), value: 1) == .accessibility, "\(code)")
            #expect(KeyAction(keyCode: UInt16(code), value: 2) == nil, "\(code) autorepeat")
        }
    }

    /// Every key the input layer reports is one the decks understand (the app maps them by name).
    @Test func everyKeyActionIsAnAccessKey() {
        let all: [KeyAction] = [
            .left, .right, .up, .down, .enter, .backspace, .escape, .delete, .plus, .help, .accessibility,
        ]
        for k in all { #expect(AccessKey(rawValue: k.rawValue) != nil, "\(k)") }
        #expect(all.count == AccessKey.allCases.count)
    }

    @Test func inotifyRecordsParse() {
        // Two records as the kernel lays them out: wd, mask, cookie, len, NUL-padded name.
        var bytes: [UInt8] = []
        func record(_ wd: Int32, _ mask: UInt32, _ name: String, padded: Int) {
            withUnsafeBytes(of: wd.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: mask.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt32(0)) { bytes += $0 }
            withUnsafeBytes(of: UInt32(padded).littleEndian) { bytes += $0 }
            bytes += Array(name.utf8) + Array(repeating: 0, count: padded - name.utf8.count)
        }
        record(1, UInt32(IN_CREATE), "event7", padded: 16)
        record(1, UInt32(IN_DELETE), "event12", padded: 16)
        let records = bytes.withUnsafeBytes { InotifyEvents.parse($0) }
        #expect(
            records == [
                InotifyEvents.Record(watch: 1, mask: UInt32(IN_CREATE), name: "event7"),
                InotifyEvents.Record(watch: 1, mask: UInt32(IN_DELETE), name: "event12"),
            ])
        // A truncated buffer yields only complete records, never reads past the end.
        let partial = bytes.withUnsafeBytes { InotifyEvents.parse(UnsafeRawBufferPointer(rebasing: $0[0..<40])) }
        #expect(partial.map(\.name) == ["event7"])
    }

    @Test func sessionRemovalMidDragCancelsThroughTheMapping() throws {
        let rec = try TouchTestData.load("atmel-mxt-800x480-one-finger-drag-up-down.evemu")
        let profile = try #require(rec.device.classify().touchProfile)
        var session = TouchSession(
            profile: profile,
            mapping: TouchMapping(profile: profile, panel: Size(width: 800, height: 480), rotation: .deg180))
        var frames: [TouchFrame] = []
        for e in rec.events.prefix(rec.events.count / 2) {
            if let f = session.handle(e) { frames.append(f) }
        }
        #expect(session.activeContactCount == 1)
        let removed = session.deviceRemoved(at: .seconds(100))
        let cancel = try #require(removed)
        #expect(cancel.contacts.count == 1 && cancel.contacts[0].phase == .cancelled)
        #expect(cancel.contacts[0].position == frames.last!.contacts[0].position)
        #expect(session.deviceRemoved(at: .seconds(101)) == nil)
    }

    @Test func discoveryListsEventNodesInNumericOrder() {
        let dir = DeckFixtures.temporaryDirectory("event-nodes")
        defer { DeckFixtures.removeTree(dir) }
        for name in ["event10", "mouse0", "event2", "event11", "js0", "event0", "event9", "event1"] {
            DeckFixtures.write("", to: dir + "/" + name)
        }
        #expect(
            InputManager.eventNodes(in: dir)
                == ["event0", "event1", "event2", "event9", "event10", "event11"].map { dir + "/" + $0 })
        // A missing directory is an empty list, not a crash.
        #expect(InputManager.eventNodes(in: "/nonexistent-dir").isEmpty)
    }
}
