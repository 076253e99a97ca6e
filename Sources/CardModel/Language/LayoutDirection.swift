/// Which way a language is written, and so which way the whole screen is laid out.
public enum LayoutDirection: String, Hashable, Sendable {
    case leftToRight, rightToLeft

    /// Right to left for Arabic, Hebrew, Persian, Urdu, Pashto, Sindhi, Uyghur, Yiddish, Dhivehi
    /// and Kurdish (Sorani); everything else left to right.
    public init(language: String) {
        let rtl: Set<String> = ["ar", "he", "iw", "fa", "ur", "ps", "sd", "ug", "yi", "dv", "ckb"]
        self = rtl.contains(LocalizedText.primary(language.lowercased())) ? .rightToLeft : .leftToRight
    }
}

extension Scene {
    /// The scene laid out right to left: every element's frame, translation and rotation
    /// mirrored about the screen's vertical centre line, and each element drawn mirrored inside
    /// (`ElementKind.mirrored`: its chevrons, icons, stamp corner and text alignment swap
    /// sides; the renderer keeps text and photos readable). Touches reach the deck mirrored
    /// the same way (`TouchFrame.mirrored`), so what a finger hits is what it sees.
    public func mirrored() -> Scene {
        let w = size.width
        let elements = elements.map { e -> SceneElement in
            var m = e
            m.frame.origin.x = w - e.frame.maxX
            m.transform.translation.x = -e.transform.translation.x
            m.transform.rotation = -e.transform.rotation
            m.kind = e.kind.mirrored
            return m
        }
        return Scene(size: size, background: background, elements: elements, isAnimating: isAnimating)
    }

    /// The scene in `direction`: itself left to right, mirrored right to left.
    public func laidOut(_ direction: LayoutDirection) -> Scene {
        direction == .rightToLeft ? mirrored() : self
    }
}

extension ElementKind {
    /// This kind drawn mirrored (mirroring twice gives the kind back).
    public var mirrored: ElementKind {
        if case .mirrored(let inner) = self { return inner }
        return .mirrored(self)
    }

    /// The kind under any mirroring.
    public var unmirrored: ElementKind {
        if case .mirrored(let inner) = self { return inner }
        return self
    }
}

extension TouchFrame {
    /// The frame as a deck laid out mirrored on a screen `width` points wide sees it.
    public func mirrored(width: Double) -> TouchFrame {
        TouchFrame(
            time: time,
            contacts: contacts.map {
                TouchContact(id: $0.id, position: Point(x: width - $0.position.x, y: $0.position.y), phase: $0.phase)
            })
    }
}
