import CardModel
import Glibc
import KioskDeckFiles
import KioskRender

/// Scenes of the example decks in `examples/`, loaded with the real deck loader and driven
/// through the real decks by touch frames, as the kiosk draws them: what the benchmark times.
enum ExampleScenes {
    /// `examples/` in the working directory (the repository, or `/opt/kioskcards` on a
    /// device), else next to the executable or up to four folders above it (`.build/release`).
    static func directory() -> String? {
        var candidates = ["examples"]
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, buf.count - 1)
        if n > 0 {
            var dir = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            for _ in 0..<5 {
                guard let slash = dir.lastIndex(of: "/") else { break }
                dir = String(dir[..<slash])
                candidates.append(dir + "/examples")
            }
        }
        return candidates.first { access($0 + "/onboarding.json", R_OK) == 0 }
    }

    /// The example deck `name` (e.g. "onboarding.json") from `directory`.
    static func deck(_ name: String, in directory: String) throws(RenderError) -> DeckFile {
        try RenderInputs.deck(path: directory + "/" + name, layout: nil)
    }

    /// `file`'s cards repeated to `count` cards with distinct ids (big decks).
    static func cards(of file: DeckFile, count: Int) -> [Card] {
        (0..<count).map { i in
            var c = file.cards[i % file.cards.count]
            c.id = "\(c.id)-\(i)"
            return c
        }
    }

    /// A deck as the kiosk builds it for `file` with `cards` (a visitor is here: no attract screen).
    static func makeDeck(_ file: DeckFile, cards: [Card]? = nil, size: Size) -> any CardDeck {
        var file = file
        if let cards { file.cards = cards }
        let metrics = ScreenMetrics(size: size, pointsPerMillimetre: RenderScale.baselinePixelsPerInch / 25.4)
        return KioskApp.makeDeck(file, metrics: metrics, buttons: false, at: start)
    }

    static let start = Instant.seconds(1)

    /// One finger held on `deck` from `origin`, moved by `offsets[i]` in frame i at 60 Hz:
    /// the scene after each frame, as the app draws it at the next flip.
    static func drag(_ deck: inout any CardDeck, from origin: Point, offsets: [Point]) -> [Scene] {
        var t = start
        return offsets.enumerated().map { i, offset in
            t = t.advanced(bySeconds: 1.0 / 60)
            let contact = TouchContact(id: 1, position: origin + offset, phase: i == 0 ? .began : .moved)
            deck.handle(TouchFrame(time: t, contacts: [contact]))
            return deck.scene(at: t)
        }
    }

    /// Where a stack's top card or a list's first row has its centre in `scene`.
    static func origin(of scene: Scene) -> Point { RenderInputs.origin(of: scene, size: scene.size) }
}
