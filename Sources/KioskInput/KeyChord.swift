/// A key combination such as `ctrl+alt+s` (kiosk.conf `staff-keys`): every key held at once,
/// the last one pressed completes it. Modifier names match the left or the right key.
///
/// Pure: evdev key codes in (`linux/input-event-codes.h`, a stable ABI), whether it was made out.
package struct KeyChord: Hashable, Sendable, CustomStringConvertible {
    /// Each part is a set of codes any of which counts (ctrl: left or right control).
    package let parts: [Set<UInt16>]
    package let description: String

    /// Parses `ctrl+alt+s`; nil (with `problem`) for an unknown name, a repeated key, fewer
    /// than two keys or no key that is not a modifier.
    package static func parse(_ text: String) -> Result<KeyChord, ChordProblem> {
        let names = text.lowercased().split(separator: "+", omittingEmptySubsequences: false).map {
            String($0).trimmingSpaces
        }
        var parts: [Set<UInt16>] = []
        for name in names {
            guard let codes = Self.codes(name) else { return .failure(.unknownKey(name)) }
            guard !parts.contains(codes) else { return .failure(.repeated(name)) }
            parts.append(codes)
        }
        guard parts.count >= 2 else { return .failure(.tooShort) }
        guard parts.contains(where: { !Self.modifiers.values.contains($0) }) else { return .failure(.onlyModifiers) }
        return .success(KeyChord(parts: parts, description: names.joined(separator: "+")))
    }

    package enum ChordProblem: Error, Hashable, Sendable, CustomStringConvertible {
        case unknownKey(String)
        case repeated(String)
        case tooShort
        case onlyModifiers

        package var description: String {
            switch self {
            case .unknownKey(let k):
                "key names joined by '+' (ctrl, alt, shift, meta, a–z, 0–9, f1–f12, esc, tab, space, enter);"
                    + " '\(k)' is not one"
            case .repeated(let k): "each key once ('\(k)' is named twice)"
            case .tooShort: "at least two keys joined by '+', e.g. ctrl+alt+s"
            case .onlyModifiers: "a key besides ctrl/alt/shift/meta, e.g. ctrl+alt+s"
            }
        }
    }

    /// Whether the keys `held` (after a press) make the chord.
    package func isMade(by held: Set<UInt16>) -> Bool {
        parts.allSatisfy { !$0.isDisjoint(with: held) }
    }

    static let modifiers: [String: Set<UInt16>] = [
        "ctrl": [29, 97], "control": [29, 97], "alt": [56, 100], "shift": [42, 54], "meta": [125, 126],
        "super": [125, 126],
    ]

    static func codes(_ name: String) -> Set<UInt16>? {
        if let m = modifiers[name] { return m }
        let letters = Array("qwertyuiop"), row2 = Array("asdfghjkl"), row3 = Array("zxcvbnm")
        if name.count == 1, let ch = name.first {
            if let i = letters.firstIndex(of: ch) { return [UInt16(16 + i)] }
            if let i = row2.firstIndex(of: ch) { return [UInt16(30 + i)] }
            if let i = row3.firstIndex(of: ch) { return [UInt16(44 + i)] }
            if let d = ch.wholeNumberValue { return [d == 0 ? 11 : UInt16(1 + d)] }
        }
        if name.hasPrefix("f"), let n = Int(name.dropFirst()), (1...12).contains(n) {
            return [n <= 10 ? UInt16(58 + n) : UInt16(76 + n)]
        }
        switch name {
        case "esc", "escape": return [1]
        case "tab": return [15]
        case "space": return [57]
        case "enter", "return": return [28, 96]
        case "backspace": return [14]
        case "delete", "del": return [111]
        case "home": return [102]
        case "end": return [107]
        default: return nil
        }
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
