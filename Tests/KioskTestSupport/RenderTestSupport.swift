import CPangoCairo
import CardModel
import Glibc
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// Paths and comparisons shared by the renderer's tests.
enum RenderFixtures {
    /// `Tests/KioskCardsTests/Fixtures`, found from this file's path.
    static let directory: String = {
        let file = "\(#filePath)"
        return String(file[..<file.lastIndex(of: "/")!]) + "/Fixtures"
    }()

    /// The golden set for the cairo and pango this process runs with. Their releases move
    /// glyphs and antialiased edges by more than a tolerance that would still catch a wrong
    /// colour, so each distribution's libraries have their own set: `golden/` for those named
    /// in `golden/LIBRARIES`, `golden/<libraries>/` for others (`KIOSK_WRITE_GOLDEN=1` writes
    /// the running libraries' set; `scripts/test-arm64.sh --write-golden` trixie's).
    static let golden: String = {
        let base = directory + "/golden"
        var reference: [UInt8] = []
        if let file = fopen(base + "/LIBRARIES", "r") {
            while case let c = getc(file), c != EOF, c != 10 { reference.append(UInt8(c)) }
            fclose(file)
        }
        return String(decoding: reference, as: UTF8.self) == libraries ? base : base + "/" + libraries
    }()

    /// `cairo-1.16-pango-1.50`: major.minor of the libraries running (bug-fix releases keep
    /// their rendering).
    static let libraries: String = {
        func minor(_ version: UnsafePointer<CChar>) -> String {
            String(cString: version).split(separator: ".").prefix(2).joined(separator: ".")
        }
        return "cairo-\(minor(cairo_version_string()))-pango-\(minor(pango_version_string()))"
    }()
    static var images: String { directory + "/images" }

    /// Where failing images go for inspection (created on first use).
    static let failureDirectory: String = {
        var template = Array("/tmp/kioskcards-golden-XXXXXX".utf8CString)
        let dir: String? = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        return dir ?? "/tmp"
    }()

    /// Draws `scene` whole with a fresh cached renderer, waiting for photos to decode.
    static func render(_ scene: Scene, width: Int, height: Int, scale: Double) -> PixelBuffer {
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

    struct Difference {
        /// Largest difference of one colour channel (0…255).
        var maxChannel = 0
        /// Mean absolute channel difference over all pixels and channels.
        var mean = 0.0
        /// Pixels with a channel differing by more than `threshold`.
        var pixelsOver = 0
        var sizeMismatch = false
    }

    static func difference(_ a: PixelBuffer, _ b: PixelBuffer, threshold: Int = 16) -> Difference {
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
    static func expectMatchesGolden(
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
}

/// Scenes of the real decks (`StackDeck`, `ListDeck`) driven by touch frames, for the
/// renderer's tests: what the kiosk would draw, not a restated layout.
enum DeckScenes {
    static let start = Instant.seconds(1)

    static func metrics(_ size: Size) -> ScreenMetrics {
        ScreenMetrics(size: size, pointsPerMillimetre: RenderScale.baselinePixelsPerInch / 25.4)
    }

    /// `deck` after the `render` gesture `gesture` (e.g. "drag 40 0": moved, then held) from
    /// the top card's or first row's centre; at rest without one.
    static func scene(_ deck: inout some CardDeck, size: Size, gesture: String?) -> Scene {
        let rest = deck.scene(at: start)
        guard let gesture else { return rest }
        let origin = RenderInputs.origin(of: rest, size: size)
        let frames = (try? RenderInputs.gestureFrames(gesture, origin: origin, at: start)) ?? []
        for f in frames {
            _ = deck.scene(at: f.time)
            deck.handle(f)
        }
        return deck.scene(at: frames.last?.time ?? start)
    }

    /// The stack of `cards`, the top card held dragged by `drag` points when given.
    static func stack(_ cards: [Card], size: Size, drag: Point? = nil, buttons: Bool = false) -> Scene {
        var deck = StackDeck(cards: cards, metrics: metrics(size), options: StackOptions(showButtons: buttons))
        return scene(&deck, size: size, gesture: drag.map { "drag \($0.x) \($0.y)" })
    }

    /// The list of `cards`: held scrolled up by `scroll` points, or its first row held swiped by
    /// `swipe` points (negative: left).
    static func list(_ cards: [Card], size: Size, scroll: Double = 0, swipe: Double = 0) -> Scene {
        var deck = ListDeck(cards: cards, metrics: metrics(size), randomSeed: 1)
        let gesture = scroll != 0 ? "drag 0 \(-scroll)" : swipe != 0 ? "drag \(swipe) 0" : nil
        return scene(&deck, size: size, gesture: gesture)
    }

    /// `count` cards cycling through `BuiltInCards.stack` with distinct ids (big decks).
    static func manyCards(_ count: Int) -> [Card] {
        (0..<count).map { i in
            var c = BuiltInCards.stack[i % BuiltInCards.stack.count]
            c.id = "\(c.id)-\(i)"
            return c
        }
    }
}
