/// The colours the renderer paints the controls in (buttons, the "Aa" control, its switches,
/// the language keys, the focus ring), kept here so the WCAG 1.4.11 check
/// (`NonTextContrast`) measures exactly what is drawn.
public enum ControlColors {
    /// The SwiftUI design's systemBlue: "+", the language keys.
    public static let tint = Color(rgb: 0x007AFF)
    /// Dark ink: the "Aa" control, its switches, the focus ring's outer band.
    public static let ink = Color(rgb: 0x1C1C1E)
    /// ✗ and the list's delete (systemRed).
    public static let destructive = Color(rgb: 0xFF3B30)
    /// Behind the white words of a red word button (the detail page's Delete, "Remove card"):
    /// 5.4:1 (systemRed under white text has only 3.5:1, below text's 4.5:1).
    public static let destructiveBehindText = Color(rgb: 0xD70015)
    /// Behind the white words of any other word button: 6.5:1 (systemBlue has 4.0:1).
    public static let tintBehindText = Color(rgb: 0x0051D5)
    /// ✓, a switch that is on, the "mode on" badge: a green dark enough for 3:1 on white
    /// (systemGreen #34C759 has only 2.2:1).
    public static let confirm = Color(rgb: 0x1A7F37)
    /// Undo's arrow (systemGray, 3.3:1 on white).
    public static let neutral = Color(rgb: 0x8E8E93)
    /// The round buttons' disc.
    public static let buttonFill = Color.white
    /// The focus ring: a 4 pt dark band outside a 2 pt white line, so one of the two reaches
    /// 3:1 against any colour behind it (white for dark colours, ink for light ones).
    public static let focusOuter = ink
    public static let focusInner = Color.white
}

/// WCAG 1.4.11 non-text contrast: the parts that identify a control or its state reach 3:1
/// against the colours next to them.
public enum NonTextContrast {
    public static let minimumRatio = 3.0

    /// A control whose edge is drawn in several colours (a band and a line, a ring and a fill):
    /// the best of them against `behind` (the one the eye can use there).
    public static func edge(_ colours: [Color], against behind: Color) -> Double {
        colours.map { $0.contrastRatio(with: behind) }.max() ?? 1
    }
}
