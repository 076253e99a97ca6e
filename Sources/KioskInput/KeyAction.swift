import KioskSystem

/// What a key press asks of the deck; the app maps these to CardModel commands
/// (left/right: dismiss the top card that way, enter: open, backspace: undo, escape: back).
package enum KeyAction: String, Hashable, Sendable {
    case left, right, enter, backspace, escape

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
        default: return nil
        }
    }
}
