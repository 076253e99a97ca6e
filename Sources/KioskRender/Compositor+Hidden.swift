import KioskSystem

extension Compositor {
    /// Screen columns that elements drawn later in the same frame cover with opaque pixels, one
    /// span a row: whatever an element below writes there is overwritten, so `draw` leaves those
    /// pixels alone (neither restored from the base nor sampled).
    ///
    /// This is what makes a swipe's close-up cheap: the cards moving up a level each lie almost
    /// whole under the opaque inside of the card above them, and only what shows (the shadows,
    /// the lower edges) is sampled. The pixels are the ones drawing everything gives:
    /// - a span holds only pixels the covering element writes as an opaque pixel whatever is
    ///   under it (`opaqueSpans`: all four bilinear taps opaque, the element not faded), in the
    ///   rows and columns its own `draw` call writes;
    /// - a covering element's own hidden pixels are covered by one drawn later still, so the last
    ///   opaque element over a pixel writes it, as it does when everything is drawn;
    /// - a skipped span changes no drawn pixel's sampling position: a row's samples still step
    ///   from its start (`rowStart(_:y:from:to:at:)`), and unturned loops are per pixel.
    struct Hidden {
        /// The first screen row `spans` describes.
        var top: Int
        /// Columns `lo..<hi` of each row from `top` (nothing hidden when `hi <= lo`).
        var spans: [SIMD2<Int32>]

        /// Nothing hidden in `rows`.
        init(rows: Range<Int>) {
            top = rows.lowerBound
            spans = Array(repeating: .zero, count: rows.count)
        }

        /// Nothing hidden anywhere.
        static var none: Hidden { Hidden(rows: 0..<0) }

        /// Hides columns `lo..<hi` of row `y` too: their union with the row's span where the two
        /// overlap or touch, else the wider (one span a row: hiding less than all is always
        /// right; the cards of a stack nest, so their spans overlap).
        mutating func insert(_ y: Int, _ lo: Int, _ hi: Int) {
            let i = y &- top
            guard hi > lo, i >= 0, i < spans.count else { return }
            let s = SIMD2(Int32(lo), Int32(hi))
            let t = spans[i]
            if t.y <= t.x {
                spans[i] = s
            } else if s.x <= t.y && t.x <= s.y {
                spans[i] = SIMD2(min(s.x, t.x), max(s.y, t.y))
            } else if s.y - s.x > t.y - t.x {
                spans[i] = s
            }
        }

        /// Adds what `other` hides.
        mutating func join(_ other: Hidden) {
            for (k, s) in other.spans.enumerated() where s.y > s.x { insert(other.top + k, Int(s.x), Int(s.y)) }
        }

        /// Calls `body` for the parts of `a..<b` in row `y` that are not hidden, left to right.
        @inline(__always) func visible(_ y: Int, _ a: Int, _ b: Int, _ body: (Int, Int) -> Void) {
            guard b > a else { return }
            let i = y &- top
            guard i >= 0 && i < spans.count else {
                body(a, b)
                return
            }
            let (lo, hi) = (Int(spans[i].x), Int(spans[i].y))
            if hi <= lo || hi <= a || lo >= b {
                body(a, b)
                return
            }
            if lo > a { body(a, lo) }
            if hi < b { body(hi, b) }
        }

        /// The hidden pixels.
        var pixels: Int { spans.reduce(0) { $0 + max(0, Int($1.y - $1.x)) } }
    }

    /// One element a frame draws (`draw(_:at:opacity:into:base:clip:hidden:kernel:)`), for
    /// `hidden(_:bounds:)`.
    struct Layer {
        var image: ElementImage
        var placement: Placement
        var opacity: Double
        /// The pixels its `draw` call may write (the damage for one drawn over the base).
        var clip: PixelRect
    }

    /// For each of `layers` (drawn bottom first into a target of `bounds`), the pixels that
    /// layers above it cover opaquely; nil where none. A layer is looked at as a cover only where
    /// it overlaps the clip of one below it.
    static func hidden(_ layers: [Layer], bounds: PixelRect) -> [Hidden?] {
        guard layers.count > 1 else { return [] }
        // below[k]: the pixels layers 0..<k may write.
        var below = [PixelRect](repeating: .empty, count: layers.count)
        var all = PixelRect.empty
        for (k, layer) in layers.enumerated() {
            below[k] = all
            all = all.union(layer.clip.intersection(bounds))
        }
        var result = [Hidden?](repeating: nil, count: layers.count)
        var above: Hidden?
        for k in layers.indices.reversed() {
            result[k] = above
            let l = layers[k]
            guard k > 0, !l.clip.intersection(below[k]).isEmpty,
                let spans = opaqueSpans(l.image, at: l.placement, opacity: l.opacity, clip: l.clip, bounds: bounds)
            else { continue }
            if above == nil { above = Hidden(rows: all.y..<all.maxY) }
            above?.join(spans)
        }
        return result
    }

    /// The columns of each row of `clip` (within `bounds`, the target's) where `draw(source, at:
    /// placement, opacity: opacity, …, clip: clip)` stores an opaque pixel whatever was under it;
    /// nil for a faded or turned element, or when it stores none.
    ///
    /// Unturned: the row's longest opaque run (`RowExtent`). Scaled, or turned by a half turn:
    /// the row's samples all read image rows `v >> 24` and the next (`dv` is 0), and columns
    /// `u >> 24` and the next, with u stepping exactly from the row's fixed-point start
    /// (`rowStart`, computed as `draw` computes it for the row it draws). A sample whose four taps
    /// are opaque is opaque (the weights add up to 256), so the columns whose taps lie in both
    /// rows' longest opaque runs follow in integers, each end one division.
    static func opaqueSpans(
        _ source: ElementImage, at p: Placement, opacity: Double, clip: PixelRect, bounds: PixelRect
    )
        -> Hidden?
    {
        guard (opacity * 256).rounded() >= 256 else { return nil }
        let clip = clip.intersection(bounds)
        guard !clip.isEmpty else { return nil }
        let w = source.image.width
        let h = source.image.height
        var hidden = Hidden(rows: clip.y..<clip.maxY)
        var any = false
        if let o = p.offset {
            for y in clip.y..<clip.maxY {
                let sy = y - o.y
                guard sy >= 0 && sy < h else { continue }
                let e = source.rows[sy]
                let lo = max(clip.x, o.x + Int(e.opaqueFirst))
                let hi = min(clip.maxX, o.x + Int(e.opaqueEnd))
                if hi > lo {
                    hidden.insert(y, lo, hi)
                    any = true
                }
            }
            return any ? hidden : nil
        }
        // Scaled, or turned by a half turn: every sample of a row reads the same two image rows.
        // (Turned covers did not pay: what they hide under the card flying out is mostly a
        // card's flat bands, cheaper to fill than to split rows around.)
        guard p.d == 0 else { return nil }
        for y in clip.y..<clip.maxY {
            // The row `draw` samples, and where its samples start (nil: it draws none).
            let span = bilinearSpan(p, y: y, width: w, height: h)
            let x0 = max(clip.x, span.lowerBound)
            let x1 = min(clip.maxX, span.upperBound)
            guard x1 > x0, let s = rowStart(p, y: y, from: x0, to: x1) else { continue }
            guard s.dv == 0 else { continue }
            let iy = s.v >> 24
            guard iy >= 0 && iy &+ 1 < h else { continue }
            let top = source.rows[iy]
            let bottom = source.rows[iy + 1]
            let lo = max(Int(top.opaqueFirst), Int(bottom.opaqueFirst))
            let hi = min(Int(top.opaqueEnd), Int(bottom.opaqueEnd))
            // The steps t = x − x0 whose taps lie inside both rows' opaque runs.
            guard hi - lo >= 2, let steps = (0...(x1 - x0 - 1)).within(s.u, s.du, taps: lo..<hi) else { continue }
            hidden.insert(y, x0 + steps.lowerBound, x0 + steps.upperBound + 1)
            any = true
        }
        return any ? hidden : nil
    }

    /// ⌊n / d⌋ for d > 0.
    @inline(__always) static func floorDivision(_ n: Int, _ d: Int) -> Int {
        let q = n / d
        return n % d < 0 ? q - 1 : q
    }

    /// ⌈n / d⌉ for d > 0.
    @inline(__always) static func ceilingDivision(_ n: Int, _ d: Int) -> Int {
        -floorDivision(-n, d)
    }
}

extension ClosedRange<Int> {
    /// The steps t of these (t ≥ 0) at which a fixed-point position `start + step·t` (24
    /// fraction bits) has both its tap (`>> 24`) and the next in `taps`; nil when none.
    @inline(__always) func within(_ start: Int, _ step: Int, taps: Range<Int>) -> ClosedRange<Int>? {
        guard taps.count >= 2 else { return nil }
        // start + step·t in lo...hi.
        let lo = taps.lowerBound << 24
        let hi = ((taps.upperBound - 1) << 24) - 1
        var first = lowerBound
        var last = upperBound
        if step > 0 {
            first = Swift.max(first, Compositor.ceilingDivision(lo - start, step))
            last = Swift.min(last, Compositor.floorDivision(hi - start, step))
        } else if step < 0 {
            first = Swift.max(first, Compositor.ceilingDivision(start - hi, -step))
            last = Swift.min(last, Compositor.floorDivision(start - lo, -step))
        } else if start < lo || start > hi {
            return nil
        }
        return first <= last ? first...last : nil
    }
}
