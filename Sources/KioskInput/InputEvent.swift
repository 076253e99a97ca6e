import CEvdev
import CardModel
import KioskSystem

/// One evdev event (`struct input_event`) as a value: where it came from does not matter, a
/// live device and an evemu recording produce the same thing.
package struct InputEvent: Hashable, Sendable, CustomStringConvertible {
    /// CLOCK_MONOTONIC for live devices (after `libevdev_set_clock_id`); the recording's own
    /// clock for evemu files.
    package var time: Instant
    package var type: UInt16
    package var code: UInt16
    package var value: Int32

    init(time: Instant, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }

    /// Convenience for tests and fixtures: the codes as the C headers spell them (`EV_ABS`, …).
    init(time: Instant, _ type: Int32, _ code: Int32, _ value: Int32) {
        self.init(time: time, type: UInt16(type), code: UInt16(code), value: value)
    }

    var isSynReport: Bool { type == EvdevCode.evSyn && code == EvdevCode.synReport }

    package var description: String {
        let t = time.nanoseconds
        let us = String(t % 1_000_000_000 / 1000)
        return "\(t / 1_000_000_000).\(String(repeating: "0", count: 6 - us.count))\(us) \(type) \(code) \(value)"
    }
}

/// The evdev codes the input layer uses, as `UInt16` like `input_event` carries them
/// (the C headers import as `Int32`).
package enum EvdevCode {
    package static let evSyn = UInt16(EV_SYN)
    package static let evKey = UInt16(EV_KEY)
    static let evRel = UInt16(EV_REL)
    package static let evAbs = UInt16(EV_ABS)
    static let evMsc = UInt16(EV_MSC)

    package static let synReport = UInt16(SYN_REPORT)
    static let synMTReport = UInt16(SYN_MT_REPORT)
    package static let synDropped = UInt16(SYN_DROPPED)

    package static let absX = UInt16(ABS_X)
    package static let absY = UInt16(ABS_Y)
    static let absZ = UInt16(ABS_Z)
    static let absRX = UInt16(ABS_RX)
    static let absPressure = UInt16(ABS_PRESSURE)
    package static let absMTSlot = UInt16(ABS_MT_SLOT)
    package static let absMTPositionX = UInt16(ABS_MT_POSITION_X)
    package static let absMTPositionY = UInt16(ABS_MT_POSITION_Y)
    package static let absMTTrackingID = UInt16(ABS_MT_TRACKING_ID)
    static let absMTPressure = UInt16(ABS_MT_PRESSURE)
    static let absMTToolType = UInt16(ABS_MT_TOOL_TYPE)
    static let absMTTouchMajor = UInt16(ABS_MT_TOUCH_MAJOR)
    static let absMTTouchMinor = UInt16(ABS_MT_TOUCH_MINOR)
    static let mtToolPalm = Int32(MT_TOOL_PALM)

    package static let btnTouch = UInt16(BTN_TOUCH)
    static let btnLeft = UInt16(BTN_LEFT)
    static let btnRight = UInt16(BTN_RIGHT)
    static let btnMiddle = UInt16(BTN_MIDDLE)
    static let btnToolFinger = UInt16(BTN_TOOL_FINGER)
    static let btnToolPen = UInt16(BTN_TOOL_PEN)
    static let btnStylus = UInt16(BTN_STYLUS)

    static let keyLeft = UInt16(KEY_LEFT)
    static let keyRight = UInt16(KEY_RIGHT)
    static let keyEnter = UInt16(KEY_ENTER)
    static let keyKPEnter = UInt16(KEY_KPENTER)
    static let keyBackspace = UInt16(KEY_BACKSPACE)
    static let keyEsc = UInt16(KEY_ESC)
    static let keyUp = UInt16(KEY_UP)
    static let keyDown = UInt16(KEY_DOWN)
    static let keyDelete = UInt16(KEY_DELETE)
    static let keyKPPlus = UInt16(KEY_KPPLUS)
    static let keyEqual = UInt16(KEY_EQUAL)
    static let keyF1 = UInt16(KEY_F1)
    static let keyHelp = UInt16(KEY_HELP)
    static let keyF2 = UInt16(KEY_F2)
    static let keyCompose = UInt16(KEY_COMPOSE)
    static let keyMenu = UInt16(KEY_MENU)
    static let keyA = UInt16(KEY_A)
    static let keySpace = UInt16(KEY_SPACE)

    static let relWheel = UInt16(REL_WHEEL)

    static let propPointer = UInt16(INPUT_PROP_POINTER)
    package static let propDirect = UInt16(INPUT_PROP_DIRECT)
    static let propButtonpad = UInt16(INPUT_PROP_BUTTONPAD)
    static let propSemiMT = UInt16(INPUT_PROP_SEMI_MT)
}
