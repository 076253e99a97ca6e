import CEvdev
import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput

@Suite struct InputClassifyTests {
    @Test(arguments: [
        ("atmel-mxt-800x480-one-finger-fast-taps.evemu", TouchProtocol.slotted(slots: 10)),
        ("edt-ft5x06-ep0430m09-two-finger-tap.evemu", .slotted(slots: 5)),
        ("3m-microtouch-22in-up-to-5-fingers.trimmed.evemu", .slotted(slots: 60)),
        ("egalax-wetab-single-finger-taps.evemu", .slotted(slots: 2)),
        ("irtouch-infrared-usb.desc.evemu", .slotted(slots: 2)),
        ("ntrig-protocol-a-two-finger-touch-release.evemu", .anonymous),
        ("ntrig-dell-xt2-protocol-a-multi-contact.evemu", .anonymous),
        ("egalax-0eef-0001-singletouch-z-rx-axes.evemu", .single(.touchButton)),
        ("elo-2700-intellitouch-singletouch-btn-left.desc.evemu", .single(.leftButton)),
    ])
    func recordedDevicesAreTouchscreens(file: String, expected: TouchProtocol) throws {
        let kind = try TouchTestData.load(file).device.classify()
        guard case .touchscreen(let profile) = kind else {
            Issue.record("\(file): \(kind.label)")
            return
        }
        #expect(profile.touchProtocol == expected)
    }

    @Test func missingDirectPropertyIsNotedNotRejected() throws {
        let kind = try TouchTestData.load("3m-microtouch-22in-up-to-5-fingers.trimmed.evemu").device.classify()
        let profile = try #require(kind.touchProfile)
        #expect(profile.notes.contains { $0.contains("INPUT_PROP_DIRECT") })
    }

    @Test func egalax0eef0001ReadsPositionFromZAndRX() throws {
        let profile = try #require(
            try TouchTestData.load("egalax-0eef-0001-singletouch-z-rx-axes.evemu").device.classify().touchProfile)
        #expect(profile.xCode == EvdevCode.absZ)
        #expect(profile.yCode == EvdevCode.absRX)
        #expect(profile.x.minimum == 30 && profile.x.maximum == 4040)
    }

    @Test func physicalSizeFromResolution() throws {
        let profile = try #require(
            try TouchTestData.load("elan-touchscreen-04f3-010c.desc.evemu").device.classify().touchProfile)
        let size = try #require(profile.physicalSizeMillimetres)
        #expect(abs(size.width - 331.2) < 0.01)
        #expect(abs(size.height - 187.2) < 0.01)
        let atmel = try #require(
            try TouchTestData.load("atmel-mxt-800x480-one-finger-fast-taps.evemu").device.classify().touchProfile)
        #expect(atmel.physicalSizeMillimetres == nil)
    }

    static func device(keys: [Int32] = [], abs: [Int32: AbsInfo] = [:], rel: [Int32] = [], props: [Int32] = [])
        -> DeviceDescription
    {
        var d = DeviceDescription(name: "synthetic")
        for k in keys { d.enable(type: EvdevCode.evKey, code: UInt16(k)) }
        for (code, info) in abs { d.enable(abs: UInt16(code), info) }
        for r in rel { d.enable(type: EvdevCode.evRel, code: UInt16(r)) }
        d.properties = Set(props.map { UInt16($0) })
        return d
    }

    static let axis = AbsInfo(minimum: 0, maximum: 32767)

    @Test func qemuUSBTabletIsAnAbsolutePointer() {
        // QEMU's usb-tablet: ABS_X/Y 0..32767, BTN_LEFT/RIGHT/MIDDLE, REL_WHEEL.
        let d = Self.device(
            keys: [BTN_LEFT, BTN_RIGHT, BTN_MIDDLE], abs: [ABS_X: Self.axis, ABS_Y: Self.axis], rel: [REL_WHEEL])
        guard case .absolutePointer(let p) = d.classify() else {
            Issue.record("\(d.classify().label)")
            return
        }
        #expect(p.touchProtocol == .single(.leftButton))
    }

    @Test func pressureOnlyResistivePanel() {
        // ADS7846 as reported in flutter-pi#212: ABS_X/Y 0..4095, ABS_PRESSURE 0..255, no button.
        let d = Self.device(
            abs: [
                ABS_X: AbsInfo(minimum: 0, maximum: 4095), ABS_Y: AbsInfo(minimum: 0, maximum: 4095),
                ABS_PRESSURE: AbsInfo(minimum: 0, maximum: 255),
            ])
        #expect(d.classify().touchProfile?.touchProtocol == .single(.pressure(press: 26, release: 13)))
    }

    @Test func keyboardsTouchpadsMiceAndButtonsAreToldApart() {
        let keyboard = Self.device(keys: [KEY_A, KEY_ENTER, KEY_LEFT, KEY_RIGHT, KEY_ESC, KEY_BACKSPACE])
        #expect(keyboard.classify() == .keyboard)
        let touchpad = Self.device(
            keys: [BTN_LEFT, BTN_TOOL_FINGER, BTN_TOUCH],
            abs: [
                ABS_X: Self.axis, ABS_Y: Self.axis, ABS_MT_SLOT: AbsInfo(minimum: 0, maximum: 4),
                ABS_MT_POSITION_X: Self.axis, ABS_MT_POSITION_Y: Self.axis,
            ],
            props: [INPUT_PROP_POINTER, INPUT_PROP_BUTTONPAD])
        #expect(touchpad.classify().touchProfile == nil)
        let mouse = Self.device(keys: [BTN_LEFT, BTN_RIGHT], rel: [REL_X, REL_Y, REL_WHEEL])
        #expect(mouse.classify().touchProfile == nil)
        #expect(mouse.classify() != .keyboard)
        let power = Self.device(keys: [KEY_POWER])
        #expect(power.classify().touchProfile == nil && power.classify() != .keyboard)
        let joystick = Self.device(keys: [BTN_TRIGGER], abs: [ABS_X: Self.axis, ABS_Y: Self.axis])
        #expect(joystick.classify().touchProfile == nil)
    }
}
