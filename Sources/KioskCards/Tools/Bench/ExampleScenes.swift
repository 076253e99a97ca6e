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
        return Kiosk.makeDeck(file.kioskDeck(), metrics: metrics, buttons: false)
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

    /// One step of a visit as the app lives it: a frame drawn at a flip, or an idle moment in
    /// which the app prepares what the deck says its next gesture shows.
    enum Step {
        case frame(Scene)
        case idle([SceneElement])
        /// The preparation thread finishes what the frames asked of it. At 60 Hz it draws while
        /// the next frames come; the bench draws them back to back, so it waits here once, where
        /// a drag first shows its stamp (left out while faint, `SceneRenderer.stampLeftOutBelow`:
        /// at the visit's 12 pt a frame the app's thread has 7 frames, 117 ms, for it).
        case catchUp
    }

    /// `scene` is the first of a drag to show a swipe stamp (`previous` showed none).
    static func showsStampFirst(_ scene: Scene, after previous: Scene?) -> Bool {
        func hasStamp(_ s: Scene) -> Bool { s.elements.contains { if case .stamp = $0.kind { true } else { false } } }
        return hasStamp(scene) && !(previous.map(hasStamp) ?? false)
    }

    /// A whole visit of `file`'s stack: every card revealed, dragged 220 points (alternately
    /// right and left) in 18 frames at 60 Hz, released, and animated until it has flown out and
    /// the stack has settled; an idle moment before each drag. Ends on the empty state.
    static func stackVisit(_ file: DeckFile, size: Size) -> (first: Scene, steps: [Step], decisions: [Decision]) {
        var deck = makeDeck(file, size: size)
        var t = start
        let first = deck.scene(at: t)
        var last = first
        var steps: [Step] = [.idle(deck.elementsToPrepare(in: first))]
        for k in 0..<file.cards.count {
            let origin = self.origin(of: last)
            let side: Double = k.isMultiple(of: 2) ? 1 : -1
            for i in 0...19 {
                t = t.advanced(bySeconds: 1.0 / 60)
                let f = Double(min(i, 18)) / 18
                let contact = TouchContact(
                    id: 1, position: origin + Point(x: side * 220 * f, y: 12 * f),
                    phase: i == 0 ? .began : i == 19 ? .ended : .moved)
                deck.handle(TouchFrame(time: t, contacts: [contact]))
                let previous = last
                last = deck.scene(at: t)
                steps.append(.frame(last))
                if showsStampFirst(last, after: previous) { steps.append(.catchUp) }
            }
            last = settle(&deck, from: last, at: &t, into: &steps)
            steps.append(.idle(deck.elementsToPrepare(in: last)))
        }
        return (first, steps, deck.takeDecisions())
    }

    /// A visit of `file`'s list with its rows repeated to 40: scrolled up by a flick, a row
    /// swiped left and deleted, a row tapped open to its detail page, and back. As in the app,
    /// each touch's first moment prepares what the deck lists (the detail page of the row
    /// under the finger), and each rest discards what no frame showed.
    static func listVisit(_ file: DeckFile, size: Size) -> (first: Scene, steps: [Step], decisions: [Decision]) {
        var deck = makeDeck(file, cards: cards(of: file, count: 40), size: size)
        var t = start
        let first = deck.scene(at: t)
        var last = first
        var steps: [Step] = []
        let middle = Point(x: size.width / 2, y: size.height / 2)
        let gestures: [(from: Point, by: Point, frames: Int)] = [
            (Point(x: size.width / 2, y: size.height - 60), Point(x: 0, y: -240), 30),
            (middle, Point(x: -size.width * 0.7, y: 0), 24),
            (middle, .zero, 1),
        ]
        for g in gestures {
            for i in 0...g.frames {
                t = t.advanced(bySeconds: 1.0 / 60)
                let f = Double(i) / Double(g.frames)
                let phase: TouchPhase = i == 0 ? .began : i == g.frames ? .ended : .moved
                let contact = TouchContact(id: 1, position: g.from + Point(x: g.by.x * f, y: g.by.y * f), phase: phase)
                deck.handle(TouchFrame(time: t, contacts: [contact]))
                last = deck.scene(at: t)
                steps.append(.frame(last))
                // The finger is down and has not moved: the app prepares the detail page of
                // the row under it (a tap lasts 50–150 ms; the thread draws a 1080p page in
                // well under that).
                if i == 0 { steps.append(.idle(deck.elementsToPrepare(in: last))) }
            }
            last = settle(&deck, from: last, at: &t, into: &steps)
            // At rest again: nothing to prepare, so what a scroll or swipe left prepared goes.
            steps.append(.idle(deck.elementsToPrepare(in: last)))
        }
        t = t.advanced(bySeconds: 1.0 / 60)
        deck.perform(.back, at: t)
        last = deck.scene(at: t)
        steps.append(.frame(last))
        _ = settle(&deck, from: last, at: &t, into: &steps)
        return (first, steps, deck.takeDecisions())
    }

    /// Frames at 60 Hz while `scene` animates (at most four seconds); the last scene.
    private static func settle(
        _ deck: inout any CardDeck, from scene: Scene, at t: inout Instant, into steps: inout [Step]
    )
        -> Scene
    {
        var last = scene
        var n = 0
        while last.isAnimating && n < 240 {
            t = t.advanced(bySeconds: 1.0 / 60)
            last = deck.scene(at: t)
            steps.append(.frame(last))
            n += 1
        }
        return last
    }
}
