/// What the screen shows, composed once, back to front in the router's order: the deck, the
/// switch scan's ring, the accessibility control, the language keys (the whole laid out in the
/// visitor's direction), the countdown; or the closed-hours screen; then the staff menu.
extension Kiosk {
    /// The scene at `time`; `staffInfo` are the staff menu's lines about the kiosk (the shell's
    /// facts: addresses, storage, uptime), shown while `showsStaffInfo`.
    public mutating func scene(at time: Instant, staffInfo: [String] = []) -> Scene {
        let base: Scene
        if hours?.isClosed == true {
            base = OpeningHours.closedScene(
                text: primary.texts(in: languages.current).closedText, screen: metrics.size)
        } else {
            var scene = deck.scene(at: time)
            if settings.scansSwitch, let ring = scanRing(at: time) { scene = scene.adding([ring]) }
            scene = withLanguageKeys(accessControl.overlay(scene))
            base = InactivityWarning.overlay(scene, session.warning(at: time), text: texts.warningText)
        }
        guard staffMenu.isOpen else { return base }
        return base.adding(staffMenu.elements(info: showsStaffInfo ? staffInfo : [], screen: base.size))
    }

    /// The deck's own scene at `time`, without the layers in front of it; with `languageKeys`
    /// the language keys on top and the whole in the visitor's direction.
    public mutating func deckScene(at time: Instant, languageKeys: Bool = false) -> Scene {
        let scene = deck.scene(at: time)
        return languageKeys ? withLanguageKeys(scene) : scene
    }

    /// `scene` with the language keys on top (larger on the attract screen), laid out in the
    /// visitor's direction: mirrored with the rest right to left, so the keys sit in the trailing corner.
    private func withLanguageKeys(_ scene: Scene) -> Scene {
        scene.adding(languageKeys).laidOut(languages.direction)
    }

    /// The language keys as the screen lays them out, left to right (before a right-to-left
    /// language mirrors them): where a visitor's tap picks a language.
    public var languageKeys: [SceneElement] {
        languages.elements(
            screen: metrics.size, prominent: languageProminent,
            placement: currentLanguagePlacement, minimumSide: languageKeySide, titleBarHeight: currentTitleBarHeight)
    }

    /// The scan's focus ring on the highlighted choice, with the control in front of the deck's.
    private func scanRing(at time: Instant) -> SceneElement? {
        guard let accessible = deck as? any AccessibleDeck else { return nil }
        return accessible.scanHighlight(scanner, control: accessControl, at: time)
    }
}

extension Scene {
    /// This scene with `elements` on top.
    public func adding(_ more: [SceneElement]) -> Scene {
        guard !more.isEmpty else { return self }
        return Scene(size: size, background: background, elements: elements + more, isAnimating: isAnimating)
    }
}
