import KioskSystem

/// What a key press asks of the deck; the app hands these to the deck as `AccessKey`s
/// (`AccessibleDeck.command(for:)` says what each does in the stack and the list).
package enum KeyAction: String, Hashable, Sendable {
    case left, right, up, down, enter, backspace, escape, delete, plus
    /// F1 or the Help key: read the card aloud.
    case help
    /// F2, the PC keyboard's menu key (KEY_COMPOSE) or a keypad's or remote's Menu key
    /// (KEY_MENU): open or close the per-visit accessibility control ("Aa"). F2 sits next to
    /// F1, the help key; a keypad without F-keys usually has a Menu key.
    case accessibility

    /// The action for an EV_KEY event, or nil. Only presses (value 1) count: releases (0)
    /// are ignored and so is autorepeat (2), so holding an arrow dismisses one card, not the deck.
    init?(keyCode: UInt16, value: Int32) {
        guard value == 1 else { return nil }
        switch keyCode {
        case EvdevCode.keyLeft: self = .left
        case EvdevCode.keyRight: self = .right
        case EvdevCode.keyEnter, EvdevCode.keyKPEnter: self = .enter
        case EvdevCode.keyBackspace: self = .backspace
        case EvdevCode.keyEsc: self = .escape
        case EvdevCode.keyUp: self = .up
        case EvdevCode.keyDown: self = .down
        case EvdevCode.keyDelete: self = .delete
        case EvdevCode.keyKPPlus, EvdevCode.keyEqual: self = .plus
        case EvdevCode.keyF1, EvdevCode.keyHelp: self = .help
        case EvdevCode.keyF2, EvdevCode.keyCompose, EvdevCode.keyMenu: self = .accessibility
        default: return nil
        }
    }
}
