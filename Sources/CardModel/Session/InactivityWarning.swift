/// The inactivity warning as a scene element: the whole screen dimmed under a panel with the
/// seconds left and "tap to continue" (the touch that continues is swallowed by the session).
public enum InactivityWarning {
    /// The line under the number, unless the deck's `warningText` says otherwise.
    public static let defaultText = UIStrings.text(.stillThere, in: "de")

    /// The element to draw over a `screen`-sized scene for `warning`, above everything else.
    public static func element(_ warning: VisitorSession.Warning, text: String, screen: Size) -> SceneElement {
        SceneElement(
            id: "warning:countdown", kind: .countdown(secondsLeft: warning.secondsLeft, text: text),
            frame: Rect(origin: .zero, size: screen), zIndex: 2000)
    }

    /// `scene` with the countdown on top (unchanged when `warning` is nil).
    public static func overlay(_ scene: Scene, _ warning: VisitorSession.Warning?, text: String) -> Scene {
        guard let warning else { return scene }
        return Scene(
            size: scene.size, background: scene.background,
            elements: scene.elements + [element(warning, text: text, screen: scene.size)],
            isAnimating: scene.isAnimating)
    }
}
