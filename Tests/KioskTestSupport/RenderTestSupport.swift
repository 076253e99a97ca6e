import CPangoCairo
import CardModel
import Glibc
import Testing

@testable import KioskRender
@testable import KioskSystem

/// Paths and comparisons shared by the renderer's tests.
package enum RenderFixtures {
    /// `Tests/Fixtures`, found from this file's path.
    package static let directory = DeckFixtures.fixtures

    /// The golden set for the cairo and pango this process runs with. Their releases move
    /// glyphs and antialiased edges by more than a tolerance that would still catch a wrong
    /// colour, so each distribution's libraries have their own set: `golden/` for those named
    /// in `golden/LIBRARIES`, `golden/<libraries>/` for others (`KIOSK_WRITE_GOLDEN=1` writes
    /// the running libraries' set; `scripts/test-arm64.sh --write-golden` trixie's).
    package static let golden: String = {
        let base = DeckFixtures.testsDirectory + "/KioskCardsTests/Fixtures/golden"
        var reference: [UInt8] = []
        if let file = fopen(base + "/LIBRARIES", "r") {
            while case let c = getc(file), c != EOF, c != 10 { reference.append(UInt8(c)) }
            fclose(file)
        }
        return String(decoding: reference, as: UTF8.self) == libraries ? base : base + "/" + libraries
    }()

    /// `cairo-1.16-pango-1.50`: major.minor of the libraries running (bug-fix releases keep
    /// their rendering).
    package static let libraries: String = {
        func minor(_ version: UnsafePointer<CChar>) -> String {
            String(cString: version).split(separator: ".").prefix(2).joined(separator: ".")
        }
        return "cairo-\(minor(cairo_version_string()))-pango-\(minor(pango_version_string()))"
    }()
    package static var images: String { directory + "/images" }

    /// Where failing images go for inspection (created on first use).
    package static let failureDirectory: String = {
        var template = Array("/tmp/kioskcards-golden-XXXXXX".utf8CString)
        let dir: String? = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        return dir ?? "/tmp"
    }()

    /// Draws `scene` whole with a fresh cached renderer, waiting for photos to decode.
    package static func render(_ scene: Scene, width: Int, height: Int, scale: Double) -> PixelBuffer {
        let images = ImageCache()
        let renderer = SceneRenderer(pixelWidth: width, pixelHeight: height, scale: scale, images: images)
        let buffer = PixelBuffer(width: width, height: height)
        renderer.render(scene, into: buffer)
        images.waitUntilIdle()
        // Drawn again only when photos were decoded meanwhile: without one the first frame is
        // already the final one (half the work of every render test without photos).
        guard images.generation > 0 else { return buffer }
        renderer.invalidate()
        renderer.render(scene, into: buffer)
        return buffer
    }

    package struct Difference {
        /// Largest difference of one colour channel (0…255).
        package var maxChannel = 0
        /// Mean absolute channel difference over all pixels and channels.
        package var mean = 0.0
        /// Pixels with a channel differing by more than `threshold`.
        package var pixelsOver = 0
        package var sizeMismatch = false
    }

    package static func difference(_ a: PixelBuffer, _ b: PixelBuffer, threshold: Int = 16) -> Difference {
        var d = Difference()
        guard a.width == b.width, a.height == b.height else {
            d.sizeMismatch = true
            return d
        }
        var total = 0
        for y in 0..<a.height {
            let rowA = a.pixels + y * a.stride
            let rowB = b.pixels + y * b.stride
            // A row of the same bytes adds nothing (most rows of most comparisons): one memcmp
            // instead of a debug build's per-pixel loop, which under qemu-user is most of a
            // render test's time.
            if memcmp(rowA, rowB, a.width * 4) == 0 { continue }
            for x in 0..<a.width {
                let p = rowA.load(fromByteOffset: x * 4, as: UInt32.self)
                let q = rowB.load(fromByteOffset: x * 4, as: UInt32.self)
                let c0 = abs(Int(p & 0xFF) - Int(q & 0xFF))
                let c1 = abs(Int((p >> 8) & 0xFF) - Int((q >> 8) & 0xFF))
                let c2 = abs(Int((p >> 16) & 0xFF) - Int((q >> 16) & 0xFF))
                total += c0 + c1 + c2
                let worst = max(c0, c1, c2)
                d.maxChannel = max(d.maxChannel, worst)
                if worst > threshold { d.pixelsOver += 1 }
            }
        }
        d.mean = Double(total) / Double(a.width * a.height * 3)
        return d
    }

    /// Compares `image` with the golden PNG `name`. A missing golden is written when
    /// KIOSK_WRITE_GOLDEN=1 (and the test fails otherwise); a mismatch saves the image and
    /// the golden's path in the failure message.
    ///
    /// Tolerance: fonts and rasteriser versions move antialiased edges by a few levels, so
    /// at most 0.2 % of pixels may differ by more than 16 levels and the mean by 0.5.
    package static func expectMatchesGolden(
        _ image: PixelBuffer, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let path = "\(golden)/\(name).png"
        let writing = getenv("KIOSK_WRITE_GOLDEN").map { String(cString: $0) } == "1"
        guard access(path, R_OK) == 0, !writing else {
            if writing {
                _ = mkdir(golden, 0o755)
                do { try image.writePNG(to: path) } catch {
                    Issue.record("cannot write golden \(path): \(error)", sourceLocation: sourceLocation)
                }
            } else {
                let out = "\(failureDirectory)/\(name).actual.png"
                try? image.writePNG(to: out)
                Issue.record(
                    "golden \(path) is missing; this run's image is \(out) (KIOSK_WRITE_GOLDEN=1 writes it)",
                    sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected = try? PixelBuffer.readPNG(path) else {
            Issue.record("cannot read golden \(path)", sourceLocation: sourceLocation)
            return
        }
        let d = difference(image, expected)
        let allowed = image.width * image.height / 500
        if d.sizeMismatch || d.pixelsOver > allowed || d.mean > 0.5 {
            let out = "\(failureDirectory)/\(name).actual.png"
            try? image.writePNG(to: out)
            Issue.record(
                """
                \(name) differs from its golden: \(d.pixelsOver) pixels over 16 levels (allowed \(allowed)), \
                mean \(d.mean), max \(d.maxChannel)\(d.sizeMismatch ? ", size differs" : ""). \
                Actual: \(out) Expected: \(path)
                """, sourceLocation: sourceLocation)
        }
    }

    package static func cardImage() throws -> ElementImage {
        let card = BuiltInCards.stack[2]
        let painter = ElementPainter(background: .white, images: nil)
        return try #require(
            ElementSurface.render(
                .card(card), size: Size(width: 160, height: 220), shadowRadius: 18, pixelsPerPoint: 1, painter: painter)
        )
    }

    /// A small deterministic generator (SplitMix64), so a failure can be replayed.
    package struct Random {
        package var state: UInt64
        package init(state: UInt64) { self.state = state }
        package mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        package mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }

    /// Random premultiplied pixels (alpha 0…255, colour ≤ alpha) inside a one-pixel
    /// transparent border, as element images have: the worst case for the sampler (no two
    /// neighbours alike, so none of its runs or shortcuts apply).
    package static func noiseImage(width: Int, height: Int, seed: UInt64) throws -> ElementImage {
        let image = try #require(CairoImage(width: width, height: height))
        var random = Random(state: seed)
        let data = image.data
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let r = random.next()
                // A third opaque, a third translucent, a third shadow-like (black, some alpha).
                let a: UInt64 = r % 3 == 0 ? 255 : (r >> 8) & 0xFF
                let black = r % 3 == 2
                var p = UInt32(a) << 24
                for c in 0..<3 where !black {
                    p |= UInt32(((r >> (16 + 8 * UInt64(c))) & 0xFF) * a / 255) << (8 * UInt32(c))
                }
                data.storeBytes(of: p, toByteOffset: y * image.stride + x * 4, as: UInt32.self)
            }
        }
        image.markDirty()
        return ElementImage(image: image, anchorX: Double(width) / 2, anchorY: Double(height) / 2)
    }

    /// Japanese, Chinese and colour emoji on one card: boxes here mean a
    /// font is missing (fonts-noto-cjk, fonts-noto-color-emoji).
    package static let cjkEmoji = (title: "東京の展示会へようこそ 🎉", subtitle: "右にスワイプ👍、左は👎。中文也可以显示：欢迎光临！😀🍣")
}

/// Scenes of the real decks (`StackDeck`, `ListDeck`) driven by touch frames, for the
/// renderer's tests: what the kiosk would draw, not a restated layout.
package enum DeckScenes {
    package static let start = Instant.seconds(1)

    package static func metrics(_ size: Size) -> ScreenMetrics {
        ScreenMetrics(size: size, pointsPerMillimetre: RenderScale.baselinePixelsPerInch / 25.4)
    }

    /// Where a gesture starts, as `render --gesture` starts it: the top card's centre, else the
    /// first row's, else the screen's.
    package static func origin(of scene: Scene, size: Size) -> Point {
        for e in scene.elements.reversed() {
            if case .card = e.kind { return e.frame.center }
        }
        for e in scene.elements {
            if case .row = e.kind { return e.frame.center }
        }
        return Point(x: size.width / 2, y: size.height / 2)
    }

    /// The frames of a one-finger drag by `by` points from `origin`, as `render --gesture "drag
    /// DX DY"` feeds them: 18 moves at 60 Hz over 300 ms, then held still until 450 ms.
    package static func dragFrames(from origin: Point, by: Point, at start: Instant) -> [TouchFrame] {
        func frame(_ ms: Double, _ p: Point, _ phase: TouchPhase) -> TouchFrame {
            TouchFrame(
                time: start.advanced(bySeconds: ms / 1000), contacts: [TouchContact(id: 1, position: p, phase: phase)])
        }
        let steps = 18
        var frames = [frame(0, origin, .began)]
        for i in 1...steps {
            let k = Double(i) / Double(steps)
            frames.append(frame(Double(i) * 300 / Double(steps), origin + Point(x: by.x * k, y: by.y * k), .moved))
        }
        frames.append(frame(450, origin + by, .moved))
        return frames
    }

    /// `deck` after a drag by `drag` points (moved, then held) from the top card's or first
    /// row's centre; at rest without one.
    package static func scene(_ deck: inout some CardDeck, size: Size, drag: Point?) -> Scene {
        let rest = deck.scene(at: start)
        guard let drag else { return rest }
        let frames = dragFrames(from: origin(of: rest, size: size), by: drag, at: start)
        for f in frames {
            _ = deck.scene(at: f.time)
            deck.handle(f)
        }
        return deck.scene(at: frames.last?.time ?? start)
    }

    /// The stack of `cards`, the top card held dragged by `drag` points when given.
    package static func stack(_ cards: [Card], size: Size, drag: Point? = nil, buttons: Bool = false) -> Scene {
        var deck = StackDeck(cards: cards, metrics: metrics(size), options: StackOptions(showButtons: buttons))
        return scene(&deck, size: size, drag: drag)
    }

    /// The list of `cards`: held scrolled up by `scroll` points, or its first row held swiped by
    /// `swipe` points (negative: left).
    package static func list(_ cards: [Card], size: Size, scroll: Double = 0, swipe: Double = 0) -> Scene {
        var deck = ListDeck(cards: cards, metrics: metrics(size), randomSeed: 1)
        let drag = scroll != 0 ? Point(x: 0, y: -scroll) : swipe != 0 ? Point(x: swipe, y: 0) : nil
        return scene(&deck, size: size, drag: drag)
    }

    /// A drag sweep to the right and back to the left through the real stack, one finger at
    /// 60 Hz, lifted at the end: the scene before the touch and after each frame.
    package static func sweep(size: Size, steps: Int = 24) -> [Scene] {
        var deck = StackDeck(cards: BuiltInCards.stack, metrics: metrics(size))
        let rest = deck.scene(at: start)
        let origin = Self.origin(of: rest, size: size)
        return [rest]
            + (1...steps).map { i in
                let t = start.advanced(bySeconds: Double(i) / 60)
                let dx = sin(Double(i - 1) / Double(steps - 1) * 2 * Double.pi) * 260
                let phase: TouchPhase = i == 1 ? .began : i == steps ? .ended : .moved
                let p = origin + Point(x: dx, y: dx * 0.4)
                deck.handle(TouchFrame(time: t, contacts: [TouchContact(id: 1, position: p, phase: phase)]))
                return deck.scene(at: t)
            }
    }

    /// `count` cards cycling through `BuiltInCards.stack` with distinct ids (big decks).
    package static func manyCards(_ count: Int) -> [Card] {
        (0..<count).map { i in
            var c = BuiltInCards.stack[i % BuiltInCards.stack.count]
            c.id = "\(c.id)-\(i)"
            return c
        }
    }
}
