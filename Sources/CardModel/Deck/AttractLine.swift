/// The attract screen's invitation: one line of text along the bottom of a `screen`-sized
/// scene, above everything else; nil when `text` is empty.
func attractLine(_ text: String, screen: Size) -> SceneElement? {
    guard !text.isEmpty else { return nil }
    return SceneElement(
        id: "label:attract", kind: .label(text: text, color: Color(rgb: 0x3A3A3C)),
        frame: Rect(x: 0, y: screen.height - 34, width: screen.width, height: 28), zIndex: 1000)
}
