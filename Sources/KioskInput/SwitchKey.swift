/// The one key of one-switch scanning (kiosk.conf `switch-key`): a switch interface (a big
/// button on a USB adapter) usually sends space or enter; any single key name works.
///
/// Pure: evdev key codes in (`linux/input-event-codes.h`), press and release out. Unlike
/// `KeyAction` the release matters (a long press selects, a short one steps).
package struct SwitchKey: Hashable, Sendable, CustomStringConvertible {
    /// The codes that count as the switch (enter: the main and the keypad Enter).
    package let codes: Set<UInt16>
    package let description: String

    /// One key name (the names `staff-keys` takes: a–z, 0–9, f1–f12, space, enter, tab, esc,
    /// backspace, delete, home, end, ctrl, alt, shift, meta); nil for anything else.
    package static func parse(_ text: String) -> SwitchKey? {
        let name = text.lowercased().trimmingSpaces
        guard !name.contains("+"), let codes = KeyChord.codes(name) else { return nil }
        return SwitchKey(codes: codes, description: name)
    }

    /// What an EV_KEY event with `keyCode`/`value` is to the switch: true pressed, false
    /// released, nil not the switch or autorepeat (2), which neither steps nor selects.
    package func edge(keyCode: UInt16, value: Int32) -> Bool? {
        guard codes.contains(keyCode), value == 0 || value == 1 else { return nil }
        return value == 1
    }

    /// What `switch-key` accepts, for the config's message.
    package static let accepted =
        "one key name (space, enter, tab, a–z, 0–9, f1–f12, …) or off; the key then only drives the scan"
}
