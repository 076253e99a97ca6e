import KioskSystem

/// How a touch device says a finger is down.
package enum ContactSignal: Hashable, Sendable {
    /// BTN_TOUCH (the usual single-touch panel).
    case touchButton
    /// BTN_LEFT, as some USB panels and absolute pointers (QEMU's usb-tablet) send.
    case leftButton
    /// ABS_PRESSURE above a threshold, for resistive panels without a button. Down when the
    /// pressure rises above `press`, up again when it falls to `release` or below (hysteresis,
    /// so a wavering finger does not tap).
    case pressure(press: Int32, release: Int32)
}

/// How positions and contacts are encoded.
package enum TouchProtocol: Hashable, Sendable {
    /// Multitouch protocol B: `slots` slots, tracking ids, ABS_MT_SLOT switches slot.
    case slotted(slots: Int)
    /// Multitouch protocol A: anonymous contacts, each closed by SYN_MT_REPORT.
    case anonymous
    /// One contact on two absolute axes.
    case single(ContactSignal)
}

/// Everything the decoder and the mapping need to know about one touch device.
package struct TouchProfile: Hashable, Sendable {
    package var touchProtocol: TouchProtocol
    /// The axis codes that carry the position (ABS_MT_POSITION_X/Y for multitouch, ABS_X/Y
    /// or a quirk's replacement for single touch).
    var xCode: UInt16
    var yCode: UInt16
    package var x: AbsInfo
    package var y: AbsInfo
    /// Whether BTN_TOUCH exists (its release ends every contact: stuck-contact prevention).
    var hasTouchButton: Bool
    /// Human-readable notes on quirks applied, for `probe` and logs.
    package var notes: [String] = []
    /// Which contacts are palms, not fingers (multitouch only).
    package var palm = PalmRule()

    /// The panel's size in millimetres when both axes report a resolution.
    package var physicalSizeMillimetres: (width: Double, height: Double)? {
        guard let w = x.lengthMillimetres, let h = y.lengthMillimetres else { return nil }
        return (w, h)
    }
}

/// What the app does with an input device.
package enum DeviceKind: Hashable, Sendable {
    /// A touchscreen in any protocol: drives the card deck.
    case touchscreen(TouchProfile)
    /// An absolute pointer (ABS_X/Y + BTN_LEFT with other mouse buttons, e.g. QEMU's
    /// usb-tablet): acts as one finger while the left button is held.
    case absolutePointer(TouchProfile)
    /// Has the command keys (arrows, Enter, Backspace, Escape): grabbed, keys become commands.
    case keyboard
    /// Nothing for the kiosk (mouse, touchpad, power button, joystick…), with the reason.
    case ignored(String)

    package var touchProfile: TouchProfile? {
        switch self {
        case .touchscreen(let p), .absolutePointer(let p): p
        case .keyboard, .ignored: nil
        }
    }

    /// One word for logs and `probe`.
    package var label: String {
        switch self {
        case .touchscreen(let p):
            switch p.touchProtocol {
            case .slotted: "touchscreen (multitouch, protocol B)"
            case .anonymous: "touchscreen (multitouch, protocol A)"
            case .single(.touchButton): "touchscreen (single touch, BTN_TOUCH)"
            case .single(.leftButton): "touchscreen (single touch, BTN_LEFT)"
            case .single(.pressure): "touchscreen (single touch, pressure)"
            }
        case .absolutePointer: "absolute pointer (one finger while BTN_LEFT is held)"
        case .keyboard: "keyboard"
        case .ignored(let why): "ignored (\(why))"
        }
    }
}

/// A device-specific exception to the capability rules, keyed on vendor:product.
struct InputQuirk: Sendable {
    var vendor: UInt16
    var product: UInt16
    var note: String
    /// Replacement position axes for single-touch devices.
    var singleTouchAxes: (x: UInt16, y: UInt16)?

    /// Known quirks.
    ///
    /// eGalax 0eef:0001 (an older single-touch USB controller, version 0x0210): declares
    /// ABS_X/ABS_Y but never sends them; the position arrives on ABS_Z and ABS_RX (recording
    /// `egalax-0eef-0001-singletouch-z-rx-axes.evemu`). We key on the ids rather than guess
    /// from motion so the mapping is right from the first touch; the quirk only applies when
    /// the device really declares ABS_Z and ABS_RX. ABS_Z is taken as x and ABS_RX as y (the
    /// order the controller reports them; the recording cannot tell which is which on the glass
    /// — if a unit turns out swapped, `--touch-transform swap-xy` fixes it without a rebuild).
    static let all: [InputQuirk] = [
        InputQuirk(
            vendor: 0x0eef, product: 0x0001,
            note: "eGalax 0eef:0001: position read from ABS_Z/ABS_RX (ABS_X/ABS_Y are declared but never sent)",
            singleTouchAxes: (EvdevCode.absZ, EvdevCode.absRX))
    ]

    static func matching(_ d: DeviceDescription) -> InputQuirk? {
        all.first { $0.vendor == d.id.vendor && $0.product == d.id.product }
    }
}

extension DeviceDescription {
    /// Decides what the device is from its capabilities (libinput's evdev device-type rules,
    /// narrowed to what a kiosk needs).
    ///
    /// - ABS_MT_POSITION_X/Y: a touchscreen — protocol B with ABS_MT_SLOT, else protocol A —
    ///   unless it looks like a touchpad (INPUT_PROP_POINTER/BUTTONPAD/SEMI_MT, or
    ///   BTN_TOOL_FINGER without INPUT_PROP_DIRECT). INPUT_PROP_DIRECT is *not* required:
    ///   several real touchscreens (3M, eGalax, N-Trig, Elo) do not set it.
    /// - ABS_X/Y with BTN_TOUCH, BTN_LEFT or ABS_PRESSURE: single touch. BTN_LEFT together with
    ///   BTN_RIGHT/BTN_MIDDLE or a wheel is an absolute pointer (a USB tablet).
    /// - Arrows/Enter/Escape keys without absolute axes: keyboard.
    /// - Everything else is ignored, with the reason.
    package func classify() -> DeviceKind {
        let quirk = InputQuirk.matching(self)
        if has(abs: EvdevCode.absMTPositionX), has(abs: EvdevCode.absMTPositionY) {
            if has(property: EvdevCode.propPointer) || has(property: EvdevCode.propButtonpad)
                || has(property: EvdevCode.propSemiMT)
                || (has(key: EvdevCode.btnToolFinger) && !has(property: EvdevCode.propDirect))
            {
                return .ignored("touchpad: moves a pointer, not a touchscreen")
            }
            var notes: [String] = []
            if !has(property: EvdevCode.propDirect) {
                notes.append("INPUT_PROP_DIRECT not set; treated as a touchscreen (several real panels omit it)")
            }
            let proto: TouchProtocol
            if has(abs: EvdevCode.absMTSlot), let slot = absInfo[EvdevCode.absMTSlot] {
                let count = Int(slot.maximum) - Int(max(0, slot.minimum)) + 1
                proto = .slotted(slots: min(max(count, 1), 64))
            } else {
                proto = .anonymous
            }
            return .touchscreen(
                TouchProfile(
                    touchProtocol: proto, xCode: EvdevCode.absMTPositionX, yCode: EvdevCode.absMTPositionY,
                    x: absInfo[EvdevCode.absMTPositionX]!, y: absInfo[EvdevCode.absMTPositionY]!,
                    hasTouchButton: has(key: EvdevCode.btnTouch), notes: notes,
                    palm: PalmRule(
                        major: absInfo[EvdevCode.absMTTouchMajor], minor: absInfo[EvdevCode.absMTTouchMinor])))
        }

        var xCode = EvdevCode.absX
        var yCode = EvdevCode.absY
        var notes: [String] = []
        if let quirk, let axes = quirk.singleTouchAxes, has(abs: axes.x), has(abs: axes.y) {
            xCode = axes.x
            yCode = axes.y
            notes.append(quirk.note)
        }
        if has(abs: xCode), has(abs: yCode) {
            if has(property: EvdevCode.propPointer) || has(key: EvdevCode.btnToolFinger) {
                return .ignored("touchpad: moves a pointer, not a touchscreen")
            }
            if !has(property: EvdevCode.propDirect) && !has(key: EvdevCode.btnLeft) {
                notes.append("INPUT_PROP_DIRECT not set; treated as a touchscreen (several real panels omit it)")
            }
            let signal: ContactSignal
            if has(key: EvdevCode.btnTouch) {
                signal = .touchButton
            } else if has(key: EvdevCode.btnLeft) {
                signal = .leftButton
            } else if has(abs: EvdevCode.absPressure), let p = absInfo[EvdevCode.absPressure], p.maximum > p.minimum {
                // 10 % of the range presses, 5 % releases: a light resistive touch registers,
                // the noise floor of an untouched panel does not.
                let range = Double(p.maximum - p.minimum)
                signal = .pressure(
                    press: p.minimum + Int32(max(1, (range * 0.10).rounded())),
                    release: p.minimum + Int32((range * 0.05).rounded()))
                notes.append("no touch button: contact when ABS_PRESSURE rises above 10 % of its range")
            } else {
                return .ignored("absolute axes but no BTN_TOUCH, BTN_LEFT or ABS_PRESSURE to tell touch from hover")
            }
            let profile = TouchProfile(
                touchProtocol: .single(signal), xCode: xCode, yCode: yCode, x: absInfo[xCode]!,
                y: absInfo[yCode]!, hasTouchButton: has(key: EvdevCode.btnTouch), notes: notes)
            let mouseLike =
                has(key: EvdevCode.btnRight) || has(key: EvdevCode.btnMiddle) || has(rel: EvdevCode.relWheel)
            if signal == .leftButton && mouseLike {
                return .absolutePointer(profile)
            }
            return .touchscreen(profile)
        }

        if has(key: EvdevCode.keyEnter) || (has(key: EvdevCode.keyLeft) && has(key: EvdevCode.keyRight)) {
            return .keyboard
        }
        if hasRelativeAxes { return .ignored("relative pointer (mouse)") }
        if eventTypes.contains(EvdevCode.evKey) || codes[EvdevCode.evKey] != nil {
            return .ignored("buttons, but not the command keys (Enter, arrows)")
        }
        return .ignored("no touch axes and no keys")
    }
}
