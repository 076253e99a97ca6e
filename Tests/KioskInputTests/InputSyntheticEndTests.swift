import CEvdev
import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput

/// Ends nobody's finger made are cancellations: the kernel's own release when a device goes
/// away, and the ends a live SYN_DROPPED resync discovers. Found in the end-to-end VM
/// (`deploy/vm/scenarios/94-hotplug.sh`): unplugging a uinput panel mid-drag made the reader see
/// BTN_TOUCH 0 + SYN_REPORT *value 1* (`input_disconnect_device` releasing held keys) before
/// ENODEV, so the drag ended normally and dismissed the card instead of springing back.
@Suite struct InputSyntheticEndTests {
    static let axis = AbsInfo(minimum: 0, maximum: 1000)

    static func profile(_ proto: TouchProtocol) -> TouchProfile {
        switch proto {
        case .single:
            TouchProfile(
                touchProtocol: proto, xCode: EvdevCode.absX, yCode: EvdevCode.absY, x: axis, y: axis,
                hasTouchButton: proto == .single(.touchButton))
        default:
            TouchProfile(
                touchProtocol: proto, xCode: EvdevCode.absMTPositionX, yCode: EvdevCode.absMTPositionY, x: axis,
                y: axis, hasTouchButton: true)
        }
    }

    /// A one-finger drag from x 100 to 400 in the protocol's own events, not lifted.
    static func dragNotLifted(_ proto: TouchProtocol) -> EventScript {
        var s = EventScript()
        for x: Int32 in [100, 250, 400] {
            switch proto {
            case .slotted:
                if x == 100 { s.abs(ABS_MT_TRACKING_ID, 7) }
                s.abs(ABS_MT_POSITION_X, x)
                s.abs(ABS_MT_POSITION_Y, 300)
                if x == 100 { s.key(BTN_TOUCH, 1) }
            case .anonymous:
                s.abs(ABS_MT_POSITION_X, x)
                s.abs(ABS_MT_POSITION_Y, 300)
                s.mtReport()
                if x == 100 { s.key(BTN_TOUCH, 1) }
            case .single(let signal):
                s.abs(ABS_X, x)
                s.abs(ABS_Y, 300)
                if x == 100 { s.key(signal == .leftButton ? BTN_LEFT : BTN_TOUCH, 1) }
            }
            s.report()
        }
        return s
    }

    static let protocols: [TouchProtocol] = [
        .slotted(slots: 5), .anonymous, .single(.touchButton), .single(.leftButton),
    ]

    /// What `input_disconnect_device` sends for a device with a button held: every held key
    /// released, then SYN_REPORT with value 1.
    @Test(arguments: protocols)
    func kernelReleaseOnUnplugCancels(proto: TouchProtocol) throws {
        var s = Self.dragNotLifted(proto)
        s.key(proto == .single(.leftButton) ? BTN_LEFT : BTN_TOUCH, 0)
        s.events.append(InputEvent(time: s.time, EV_SYN, SYN_REPORT, 1))
        var d = TouchDecoder(profile: Self.profile(proto))
        let frames = s.decode(&d)
        let last = try #require(frames.last)
        #expect(last.contacts == [DeviceContact(id: 1, position: DevicePoint(x: 400, y: 300), phase: .cancelled)])
        #expect(d.activeContactCount == 0)
    }

    /// The same release from the finger (SYN_REPORT value 0) is an ordinary end.
    @Test(arguments: protocols)
    func fingerReleaseEnds(proto: TouchProtocol) throws {
        var s = Self.dragNotLifted(proto)
        if case .slotted = proto { s.abs(ABS_MT_TRACKING_ID, -1) }
        s.key(proto == .single(.leftButton) ? BTN_LEFT : BTN_TOUCH, 0)
        s.report()
        var d = TouchDecoder(profile: Self.profile(proto))
        let last = try #require(s.decode(&d).last)
        #expect(last.contacts.map(\.phase) == [.ended])
    }

    /// Through the session and mapping, as the app sees it: the card's drag is cancelled.
    @Test func sessionCancelsTheDragOnTheKernelRelease() throws {
        var s = Self.dragNotLifted(.slotted(slots: 5))
        s.key(BTN_TOUCH, 0)
        s.events.append(InputEvent(time: s.time, EV_SYN, SYN_REPORT, 1))
        let profile = Self.profile(.slotted(slots: 5))
        var session = TouchSession(
            profile: profile, mapping: TouchMapping(profile: profile, panel: Size(width: 1001, height: 1001)))
        let frames = s.events.compactMap { session.handle($0) }
        #expect(frames.last?.contacts.map(\.phase) == [.cancelled])
        #expect(frames.last?.contacts.first?.position == Point(x: 400.5, y: 300.5))
    }

    // MARK: Live resync (the events libevdev's LIBEVDEV_READ_FLAG_SYNC hands back)

    /// A (slot 0) and B (slot 1) are down when events are dropped; meanwhile A lifted, B moved
    /// and C landed in slot 2.
    static func twoDown() -> EventScript {
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 0)
        s.abs(ABS_MT_TRACKING_ID, 10)
        s.abs(ABS_MT_POSITION_X, 100)
        s.abs(ABS_MT_POSITION_Y, 100)
        s.abs(ABS_MT_SLOT, 1)
        s.abs(ABS_MT_TRACKING_ID, 11)
        s.abs(ABS_MT_POSITION_X, 700)
        s.abs(ABS_MT_POSITION_Y, 400)
        s.key(BTN_TOUCH, 1)
        s.report()
        return s
    }

    static func delta(_ s: inout EventScript, slotValues: Bool) {
        if slotValues {
            s.abs(ABS_MT_SLOT, 0)
            s.abs(ABS_MT_POSITION_X, 500)
        }
        s.abs(ABS_MT_SLOT, 1)
        s.abs(ABS_MT_POSITION_X, 300)
        s.abs(ABS_MT_POSITION_Y, 150)
        s.abs(ABS_MT_SLOT, 2)
        s.abs(ABS_MT_TRACKING_ID, 12)
        s.abs(ABS_MT_POSITION_X, 400)
        s.abs(ABS_MT_POSITION_Y, 240)
    }

    /// libevdev ≥ 1.10: first a frame ending the slots whose tracking id changed, then a frame
    /// with every other difference.
    @Test func twoPassResyncCancelsTheVanishedAndKeepsTheRest() {
        var d = TouchDecoder(profile: Self.profile(.slotted(slots: 5)))
        let before = Self.twoDown()
        _ = before.decode(&d)
        d.beginLiveResync()
        var s = EventScript()
        s.time = before.time
        s.abs(ABS_MT_SLOT, 0)
        s.abs(ABS_MT_TRACKING_ID, -1)
        s.report()
        Self.delta(&s, slotValues: true)
        s.report()
        // After the resync, lifts are ordinary again.
        s.abs(ABS_MT_SLOT, 1)
        s.abs(ABS_MT_TRACKING_ID, -1)
        s.report()
        let frames = s.decode(&d)
        #expect(frames.count == 3)
        #expect(frames[0].contacts.map(\.phase) == [.cancelled, .moved])
        #expect(frames[0].contacts[0].id == 1)
        #expect(frames[1].contacts.map(\.id) == [2, 3])
        #expect(frames[1].contacts.map(\.phase) == [.moved, .began])
        #expect(frames[1].contacts.map(\.position) == [DevicePoint(x: 300, y: 150), DevicePoint(x: 400, y: 240)])
        #expect(frames[2].contacts.map(\.phase) == [.ended, .moved])
        #expect(d.activeContactCount == 1)
    }

    /// Older libevdev: the whole delta in one frame.
    @Test func onePassResync() {
        var d = TouchDecoder(profile: Self.profile(.slotted(slots: 5)))
        let before = Self.twoDown()
        _ = before.decode(&d)
        d.beginLiveResync()
        var s = EventScript()
        s.abs(ABS_MT_SLOT, 0)
        s.abs(ABS_MT_TRACKING_ID, -1)
        Self.delta(&s, slotValues: false)
        s.report()
        let frames = s.decode(&d)
        #expect(frames.count == 1)
        #expect(frames[0].contacts.map(\.phase) == [.cancelled, .moved, .began])
        #expect(frames[0].contacts.map(\.id) == [1, 2, 3])
    }

    /// A resync that finds every finger where it was ends nothing, and the flag does not linger.
    @Test func resyncWithoutChangesLeavesLaterEndsAlone() {
        var d = TouchDecoder(profile: Self.profile(.slotted(slots: 5)))
        let before = Self.twoDown()
        _ = before.decode(&d)
        d.beginLiveResync()
        var s = EventScript()
        s.report()  // libevdev's sync of an unchanged device: just the SYN_REPORT
        s.abs(ABS_MT_SLOT, 0)
        s.abs(ABS_MT_TRACKING_ID, -1)
        s.report()
        let frames = s.decode(&d)
        #expect(frames.map { $0.contacts.map(\.phase) } == [[.ended, .moved]])
    }
}
