import CEvdev
import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput

/// When a touchscreen goes away mid-drag the kernel releases the contact itself and closes
/// that frame with SYN_REPORT value 1 (`input_dev_release_keys`). Seen live in the virtual
/// kiosk: without this rule the release reads as a lift and the dragged card is dismissed.
@Suite struct InputReleaseOnDisconnectTests {
    func releaseFrame(_ profile: TouchProfile, slotted: Bool, synValue: Int32) -> [DeviceTouchFrame] {
        var decoder = TouchDecoder(profile: profile)
        var s = EventScript()
        if slotted {
            s.abs(ABS_MT_SLOT, 0)
            s.abs(ABS_MT_TRACKING_ID, 7)
            s.abs(ABS_MT_POSITION_X, 100)
            s.abs(ABS_MT_POSITION_Y, 100)
        } else {
            s.abs(ABS_MT_POSITION_X, 100)
            s.abs(ABS_MT_POSITION_Y, 100)
            s.mtReport()
        }
        s.key(BTN_TOUCH, 1)
        s.report()
        if slotted {
            s.abs(ABS_MT_POSITION_X, 300)
        } else {
            s.abs(ABS_MT_POSITION_X, 300)
            s.abs(ABS_MT_POSITION_Y, 100)
            s.mtReport()
        }
        s.report()
        // The kernel's release: every contact and BTN_TOUCH up, then SYN_REPORT with `synValue`.
        if slotted { s.abs(ABS_MT_TRACKING_ID, -1) }
        s.key(BTN_TOUCH, 0)
        s.events.append(InputEvent(time: s.time, EV_SYN, SYN_REPORT, synValue))
        return s.decode(&decoder)
    }

    @Test(arguments: [true, false])
    func kernelReleaseCancels(slotted: Bool) throws {
        let profile = slotted ? InputDecoderTests.slotted : InputDecoderTests.anonymous
        let frames = releaseFrame(profile, slotted: slotted, synValue: 1)
        let last = try #require(frames.last)
        #expect(last.contacts.map(\.phase) == [.cancelled])
    }

    @Test(arguments: [true, false])
    func visitorsLiftEnds(slotted: Bool) throws {
        let profile = slotted ? InputDecoderTests.slotted : InputDecoderTests.anonymous
        let frames = releaseFrame(profile, slotted: slotted, synValue: 0)
        let last = try #require(frames.last)
        #expect(last.contacts.map(\.phase) == [.ended])
    }
}
