import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender
@testable import KioskSystem

/// The compositor's SIMD loops (SSE2 on x86-64, NEON on aarch64 — the arm64 lane runs these
/// tests under qemu-aarch64) against its scalar loops: every pixel must be identical, for flat
/// cards, photo cards and noise images, turned by every quarter and by odd angles, scaled,
/// faded, drawn over a base layer or blended onto the target.
@Suite struct RenderSIMDTests {
    /// The buffer's pixels, row after row (a row copy each: a debug build's pixel-by-pixel
    /// closure is slow, under qemu-user far more so).
    static func pixels(of buffer: PixelBuffer) -> [UInt32] {
        let w = buffer.width
        return [UInt32](unsafeUninitializedCapacity: w * buffer.height) { out, count in
            for y in 0..<buffer.height {
                memcpy(out.baseAddress! + y * w, buffer.pixels + y * buffer.stride, w * 4)
            }
            count = w * buffer.height
        }
    }

    /// The index of the first pixel that differs, nil if none (memcmp first: most are equal).
    static func firstDifference(_ a: [UInt32], _ b: [UInt32]) -> Int? {
        precondition(a.count == b.count)
        let same = a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
        return same ? nil : a.indices.first { a[$0] != b[$0] }
    }

    /// A stamp-like image: a shadow ring (premultiplied black, its alpha stepping with the
    /// distance to the edge), a translucent outline, a clear inside and a label (opaque white
    /// with noise in it). Its groups of four samples take every path of the SIMD turned row:
    /// all taps transparent (over a base and in place), shadow only, flat, taps weighed, and
    /// one image row or several.
    static func outlineImage(width: Int, height: Int, seed: UInt64) throws -> ElementImage {
        let image = try #require(CairoImage(width: width, height: height))
        var random = RenderFixtures.Random(state: seed)
        let data = image.data
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let d = min(x - 1, y - 1, width - 2 - x, height - 2 - y)
                var p: UInt32 = 0
                if d < 8 {
                    p = UInt32(20 + d * 28) << 24
                } else if d < 12 {
                    p = 0xE6B4_3C28
                } else if x > width * 3 / 5 && x < width - 20 && y > height * 2 / 3 && y < height - 20 {
                    let r = random.next()
                    p = r % 5 == 0 ? UInt32(truncatingIfNeeded: r) | 0xFF00_0000 : 0xFFFF_FFFF
                }
                data.storeBytes(of: p, toByteOffset: y * image.stride + x * 4, as: UInt32.self)
            }
        }
        image.markDirty()
        return ElementImage(image: image, anchorX: Double(width) / 2, anchorY: Double(height) / 2)
    }

    /// A card-like vertical gradient: a shadow ring, then rows of one colour each across the
    /// inside (steep steps between rows, stretches of equal rows and a translucent stretch), with
    /// a noisy label breaking the rows in the middle.
    static func gradientImage(width: Int, height: Int, seed: UInt64) throws -> ElementImage {
        let image = try #require(CairoImage(width: width, height: height))
        var random = RenderFixtures.Random(state: seed)
        let data = image.data
        for y in 1..<(height - 1) {
            let opaque = y < height / 2 || y > height * 3 / 4
            let a: UInt32 = opaque ? 255 : 190
            let level = UInt32(y / 9 % 2 == 0 ? y * 37 % 256 : 90)
            let (r, g, b) = (level * a / 255, (255 - level) * a / 255, UInt32(y * 5 % 256) * a / 255)
            let color = (a << 24) | (r << 16) | (g << 8) | b
            for x in 1..<(width - 1) {
                let d = min(x - 1, y - 1, width - 2 - x, height - 2 - y)
                var p: UInt32 = d < 6 ? UInt32(30 + d * 30) << 24 : color
                if x > width / 3 && x < width / 2 && y > height / 3 && y < height / 3 + 14 {
                    p = UInt32(truncatingIfNeeded: random.next()) | 0xFF00_0000
                }
                data.storeBytes(of: p, toByteOffset: y * image.stride + x * 4, as: UInt32.self)
            }
        }
        image.markDirty()
        return ElementImage(image: image, anchorX: Double(width) / 2, anchorY: Double(height) / 2)
    }

    static func flatCard() throws -> ElementImage {
        try RenderFixtures.cardImage()
    }

    /// Draws `source` with both kernels at the same placements and returns the first
    /// difference, if any.
    static func compare(
        _ source: ElementImage, seed: UInt64, randomAngles: Int = 8, extraAngles: [Double] = [],
        scales: [Double] = [1.0, 0.93, 1.11],
        opacities: [Double] = [1.0, 0.62, 0.05]
    ) -> String? {
        var random = RenderFixtures.Random(state: seed)
        let w = 300
        let h = 280
        let base = PixelBuffer(width: w, height: h)
        for y in 0..<h {
            let row = (base.pixels + y * base.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w { row[x] = UInt32(truncatingIfNeeded: random.next()) & 0x00FF_FFFF }
        }
        var angles = [0.0, 90, 180, 270, -90, 360] + extraAngles
        // Every right angle always; fewer random ones under qemu-user (a debug build's SIMD code
        // is slow there), the same comparisons.
        for _ in 0..<(DeckFixtures.underEmulation ? min(2, randomAngles) : randomAngles) {
            angles.append(random.unit() * 720 - 360)
        }
        for degrees in angles {
            for scale in DeckFixtures.underEmulation ? Array(scales.suffix(2)) : scales {
                for opacity in DeckFixtures.underEmulation ? [opacities[0], opacities[opacities.count - 1]] : opacities
                {
                    for overBase in [false, true] {
                        let placement = Placement(
                            anchorX: source.anchorX, anchorY: source.anchorY,
                            centerX: 150 + random.unit() * 20 - 10, centerY: 140 + random.unit() * 20 - 10,
                            rotation: degrees * Double.pi / 180, scale: scale)
                        let clip = PixelRect(
                            x: Int(random.next() % 30), y: Int(random.next() % 30),
                            width: w - 30 - Int(random.next() % 30),
                            height: h - 30 - Int(random.next() % 30))
                        var out: [[UInt32]] = []
                        for kernel in [Compositor.Kernel.simd, .scalar] {
                            let target = PixelBuffer(width: w, height: h)
                            Compositor.copy(target.bounds, from: base, to: target)
                            if overBase {
                                // Over a base every pixel of the clip is written: start from other
                                // pixels, so one left unwritten shows.
                                for y in 0..<h {
                                    let row = (target.pixels + y * target.stride).assumingMemoryBound(to: UInt32.self)
                                    for x in 0..<w { row[x] = ~row[x] & 0x00FF_FFFF }
                                }
                            }
                            Compositor.draw(
                                source, at: placement, opacity: opacity, into: target, base: overBase ? base : nil,
                                clip: clip, kernel: kernel)
                            out.append(Self.pixels(of: target))
                        }
                        if let i = Self.firstDifference(out[0], out[1]) {
                            return
                                "\(degrees)° ×\(scale) opacity \(opacity) base \(overBase): pixel (\(i % w), \(i / w))"
                                + " simd \(String(out[0][i], radix: 16)) scalar \(String(out[1][i], radix: 16))"
                        }
                    }
                }
            }
        }
        return nil
    }

    @Test func noiseImagesAreIdentical() throws {
        for seed: UInt64 in DeckFixtures.underEmulation ? [2] : [1, 2, 3] {
            // Odd widths leave one to three pixels for the tail loops.
            let source = try RenderFixtures.noiseImage(width: 141 + Int(seed), height: 97 + 2 * Int(seed), seed: seed)
            let difference = Self.compare(source, seed: seed &* 77)
            #expect(difference == nil, "noise image \(seed): \(difference ?? "")")
        }
    }

    /// The stamp-like image (`outlineImage`) at every quarter turn and odd angles, scaled and
    /// faded, over a base layer and in place: the SIMD turned row's transparent, shadow-only and
    /// one-row groups give the scalar kernel's pixels.
    @Test func outlineImagesAreIdentical() throws {
        for seed: UInt64 in [4] {
            let source = try Self.outlineImage(width: 151 + Int(seed), height: 113 + Int(seed), seed: seed)
            let difference = Self.compare(
                source, seed: seed &* 31, randomAngles: 2, scales: [1.0, 0.93], opacities: [1.0, 0.4])
            #expect(difference == nil, "outline image \(seed): \(difference ?? "")")
        }
    }

    /// A vertical gradient turned as a drag turns a card (a few degrees either way, at rest and
    /// reduced), faded and not, over a base layer and in place: the SIMD row's level groups (two
    /// products where a pixel's left taps equal its right ones) and bands of equal rows, across
    /// steep, equal and translucent rows, give the scalar kernel's pixels, which always weighs
    /// the four taps.
    @Test func gradientImagesAreIdentical() throws {
        for seed: UInt64 in [5, 6] {
            let source = try Self.gradientImage(width: 163 + Int(seed), height: 201 + Int(seed), seed: seed)
            let difference = Self.compare(
                source, seed: seed &* 13, randomAngles: 2, extraAngles: [0.4, -0.4, 3, -3, 6.5, -6.5, 177],
                scales: [1.0, 0.96], opacities: [1.0, 0.7])
            #expect(difference == nil, "gradient image \(seed): \(difference ?? "")")
        }
    }

    @Test func flatCardIsIdentical() throws {
        let difference = Self.compare(try Self.flatCard(), seed: 11)
        #expect(difference == nil, "flat card: \(difference ?? "")")
    }

    /// The one-pass turned row over a still layer kept as a window plus a background row (its
    /// segments: outside, inside, outside the box), for an image whose drawn pixels sit inside a
    /// wide transparent margin (the columns `drawTurnedRowSIMD` leaves unsampled): the same
    /// pixels as the scalar kernel's two passes.
    @Test func turnedRowsOverAWindowedLayerAreIdentical() throws {
        let (w, h) = (300, 280)
        let noise = try RenderFixtures.noiseImage(width: 120, height: 100, seed: 5)
        // The noise inside a 25-pixel transparent margin.
        let framed = try #require(CairoImage(width: 170, height: 150))
        for y in 0..<noise.image.height {
            (framed.data + (y + 25) * framed.stride + 25 * 4).copyMemory(
                from: noise.image.data + y * noise.image.stride, byteCount: noise.image.width * 4)
        }
        framed.markDirty()
        let source = ElementImage(image: framed, anchorX: 85, anchorY: 75)
        var random = RenderFixtures.Random(state: 23)
        let box = PixelRect(x: 70, y: 50, width: 140, height: 170)
        let window = UnsafeMutablePointer<UInt32>.allocate(capacity: box.width * box.height)
        defer { window.deallocate() }
        for i in 0..<(box.width * box.height) { window[i] = UInt32(truncatingIfNeeded: random.next()) | 0xFF00_0000 }
        let outside = UnsafeMutablePointer<UInt32>.allocate(capacity: w)
        defer { outside.deallocate() }
        for x in 0..<w { outside[x] = UInt32(truncatingIfNeeded: random.next()) | 0xFF00_0000 }
        let base = Compositor.Base(
            rows: Compositor.Rows(window: UnsafeMutableRawPointer(window), pitch: box.width, bounds: box),
            outside: UnsafePointer(outside))
        let angles = DeckFixtures.underEmulation ? [7.0, 200] : [7.0, -33, 90, 200]
        for degrees in angles {
            for opacity in [1.0, 0.4] {
                let placement = Placement(
                    anchorX: source.anchorX, anchorY: source.anchorY, centerX: 140 + random.unit() * 10,
                    centerY: 135 + random.unit() * 10, rotation: degrees * Double.pi / 180, scale: 1.07)
                var out: [[UInt32]] = []
                for kernel in [Compositor.Kernel.simd, .scalar] {
                    let target = PixelBuffer(width: w, height: h)
                    Compositor.draw(
                        source, at: placement, opacity: opacity, into: Compositor.Rows(target), base: base,
                        clip: target.bounds, kernel: kernel)
                    out.append(Self.pixels(of: target))
                }
                let i = Self.firstDifference(out[0], out[1])
                let at = i.map { "pixel (\($0 % w), \($0 / w))" } ?? ""
                #expect(i == nil, "\(degrees)° opacity \(opacity): \(at)")
                // Not vacuous: the image was drawn over part of the layer, and the layer shows
                // elsewhere (inside and outside its box).
                func inBox(_ i: Int) -> Bool {
                    let (x, y) = (i % w, i / w)
                    return x >= box.x && x < box.maxX && y >= box.y && y < box.maxY
                }
                func layer(_ i: Int) -> UInt32 {
                    let (x, y) = (i % w, i / w)
                    return inBox(i) ? window[(y - box.y) * box.width + x - box.x] : outside[x]
                }
                #expect((0..<(w * h)).contains { out[0][$0] != layer($0) })
                #expect((0..<(w * h)).contains { out[0][$0] == layer($0) && inBox($0) })
            }
        }
    }

    /// The switch the tests above depend on: the renderer's kernel is settable and the
    /// environment's names parse.
    @Test func kernelsAreSelectable() {
        let renderer = SceneRenderer(pixelWidth: 8, pixelHeight: 8, scale: 1)
        renderer.kernel = .scalar
        #expect(renderer.kernel == .scalar)
        renderer.kernel = .simd
        #expect(renderer.kernel == .simd)
        #expect(Compositor.Kernel(rawValue: "scalar") == .scalar)
    }

    /// The sampler's start positions round as `Int(x.rounded())` does, without libm's `round`:
    /// halves away from zero on both sides, values just off a half, whole numbers, and random
    /// fixed-point positions of the size a turned row meets (up to ±2⁴⁰).
    @Test func rowStartRoundsAsTheStandardLibrary() {
        var values: [Double] = [0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994]
        values += [1e15 + 0.5, -1e15 - 0.5, 4_503_599_627_370_495.5, 9_007_199_254_740_992, 3, -3]
        for half in [0.5, -0.5, 2.5, -2.5] { values += [half.nextUp, half.nextDown] }
        var random = SplitMix64(seed: 14)
        for _ in 0..<10_000 {
            let whole = Double(Int64.random(in: -(1 << 40)...(1 << 40), using: &random))
            values.append(whole + Double.random(in: -1...1, using: &random))
            values.append(whole + [0.5, -0.5][Int.random(in: 0...1, using: &random)])
        }
        for x in values {
            #expect(Compositor.roundedToInt(x) == Int(x.rounded()), "x = \(x)")
        }
    }

    /// Whole frames of the example decks through the real renderer, a card dragged to both
    /// sides and up (turned by the drag), in landscape and portrait (a panel turned by 90° or
    /// 270° lays out on the swapped size): the photo deck's cards and the flat ones.
    @Test(arguments: ["onboarding.json", "products/products.json"], ["800x480", "480x800"])
    func deckFramesAreIdentical(_ deck: String, _ size: String) throws {
        let file = try GoldenImageTests.example(deck)
        let (w, h) = size == "800x480" ? (800, 480) : (480, 800)
        let logical = Size(width: Double(w), height: Double(h))
        // Under qemu-user (a debug build's SIMD code is slow there) a drag to the left and one up.
        let gestures = ["drag -140 40", "drag 170 -25", "drag 60 -200", "drag -20 5"]
        for gesture in DeckFixtures.underEmulation ? [gestures[0], gestures[2]] : gestures {
            let scene = try RenderInputs.scene(deck: file, size: logical, gesture: gesture, scriptPath: nil, atMs: 0)
            var frames: [PixelBuffer] = []
            for kernel in [Compositor.Kernel.simd, .scalar] {
                let images = ImageCache()
                let renderer = SceneRenderer(pixelWidth: w, pixelHeight: h, scale: 1, images: images)
                renderer.kernel = kernel
                let buffer = PixelBuffer(width: w, height: h)
                renderer.render(scene, into: buffer)
                images.waitUntilIdle()
                renderer.invalidate()
                renderer.render(scene, into: buffer)
                frames.append(buffer)
            }
            let d = RenderFixtures.difference(frames[0], frames[1], threshold: 0)
            #expect(d.maxChannel == 0 && !d.sizeMismatch, "\(deck) \(size) \(gesture): \(d.pixelsOver) pixels differ")
        }
    }

    /// A card drawn with a shadow mask from `ShadowMasks` is byte-identical to one whose mask
    /// was blurred for it, and a second card of the same size reuses the mask.
    @Test func sharedShadowMaskDrawsTheSameCard() throws {
        // Its own masks: the shared ones serve every test running at once (a draw between
        // these two could evict the mask; qemu-user's slow run showed it).
        let masks = ShadowMasks(capacity: 4)
        let painter = ElementPainter(background: .white, images: nil)
        let size = Size(width: 161, height: 223)
        func draw(_ card: Card) throws -> [UInt8] {
            let e = try #require(
                ElementSurface.render(
                    .card(card), size: size, shadowRadius: 18, pixelsPerPoint: 1.7, painter: painter, masks: masks))
            return [UInt8](UnsafeRawBufferPointer(start: e.image.data, count: e.image.byteCount))
        }
        let blurred = try draw(BuiltInCards.stack[1])
        let hits = masks.hits
        let reused = try draw(BuiltInCards.stack[1])
        #expect(masks.hits > hits)
        #expect(blurred == reused)
        masks.removeAll()
        let other = try draw(BuiltInCards.stack[0])
        let otherReused = try draw(BuiltInCards.stack[0])
        #expect(other == otherReused)
        #expect(other != blurred)
    }
}
