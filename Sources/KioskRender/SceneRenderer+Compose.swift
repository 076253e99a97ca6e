import CardModel
import KioskSystem

/// Composing the current scene (`SceneRenderer.takeIn`): every pixel is a function of the still
/// layer and the moving elements' cached images with their placements, so any region can be
/// drawn at any time, into a whole buffer or band by band into a small buffer of the
/// renderer's own, each band handed on (to the display's copy into its scanout buffer).
extension SceneRenderer {
    /// An element drawn over the layer: its cached image, or a flat stand-in.
    struct Moving {
        /// nil: `box` filled with `fill`.
        var image: ElementImage?
        var placement: Placement
        var opacity: Double
        /// The pixels it may write, on the screen.
        var box: PixelRect
        var fill: UInt32 = 0

        init(image: ElementImage, placement: Placement, opacity: Double, box: PixelRect) {
            (self.image, self.placement, self.opacity, self.box) = (image, placement, opacity, box)
        }

        init(fill: UInt32, box: PixelRect) {
            let none = Placement(anchorX: 0, anchorY: 0, centerX: 0, centerY: 0, rotation: 0, scale: 1)
            (self.image, self.placement, self.opacity, self.box, self.fill) = (nil, none, 1, box, fill)
        }
    }

    /// A moving element of the current scene.
    enum MovingElement {
        /// Outside the damage it was taken in with: placed when a compose first reaches `box`.
        case unplaced(SceneElement, box: PixelRect)
        /// Its layers, bottom first: one, or a framed image's strips.
        case placed(SceneElement, [Moving])
        /// Nothing to draw (no image could be allocated, or an empty stand-in).
        case none
    }

    /// Rows of band pixels (the band buffer's size is this many rows of the screen's width):
    /// 32 rows of 1920 pixels are 240 KiB, which stays in a core's L2 cache between the
    /// compose and the copy that reads it (a Pi 4's L2 is 1 MiB, a Zero 2 W's 512 KiB),
    /// while the per-band work (each element's set-up, the hidden spans) is paid some 34
    /// times for a whole 1080p screen, not once a row.
    static let bandBudgetRows = 32

    /// The band height `compose(_:bandRows:_:)` uses for a region `width` pixels wide: as many
    /// rows as the band buffer holds (narrow damage takes taller bands), a multiple of 16 when
    /// 16 or more (the quarter-turn copy's tiles are 16 rows).
    func bandRows(forWidth width: Int) -> Int {
        let rows = max(1, pixelWidth * Self.bandBudgetRows / Self.bandPitch(width))
        return rows >= 16 ? rows / 16 * 16 : rows
    }

    /// A band row's pixels: whole 64-byte lines.
    static func bandPitch(_ width: Int) -> Int { (width + 15) / 16 * 16 }

    /// Bytes of the band buffer (0 before the first banded compose).
    package var bandBytes: Int { bandCapacity * 4 }

    /// Composes `region` of the current scene band by band into the renderer's band buffer and
    /// calls `sink` with each band: the band's rectangle on the screen, the address pixel
    /// (0, 0) would have (read only inside the band) and the bytes from one row to the next.
    /// Bands are `bandRows` rows high (default `bandRows(forWidth:)`), top to bottom; the last
    /// may be lower. The band's pixels are valid only during its `sink` call.
    package func compose(
        _ region: PixelRect, bandRows rows: Int? = nil, _ sink: (PixelRect, UnsafeRawPointer, Int) -> Void
    ) {
        let region = region.intersection(screen)
        guard !region.isEmpty else { return }
        let pitch = Self.bandPitch(region.width)
        let height = max(1, min(rows ?? bandRows(forWidth: region.width), region.height))
        let needed = max(pitch * height, pixelWidth * Self.bandBudgetRows)
        if needed > bandCapacity {
            band?.deallocate()
            band = .allocate(capacity: needed)
            bandCapacity = needed
        }
        guard let band else { return }
        var hidden = false
        var y = region.y
        while y < region.maxY {
            let rect = PixelRect(x: region.x, y: y, width: region.width, height: min(height, region.maxY - y))
            if poisonsBands { band.update(repeating: 0xDEAD_BEEF, count: bandCapacity) }
            let rows = Compositor.Rows(window: UnsafeMutableRawPointer(band), pitch: pitch, bounds: rect)
            if composeRegion(rect, into: rows) { hidden = true }
            sink(rect, UnsafeRawPointer(bitPattern: rows.origin)!, pitch * 4)
            y = rect.maxY
        }
        if hidden { stats.framesWithHidden += 1 }
    }

    /// Composes `region` of the current scene into `target` (the screen's size).
    package func compose(_ region: PixelRect, into target: PixelBuffer) {
        precondition(target.width == pixelWidth && target.height == pixelHeight, "buffer size differs from renderer")
        if composeRegion(region.intersection(screen), into: Compositor.Rows(target)) { stats.framesWithHidden += 1 }
    }

    /// The whole current scene in a new buffer (a screenshot): drawn when asked, never kept.
    package func composedScreen() -> PixelBuffer {
        let buffer = PixelBuffer(width: pixelWidth, height: pixelHeight)
        compose(screen, into: buffer)
        return buffer
    }

    /// Draws `region` (inside `target.bounds`) of the current scene: the layer restored, the
    /// moving elements that reach it placed over it. Every pixel of `region` is written.
    /// Returns whether an element left pixels to one drawn later (`Compositor.Hidden`).
    private func composeRegion(_ region: PixelRect, into target: Compositor.Rows) -> Bool {
        let region = region.intersection(target.bounds)
        guard !region.isEmpty else { return false }
        var drawn: [Moving] = []
        for i in moving.indices {
            if case .unplaced(let element, let box) = moving[i], box.intersects(region) {
                moving[i] = place(element, box: box)
            }
            guard case .placed(_, let layers) = moving[i] else { continue }
            for var m in layers {
                m.box = m.box.intersection(region)
                if !m.box.isEmpty { drawn.append(m) }
            }
        }
        guard let lowest = drawn.first else {
            layer.copy(region, to: target)
            return false
        }
        let turned = lowest.image != nil && lowest.placement.offset == nil
        // What each element need not draw: pixels an element above covers opaquely (none when a
        // flat stand-in moves: it is no cover, and a cover's layers need images).
        let images = drawn.compactMap(\.image)
        let hidden =
            skipsHidden && images.count == drawn.count
            ? Compositor.hidden(
                zip(images, drawn).enumerated().map { i, pair in
                    Compositor.Layer(
                        image: pair.0, placement: pair.1.placement, opacity: pair.1.opacity,
                        clip: i == 0 && turned ? region : pair.1.box)
                }, bounds: target.bounds) : []
        func hiddenOf(_ i: Int) -> Compositor.Hidden? { i < hidden.count ? hidden[i] : nil }
        if turned, let image = lowest.image {
            // A turned or scaled card (a drag, a swipe's close-up): restore the layer and draw
            // it in one pass.
            Compositor.draw(
                image, at: lowest.placement, opacity: lowest.opacity, into: target, base: layer.base, clip: region,
                hidden: hiddenOf(0), kernel: kernel, bounds: sampleBounds(of: image, at: lowest.placement))
            for (i, m) in drawn.enumerated().dropFirst() { draw(m, into: target, hidden: hiddenOf(i)) }
        } else {
            // Unturned elements (rows, bars): restore the layer only where no opaque part of
            // a moving element will cover it, then draw them all.
            restore(region, into: target, except: drawn)
            for (i, m) in drawn.enumerated() { draw(m, into: target, hidden: hiddenOf(i)) }
        }
        return hidden.contains { $0 != nil }
    }

    private func draw(_ m: Moving, into target: Compositor.Rows, hidden: Compositor.Hidden? = nil) {
        guard let image = m.image else {
            Compositor.fill(m.box, with: m.fill, in: target)
            return
        }
        Compositor.draw(
            image, at: m.placement, opacity: m.opacity, into: target, base: nil, clip: m.box, hidden: hidden,
            kernel: kernel, bounds: sampleBounds(of: image, at: m.placement))
    }

    /// A turned image's `Compositor.sampleBounds`, measured once per scene taken in (a scan of
    /// its rows, which a compose in bands would otherwise repeat in every band).
    private func sampleBounds(of image: ElementImage, at placement: Placement) -> Compositor.SampleBounds? {
        guard placement.offset == nil, kernel == .simd else { return nil }
        let id = ObjectIdentifier(image)
        if let known = measuredBounds[id] { return known }
        guard let bounds = Compositor.sampleBounds(image) else { return nil }
        measuredBounds[id] = bounds
        return bounds
    }

    /// Copies `rect` from the layer, skipping on each row the opaque runs of the unturned,
    /// fully opaque `covers` inside their boxes, which will be drawn over it anyway.
    private func restore(_ rect: PixelRect, into target: Compositor.Rows, except covers: [Moving]) {
        // Plain values for the row loop: (x, y, height, row extents, the box drawn).
        let spans: [(x: Int, y: Int, height: Int, rows: UnsafePointer<RowExtent>, box: PixelRect)] =
            covers.compactMap { c in
                guard c.opacity >= 1, let image = c.image, let o = c.placement.offset else { return nil }
                return (o.x, o.y, image.image.height, UnsafePointer(image.rows), c.box)
            }
        let fills = covers.filter { $0.image == nil }.map(\.box)
        var runs: [(Int, Int)] = []
        runs.reserveCapacity(spans.count + fills.count)
        for y in rect.y..<rect.maxY {
            runs.removeAll(keepingCapacity: true)
            for s in spans where y >= s.y && y < s.y + s.height && y >= s.box.y && y < s.box.maxY {
                let e = s.rows[y - s.y]
                let a = max(s.x + Int(e.opaqueFirst), s.box.x)
                let b = min(s.x + Int(e.opaqueEnd), s.box.maxX)
                if b > a { runs.append((a, b)) }
            }
            for f in fills where y >= f.y && y < f.maxY { runs.append((f.x, f.maxX)) }
            if runs.count > 1 { runs.sort { $0.0 < $1.0 } }
            var x = rect.x
            for (a, b) in runs {
                if a > x {
                    layer.copy(PixelRect(x: x, y: y, width: min(a, rect.maxX) - x, height: 1), to: target)
                }
                x = max(x, b)
                if x >= rect.maxX { break }
            }
            if x < rect.maxX {
                layer.copy(PixelRect(x: x, y: y, width: rect.maxX - x, height: 1), to: target)
            }
        }
        withExtendedLifetime(covers) {}
    }
}

extension PixelRect {
    /// Whether the two share a pixel.
    func intersects(_ other: PixelRect) -> Bool { !intersection(other).isEmpty }
}
