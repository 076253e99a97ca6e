import CardModel
import Testing

/// WCAG 1.4.11 non-text contrast (≥ 3:1) of the controls, in the colours the renderer paints
/// them (`ControlColors`), against what is behind them: the scene background, and every
/// theme's and example deck's card — as a list row and at both ends of the stack's gradient —
/// in the normal and the high-contrast look.
@Suite struct NonTextContrastTests {
    static let backdrop = ContrastTests.backdrop
    typealias C = ControlColors

    /// Every colour a control can have behind it: the background, each card as a row and on
    /// the stack (both gradient ends over the background), normal and high contrast.
    static func behind() throws -> [(what: String, color: Color)] {
        let cards = ContrastTests.themeCards() + (try ContrastTests.exampleCards())
        let looks = [("normal", cards), ("high contrast", HighContrast.apply(to: cards, backdrop: backdrop))]
        var out: [(String, Color)] = [("background", backdrop)]
        for (look, cards) in looks {
            for card in cards {
                let (top, bottom) = card.stackGradient
                out.append(("\(card.id) row (\(look))", card.color))
                out.append(("\(card.id) stack top (\(look))", top.composited(over: backdrop)))
                out.append(("\(card.id) stack bottom (\(look))", bottom.composited(over: backdrop)))
            }
        }
        return out
    }

    static func expect(
        _ what: String, _ ratio: Double, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(ratio >= NonTextContrast.minimumRatio, "\(what): \(ratio):1", sourceLocation: sourceLocation)
    }

    /// The focus ring (list rows, the switch scan on buttons and the card) over anything.
    @Test func theFocusRingReadsOnEveryColour() throws {
        let colours = try Self.behind()
        #expect(colours.count > 100)
        for (what, c) in colours {
            Self.expect("focus ring on \(what)", NonTextContrast.edge([C.focusOuter, C.focusInner], against: c))
        }
        // The old ring (system blue with a white line) did not: a light orange row defeats both.
        let orange = Color(rgb: 0xFF9500)
        #expect(NonTextContrast.edge([C.tint, .white], against: orange) < NonTextContrast.minimumRatio)
    }

    /// ✗, ✓ and undo: the icon is what identifies the button; it sits on the white disc.
    @Test func theStackButtonsIconsReachThreeToOne() {
        for (what, icon) in [("✗", C.destructive), ("✓", C.confirm), ("undo", C.neutral)] {
            Self.expect("\(what) on its disc", icon.contrastRatio(with: C.buttonFill))
        }
        // systemGreen, the ✓ before, failed (2.2:1).
        #expect(Color(rgb: 0x34C759).contrastRatio(with: .white) < NonTextContrast.minimumRatio)
        // "+" on the list's title bar.
        Self.expect("+ on the title bar", C.tint.contrastRatio(with: Self.backdrop))
    }

    /// The "Aa" button (a white disc in a dark ring; dark filled while open), its badge and
    /// the switch panels over anything they may cover (on a list they sit over the last row).
    @Test func theAccessControlAndItsSwitchesReachThreeToOne() throws {
        for (what, c) in try Self.behind() {
            Self.expect("Aa edge on \(what)", NonTextContrast.edge([C.ink, .white], against: c))
            Self.expect("switch panel edge on \(what)", NonTextContrast.edge([C.ink, .white], against: c))
        }
        Self.expect("Aa ring on its disc", C.ink.contrastRatio(with: .white))
        Self.expect("mode-on badge on the disc", C.confirm.contrastRatio(with: .white))
        Self.expect("badge check on the badge", Color.white.contrastRatio(with: C.confirm))
        // The switch: on = a white knob right on a green track; off = a dark knob left on white.
        Self.expect("track on, against the panel", C.confirm.contrastRatio(with: .white))
        Self.expect("knob on, on its track", Color.white.contrastRatio(with: C.confirm))
        Self.expect("track off, its dark edge on the panel", C.ink.contrastRatio(with: .white))
        Self.expect("knob off, on its track", C.ink.contrastRatio(with: .white))
    }

    /// The language keys (corner and attract screen) on the background and the title bar: an
    /// unselected key is a tint outline around white, the selected one is filled in the tint.
    @Test func theLanguageKeysReachThreeToOne() {
        Self.expect("key outline on the background", C.tint.contrastRatio(with: Self.backdrop))
        Self.expect("selected key on the background", C.tint.contrastRatio(with: Self.backdrop))
        Self.expect("outline against the key's white", C.tint.contrastRatio(with: .white))
    }
}
