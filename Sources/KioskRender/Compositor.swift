import Glibc
import KioskSystem

/// Where a cached element image lands on the screen: an affine map from screen pixels back
/// to image pixels, or a whole-pixel offset when the element is neither turned nor scaled.
struct Placement: Equatable {
    /// Image coordinates of screen point (x, y) (continuous, pixel centres at .5):
    /// u = a·x + b·y + c, v = d·x + e·y + f.
    var a: Double, b: Double, c: Double
    var d: Double, e: Double, f: Double
    /// Set when the map is a pure whole-pixel translation: the image's top-left on screen.
    var offset: (x: Int, y: Int)?

    static func == (l: Placement, r: Placement) -> Bool {
        l.a == r.a && l.b == r.b && l.c == r.c && l.d == r.d && l.e == r.e && l.f == r.f
            && l.offset?.x == r.offset?.x && l.offset?.y == r.offset?.y
    }

    /// An image whose point (anchorX, anchorY) goes to screen position (cx, cy), turned by
    /// `rotation` radians (clockwise) and scaled by `scale` about that point.
    /// Unturned, unscaled placements snap to whole pixels so they copy without resampling.
    init(
        anchorX hw: Double, anchorY hh: Double, centerX cx: Double, centerY cy: Double, rotation: Double, scale: Double
    ) {
        if rotation == 0 && scale == 1 {
            let ox = Int((cx - hw).rounded())
            let oy = Int((cy - hh).rounded())
            self.offset = (ox, oy)
            (a, b, c, d, e, f) = (1, 0, -Double(ox), 0, 1, -Double(oy))
            return
        }
        offset = nil
        // Inverse of: translate(c) · rotate(θ) · scale(s) · translate(-half).
        let cosA = cos(rotation) / scale
        let sinA = sin(rotation) / scale
        a = cosA
        b = sinA
        c = -cosA * cx - sinA * cy + hw
        d = -sinA
        e = cosA
        f = sinA * cx - cosA * cy + hh
    }
}

/// The pixel loops of the cached pipeline, over raw memory: XRGB8888 destinations, ARGB32
/// premultiplied sources (cairo's layouts), OVER blending.
///
/// Colour channels travel four to a `UInt64`, 16 bits each (B, R, G, A), so one multiply
/// scales all four; weights are 8-bit (0…256), which keeps every lane below 2^16.
package enum Compositor {
    /// Which pixel loops draw: `simd` (Swift `SIMD` vectors, which LLVM lowers to SSE2 on
    /// x86-64 and NEON on aarch64; no C) or `scalar` (one pixel at a time, in 16-bit lanes of a
    /// `UInt64`). Both compute the same integers, so they give identical pixels
    /// (`RenderSIMDTests`). `KIOSK_COMPOSITOR=scalar` selects the scalar loops for a process.
    package enum Kernel: String, Sendable, CaseIterable {
        case simd, scalar

        /// From the environment (`KIOSK_COMPOSITOR=scalar`), else `simd`.
        package static let standard: Kernel = {
            guard let value = getenv("KIOSK_COMPOSITOR") else { return .simd }
            return Kernel(rawValue: String(cString: value)) ?? .simd
        }()
    }

    /// Copies `rect` from `source` to `target` (both the same size).
    static func copy(_ rect: PixelRect, from source: PixelBuffer, to target: PixelBuffer) {
        guard !rect.isEmpty else { return }
        let bytes = rect.width * 4
        for y in rect.y..<rect.maxY {
            let off = y * target.stride + rect.x * 4
            (target.pixels + off).copyMemory(from: source.pixels + y * source.stride + rect.x * 4, byteCount: bytes)
        }
    }

    /// Fills `rect` with 0x00RRGGBB `value`.
    static func fill(_ rect: PixelRect, with value: UInt32, in target: PixelBuffer) {
        guard !rect.isEmpty else { return }
        for y in rect.y..<rect.maxY {
            let row = (target.pixels + y * target.stride).assumingMemoryBound(to: UInt32.self) + rect.x
            row.update(repeating: value, count: rect.width)
        }
    }

    /// Fills `rect` (inside `target.bounds`) with 0x00RRGGBB `value`.
    static func fill(_ rect: PixelRect, with value: UInt32, in target: Rows) {
        guard !rect.isEmpty else { return }
        for y in rect.y..<rect.maxY { (target.row(y) + rect.x).update(repeating: value, count: rect.width) }
    }

    @inline(__always) static func expand(_ p: UInt32) -> UInt64 {
        let v = UInt64(p)
        return (v & 0x00FF_00FF) | ((v & 0xFF00_FF00) << 24)
    }

    @inline(__always) static func pack(_ e: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: (e & 0x00FF_00FF) | ((e >> 24) & 0xFF00_FF00))
    }

    static let laneMask: UInt64 = 0x00FF_00FF_00FF_00FF

    /// `s` (expanded, premultiplied) over destination pixel `d`.
    @inline(__always) static func over(_ s: UInt64, _ d: UInt32) -> UInt32 {
        let alpha = s >> 48
        if alpha >= 255 { return pack(s) }
        return pack(s &+ (((expand(d) &* (256 &- alpha)) >> 8) & laneMask))
    }

    /// Pixel rows in screen coordinates: pixel (x, y) at address `origin + 4·(y·pitch + x)`,
    /// read or written only inside `bounds`. A whole `PixelBuffer`, or a window of the screen
    /// kept in an allocation of the window's size (the still layer's box, `StillLayer`).
    struct Rows {
        /// The address pixel (0, 0) would have; outside the allocation for a window.
        var origin: Int
        /// Pixels from one row to the next.
        var pitch: Int
        var bounds: PixelRect

        init(_ buffer: PixelBuffer) {
            origin = Int(bitPattern: buffer.pixels)
            pitch = buffer.stride / 4
            bounds = buffer.bounds
        }

        /// `bounds` held in `window` (its top-left pixel first), `pitch` pixels a row.
        init(window: UnsafeMutableRawPointer, pitch: Int, bounds: PixelRect) {
            origin = Int(bitPattern: window) - 4 * (bounds.y * pitch + bounds.x)
            self.pitch = pitch
            self.bounds = bounds
        }

        /// Row `y`, indexed by screen x (valid inside `bounds` only).
        @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<UInt32> {
            UnsafeMutablePointer(bitPattern: origin &+ 4 &* y &* pitch)!
        }
    }

    /// What a frame restores under its first moving element: `rows` inside their bounds and,
    /// when `outside` is set, that one row (indexed by screen x) everywhere else: the still
    /// layer outside its box is the flat background colour.
    struct Base {
        var rows: Rows
        var outside: UnsafePointer<UInt32>?

        init(_ buffer: PixelBuffer) { (rows, outside) = (Rows(buffer), nil) }
        init(rows: Rows, outside: UnsafePointer<UInt32>?) { (self.rows, self.outside) = (rows, outside) }
    }

    /// Row `y` of a base: `inside` for x in `x0..<x1`, `outside` elsewhere (the same pointer
    /// when the base is one buffer).
    struct Under {
        var inside: UnsafePointer<UInt32>
        var outside: UnsafePointer<UInt32>
        var x0: Int
        var x1: Int

        @inline(__always) init(_ base: Base?, y: Int, dst: UnsafeMutablePointer<UInt32>) {
            guard let base else {
                (inside, outside, x0, x1) = (UnsafePointer(dst), UnsafePointer(dst), 0, 0)
                return
            }
            let b = base.rows.bounds
            let row = UnsafePointer(base.rows.row(y))
            guard let o = base.outside else {
                (inside, outside, x0, x1) = (row, row, 0, 0)
                return
            }
            if y >= b.y && y < b.maxY {
                (inside, outside, x0, x1) = (row, o, b.x, b.maxX)
            } else {
                (inside, outside, x0, x1) = (o, o, 0, 0)
            }
        }

        /// Calls `body` for the parts of `a..<b` with the row each reads from. Pixel loops are
        /// per pixel (a vector step computes what four single steps do), so a split changes
        /// no pixel.
        @inline(__always) func split(_ a: Int, _ b: Int, _ body: (Int, Int, UnsafePointer<UInt32>) -> Void) {
            guard b > a else { return }
            if inside == outside || (a >= x0 && b <= x1) {
                body(a, b, inside)
                return
            }
            let m0 = min(max(a, x0), b)
            let m1 = max(min(b, x1), m0)
            if m0 > a { body(a, m0, outside) }
            if m1 > m0 { body(m0, m1, inside) }
            if b > m1 { body(m1, b, outside) }
        }
    }

    /// Draws `source` at `placement` with `opacity` (0…1) over the screen inside `clip`.
    ///
    /// With `base`, every pixel of `clip` is written: where the image covers, `base` under
    /// the image; elsewhere a copy of `base` — so restoring the still layer and drawing the
    /// first moving element is one pass over memory. Without `base` it blends over `target`.
    /// Turned or scaled placements sample bilinearly.
    static func draw(
        _ source: ElementImage, at placement: Placement, opacity: Double, into target: PixelBuffer,
        base: PixelBuffer?, clip: PixelRect, hidden: Hidden? = nil, kernel: Kernel = .standard
    ) {
        draw(
            source, at: placement, opacity: opacity, into: Rows(target), base: base.map(Base.init), clip: clip,
            hidden: hidden, kernel: kernel)
    }

    /// `draw` into rows in screen coordinates (a whole buffer or a window of the screen) over
    /// a base that may be a window plus a flat colour. Pixels in `hidden` (covered opaquely by
    /// elements drawn later) are left as they are: not restored, not drawn. `bounds`: the
    /// image's `sampleBounds` when the caller has them (a compose in bands draws an image once a
    /// band), else they are measured here.
    static func draw(
        _ source: ElementImage, at placement: Placement, opacity: Double, into target: Rows, base: Base?,
        clip: PixelRect, hidden: Hidden? = nil, kernel: Kernel = .standard, bounds: SampleBounds? = nil
    ) {
        let simd = kernel == .simd
        let clip = clip.intersection(target.bounds)
        guard !clip.isEmpty else { return }
        let image = source.image
        let src = UnsafePointer(image.data.assumingMemoryBound(to: UInt32.self))
        let sw = image.stride / 4
        let op = UInt64(max(0, min(256, (opacity * 256).rounded())))
        let w = image.width
        let h = image.height
        let copying = base != nil
        // One row of sampled source pixels for the scalar kernel's turned placements.
        let scratch = UnsafeMutablePointer<UInt32>.allocate(
            capacity: placement.offset == nil && !simd ? clip.width : 0)
        defer { scratch.deallocate() }
        // Where the SIMD kernel's turned samples can be other than transparent.
        let content = simd && placement.offset == nil ? bounds ?? Self.sampleBounds(source) : nil
        let hidden = hidden ?? .none
        for y in clip.y..<clip.maxY {
            let dst = target.row(y)
            let under = Under(base, y: y, dst: dst)
            // The span of this row where the image has anything to draw.
            var x0 = clip.x
            var x1 = clip.maxX
            var extent = RowExtent.empty
            if let o = placement.offset {
                let sy = y - o.y
                if sy < 0 || sy >= h {
                    x1 = x0
                } else {
                    extent = source.rows[sy]
                    x0 = max(x0, o.x + Int(extent.first))
                    x1 = min(x1, o.x + Int(extent.end))
                }
            } else {
                let span = bilinearSpan(placement, y: y, width: w, height: h)
                x0 = max(x0, span.lowerBound)
                x1 = min(x1, span.upperBound)
            }
            if x1 <= x0 {
                if copying {
                    hidden.visible(y, clip.x, clip.maxX) { a, b in
                        under.split(a, b) { a, b, u in (dst + a).update(from: u + a, count: b - a) }
                    }
                }
                continue
            }
            if copying {
                hidden.visible(y, clip.x, x0) { a, b in
                    under.split(a, b) { a, b, u in (dst + a).update(from: u + a, count: b - a) }
                }
                hidden.visible(y, x1, clip.maxX) { a, b in
                    under.split(a, b) { a, b, u in (dst + a).update(from: u + a, count: b - a) }
                }
            }
            // The parts of x0..<x1 that show; a turned row's samples step from x0 in each.
            hidden.visible(y, x0, x1) { from, to in
                if let o = placement.offset {
                    let row = src + (y - o.y) * sw - o.x
                    if op >= 256 {
                        // Fully opaque run: a plain copy; the rest blends.
                        let a = min(max(from, o.x + Int(extent.opaqueFirst)), to)
                        let b = max(min(to, o.x + Int(extent.opaqueEnd)), a)
                        under.split(from, a) { p, q, u in blendRow(row, dst: dst, under: u, from: p, to: q, simd: simd)
                        }
                        (dst + a).update(from: row + a, count: b - a)
                        under.split(b, to) { p, q, u in blendRow(row, dst: dst, under: u, from: p, to: q, simd: simd) }
                    } else if simd {
                        under.split(from, to) { p, q, u in
                            fadeRowSIMD(row, dst: dst, under: u, from: p, to: q, opacity: op)
                        }
                    } else {
                        under.split(from, to) { p, q, u in
                            fadeRow(row, dst: dst, under: u, from: p, to: q, opacity: op)
                        }
                    }
                } else if simd {
                    // Sampled, faded and blended in one pass (`drawTurnedRowSIMD`).
                    drawTurnedRowSIMD(
                        src, stride: sw, runs: source.runs, placement, y: y, row: x0..<x1, dst: dst, under: under,
                        from: from, to: to, opacity: op >= 256 ? nil : op, content: content)
                } else {
                    let sampled = scratch - from
                    sampleRow(
                        src, stride: sw, runs: source.runs, placement, y: y, row: x0..<x1, into: sampled, from: from,
                        to: to, opacity: op >= 256 ? nil : op)
                    under.split(from, to) { p, q, u in
                        blendRow(UnsafePointer(sampled), dst: dst, under: u, from: p, to: q, simd: false)
                    }
                }
            }
        }
    }

    /// The screen pixels `draw` may write for `source` at `placement`: the image's rectangle
    /// for an offset, the bounding box of its turned corners (two pixels wider) otherwise.
    static func footprint(_ source: ElementImage, at p: Placement) -> PixelRect {
        let w = source.image.width
        let h = source.image.height
        if let o = p.offset { return PixelRect(x: o.x, y: o.y, width: w, height: h) }
        // Invert u = a·x + b·y + c, v = d·x + e·y + f at the image's corners.
        let det = p.a * p.e - p.b * p.d
        guard det.isFinite, abs(det) > 1e-12 else {
            return PixelRect(x: -(1 << 20), y: -(1 << 20), width: 1 << 21, height: 1 << 21)
        }
        var (minX, minY, maxX, maxY) = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
        for (u, v) in [(0.0, 0.0), (Double(w), 0), (0, Double(h)), (Double(w), Double(h))] {
            let x = (p.e * (u - p.c) - p.b * (v - p.f)) / det
            let y = (-p.d * (u - p.c) + p.a * (v - p.f)) / det
            (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
        }
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite, maxX - minX < 1e7, maxY - minY < 1e7 else {
            return PixelRect(x: -(1 << 20), y: -(1 << 20), width: 1 << 21, height: 1 << 21)
        }
        let x0 = Int(minX.rounded(.down)) - 2
        let y0 = Int(minY.rounded(.down)) - 2
        return PixelRect(
            x: x0, y: y0, width: Int(maxX.rounded(.up)) + 2 - x0, height: Int(maxY.rounded(.up)) + 2 - y0)
    }

    // Computed, not stored: a stored static is reached through swift_once on every use.
    @inline(__always) static var low4: SIMD4<UInt32> { SIMD4(repeating: 0x00FF_00FF) }
    @inline(__always) static var high4: SIMD4<UInt32> { SIMD4(repeating: 0xFF00_FF00) }

    /// Each 8-bit channel of four pixels times a 16-bit weight (0…256) per pixel (`w`: the
    /// weight in both 16-bit halves of the pixel's lane): B·w and R·w in `rb`, G·w and A·w in
    /// `ag`, one 16-bit lane each (an SSE2 `pmullw` / NEON `mul.8h` per pair). Sums of such
    /// products stay below 2^16 while the weights add up to at most 256.
    @inline(__always) static func scaled(_ p: SIMD4<UInt32>, _ w: SIMD8<UInt16>) -> (
        rb: SIMD8<UInt16>, ag: SIMD8<UInt16>
    ) {
        (
            unsafeBitCast(p & low4, to: SIMD8<UInt16>.self) &* w,
            unsafeBitCast((p &>> 8) & low4, to: SIMD8<UInt16>.self) &* w
        )
    }

    /// Every channel sum of `scaled` shifted down by 8 bits and packed back into pixels.
    @inline(__always) static func packed(_ rb: SIMD8<UInt16>, _ ag: SIMD8<UInt16>) -> SIMD4<UInt32> {
        unsafeBitCast(rb &>> 8, to: SIMD4<UInt32>.self) | (unsafeBitCast(ag, to: SIMD4<UInt32>.self) & high4)
    }

    /// A 0…256 weight per pixel in both 16-bit halves of its lane.
    @inline(__always) static func doubled(_ k: SIMD4<UInt32>) -> SIMD8<UInt16> {
        unsafeBitCast(k | (k &<< 16), to: SIMD8<UInt16>.self)
    }

    /// `row[x]` (premultiplied) over `under[x]` into `dst[x]` for x in x0..<x1. With `simd`,
    /// four pixels at a time in 16-bit lanes, the rest singly; the same integers either way.
    @inline(__always) static func blendRow(
        _ row: UnsafePointer<UInt32>, dst: UnsafeMutablePointer<UInt32>, under: UnsafePointer<UInt32>,
        from x0: Int, to x1: Int, simd: Bool
    ) {
        var x = x0
        while simd && x &+ 4 <= x1 {
            let s = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD4<UInt32>.self)
            let d = UnsafeRawPointer(under + x).loadUnaligned(as: SIMD4<UInt32>.self)
            // 256 − alpha per pixel (1 for an opaque one: d·1 >> 8 adds nothing).
            let (rb, ag) = scaled(d, doubled(SIMD4<UInt32>(repeating: 256) &- (s &>> 24)))
            UnsafeMutableRawPointer(dst + x).storeBytes(of: s &+ packed(rb, ag), as: SIMD4<UInt32>.self)
            x &+= 4
        }
        while x < x1 {
            let p = row[x]
            dst[x] = p >> 24 == 255 ? p : over(expand(p), under[x])
            x &+= 1
        }
    }

    @inline(__always) private static func fadeRow(
        _ row: UnsafePointer<UInt32>, dst: UnsafeMutablePointer<UInt32>, under: UnsafePointer<UInt32>,
        from x0: Int, to x1: Int, opacity op: UInt64
    ) {
        var x = x0
        while x < x1 {
            let p = row[x]
            dst[x] = p == 0 ? under[x] : over(((expand(p) &* op) >> 8) & laneMask, under[x])
            x += 1
        }
    }

    /// `fadeRow` four pixels at a time: the source faded, then blended (a transparent source
    /// pixel blends to `under` unchanged, as `fadeRow`'s shortcut gives).
    @inline(__always) private static func fadeRowSIMD(
        _ row: UnsafePointer<UInt32>, dst: UnsafeMutablePointer<UInt32>, under: UnsafePointer<UInt32>,
        from x0: Int, to x1: Int, opacity op: UInt64
    ) {
        var x = x0
        let w = SIMD8<UInt16>(repeating: UInt16(truncatingIfNeeded: op))
        while x &+ 4 <= x1 {
            let (frb, fag) = scaled(UnsafeRawPointer(row + x).loadUnaligned(as: SIMD4<UInt32>.self), w)
            let s = packed(frb, fag)
            let d = UnsafeRawPointer(under + x).loadUnaligned(as: SIMD4<UInt32>.self)
            let (rb, ag) = scaled(d, doubled(SIMD4<UInt32>(repeating: 256) &- (s &>> 24)))
            UnsafeMutableRawPointer(dst + x).storeBytes(of: s &+ packed(rb, ag), as: SIMD4<UInt32>.self)
            x &+= 4
        }
        fadeRow(row, dst: dst, under: under, from: x, to: x1, opacity: op)
    }

    /// `row[x]` faded by `op` (0…256) over `dst[x]`, in place, for x in x0..<x1: what `draw`
    /// writes for an unturned image over a target.
    @inline(never) static func blendInPlace(
        _ row: UnsafePointer<UInt32>, dst: UnsafeMutablePointer<UInt32>, from x0: Int, to x1: Int, opacity op: UInt64,
        kernel: Kernel
    ) {
        if op >= 256 {
            blendRow(row, dst: dst, under: UnsafePointer(dst), from: x0, to: x1, simd: kernel == .simd)
        } else if kernel == .simd {
            fadeRowSIMD(row, dst: dst, under: UnsafePointer(dst), from: x0, to: x1, opacity: op)
        } else {
            fadeRow(row, dst: dst, under: UnsafePointer(dst), from: x0, to: x1, opacity: op)
        }
    }

    /// The screen columns of row `y` whose sample point falls where all four bilinear taps
    /// lie inside the image (its one-pixel transparent border makes the rest transparent).
    /// A small safety margin keeps fixed-point stepping inside too.
    static func bilinearSpan(_ p: Placement, y: Int, width: Int, height: Int) -> Range<Int> {
        // u(x) = a·(x+0.5) + ub within [0.5, width - 0.5] (pixel centres of the image).
        span(
            p, y: y, u: (0.5 + 1e-3, Double(width) - 0.5 - 1e-3), v: (0.5 + 1e-3, Double(height) - 0.5 - 1e-3))
    }

    /// The screen columns of row `y` whose sample point (image coordinates, pixel centres at
    /// .5) lies within `u` and `v` (bounds included).
    static func span(_ p: Placement, y: Int, u: (min: Double, max: Double), v: (min: Double, max: Double))
        -> Range<Int>
    {
        let yc = Double(y) + 0.5
        var lo = -Double.infinity
        var hi = Double.infinity
        func limit(_ slope: Double, _ intercept: Double, _ minV: Double, _ maxV: Double) {
            if abs(slope) < 1e-12 {
                if intercept < minV || intercept > maxV { (lo, hi) = (1, 0) }
                return
            }
            var t0 = (minV - intercept) / slope
            var t1 = (maxV - intercept) / slope
            if t0 > t1 { swap(&t0, &t1) }
            lo = max(lo, t0)
            hi = min(hi, t1)
        }
        limit(p.a, p.b * yc + p.c, u.min, u.max)
        limit(p.d, p.e * yc + p.f, v.min, v.max)
        guard lo <= hi else { return 0..<0 }
        // x + 0.5 in [lo, hi]
        let first = Int(max(-1e9, (lo - 0.5).rounded(.up)))
        let last = Int(min(1e9, (hi - 0.5).rounded(.down)))
        return last >= first ? first..<(last + 1) : 0..<0
    }

    /// Part `x0..<x1` of one turned or scaled row `row`, sampled bilinearly with 8-bit weights
    /// into `out[x0..<x1]` (premultiplied), the samples stepping from the row's start. The span
    /// keeps every tap inside the image (checked at both ends; positions are linear in x).
    @inline(never) private static func sampleRow(
        _ src: UnsafePointer<UInt32>, stride sw: Int, runs: UnsafePointer<RowRun>, _ p: Placement, y: Int,
        row: Range<Int>, into out: UnsafeMutablePointer<UInt32>, from x0: Int, to x1: Int, opacity op: UInt64?
    ) {
        guard let start = rowStart(p, y: y, from: row.lowerBound, to: row.upperBound, at: x0) else {
            (out + x0).update(repeating: 0, count: x1 - x0)
            return
        }
        var (u, v) = (start.u, start.v)
        let (du, dv) = (start.du, start.dv)
        let base = UnsafeRawPointer(src)
        let rowBytes = sw &<< 2
        var x = x0
        while x < x1 {
            // Inside a band of identical rows (a card's gradient between its edges and text):
            // every tap is the band's colour until the samples leave the band, so fill that
            // many pixels at once. Identical to sampling them one by one.
            if let band = Self.bandRun(runs: runs, u: u, v: v, du: du, dv: dv, limit: x1 &- x) {
                let k = band.count
                if k >= 2 {
                    (out + x).update(repeating: band.color, count: k)
                    u &+= du &* k
                    v &+= dv &* k
                    x &+= k
                    continue
                }
            }
            // Byte offsets with wrapping arithmetic: the span check above keeps them inside.
            let at = (v >> 24) &* rowBytes &+ ((u >> 24) &<< 2)
            let p00 = base.load(fromByteOffset: at, as: UInt32.self)
            let p10 = base.load(fromByteOffset: at &+ 4, as: UInt32.self)
            let p01 = base.load(fromByteOffset: at &+ rowBytes, as: UInt32.self)
            let p11 = base.load(fromByteOffset: at &+ rowBytes &+ 4, as: UInt32.self)
            if (p00 ^ p10) | (p00 ^ p01) | (p00 ^ p11) == 0 {
                // Flat: no interpolation (most of a card's inside, all of its empty margin).
                out[x] = p00
            } else {
                let fx = UInt64(truncatingIfNeeded: (u >> 16) & 0xFF)
                let fy = UInt64(truncatingIfNeeded: (v >> 16) & 0xFF)
                let w11 = (fx &* fy) >> 8
                let w10 = fx &- w11
                let w01 = fy &- w11
                let w00 = 256 &- fx &- fy &+ w11
                if (p00 | p10 | p01 | p11) & 0x00FF_FFFF == 0 {
                    // Shadow only (premultiplied black): interpolate the alpha alone.
                    let a =
                        (UInt64(p00 >> 24) &* w00 &+ UInt64(p10 >> 24) &* w10 &+ UInt64(p01 >> 24) &* w01
                            &+ UInt64(p11 >> 24) &* w11) >> 8
                    out[x] = UInt32(truncatingIfNeeded: a) << 24
                } else {
                    let s = expand(p00) &* w00 &+ expand(p10) &* w10 &+ expand(p01) &* w01 &+ expand(p11) &* w11
                    out[x] = pack((s >> 8) & laneMask)
                }
            }
            u &+= du
            v &+= dv
            x &+= 1
        }
        if let op {
            for i in x0..<x1 { out[i] = pack(((expand(out[i]) &* op) >> 8) & laneMask) }
        }
    }
    /// One bilinear sample in 16-bit lanes of a `UInt64`: the four taps at byte offset `at`
    /// weighted by the fractions of `u` and `v` (24 fraction bits, 8 of them used).
    @inline(__always) static func sample(_ base: UnsafeRawPointer, at: Int, rowBytes: Int, u: Int, v: Int) -> UInt32 {
        let fx = UInt64(truncatingIfNeeded: (u >> 16) & 0xFF)
        let fy = UInt64(truncatingIfNeeded: (v >> 16) & 0xFF)
        let w11 = (fx &* fy) >> 8
        let s =
            expand(base.load(fromByteOffset: at, as: UInt32.self)) &* (256 &- fx &- fy &+ w11)
            &+ expand(base.load(fromByteOffset: at &+ 4, as: UInt32.self)) &* (fx &- w11)
            &+ expand(base.load(fromByteOffset: at &+ rowBytes, as: UInt32.self)) &* (fy &- w11)
            &+ expand(base.load(fromByteOffset: at &+ rowBytes &+ 4, as: UInt32.self)) &* w11
        return pack((s >> 8) & laneMask)
    }
}

/// Where one row of an element image has something to draw: non-transparent pixels lie in
/// `first..<end`, and `opaqueFirst..<opaqueEnd` is its longest fully opaque run (copied, not
/// blended, when drawn unturned).
struct RowExtent {
    var first: Int32
    var end: Int32
    var opaqueFirst: Int32
    var opaqueEnd: Int32

    static let empty = RowExtent(first: 0, end: 0, opaqueFirst: 0, opaqueEnd: 0)

    /// The extents of every row of an ARGB32 image: the first and last drawn pixel found from
    /// each end, the longest opaque run (the first of equal ones) looked for only between them.
    static func measure(_ image: CairoImage) -> [RowExtent] {
        let src = UnsafePointer(image.data.assumingMemoryBound(to: UInt32.self))
        let sw = image.stride / 4
        let w = image.width
        return (0..<image.height).map { y in
            let row = src + y * sw
            var first = 0
            while first < w && row[first] == 0 { first += 1 }
            guard first < w else { return .empty }
            var end = w
            while row[end - 1] == 0 { end -= 1 }
            var best = (0, 0)
            var x = first
            while x < end {
                while x < end && row[x] < 0xFF00_0000 { x += 1 }
                let start = x
                while x < end && row[x] >= 0xFF00_0000 { x += 1 }
                if x - start > best.1 - best.0 { best = (start, x) }
            }
            return RowExtent(
                first: Int32(first), end: Int32(end), opaqueFirst: Int32(best.0), opaqueEnd: Int32(best.1))
        }
    }
}

/// Bands of image rows that share one colour over a common run of columns (a vertical
/// gradient between a card's edges, away from its text), so turned rows can fill whole runs.
struct RowRun {
    /// Rows from this one downwards (`down`, through row `end`) or upwards (`up`, from row
    /// `end`) all hold `color` in columns `first..<last`.
    struct Band {
        var color: UInt32
        var first: Int32
        var last: Int32
        var end: Int32
    }

    var down: Band
    var up: Band

    /// The bands of every row of an ARGB32 image: each row's longest run of one value,
    /// joined with its neighbours while the colour matches and the common run stays at least
    /// nine tenths as wide.
    static func measure(_ image: CairoImage) -> [RowRun] {
        let src = UnsafePointer(image.data.assumingMemoryBound(to: UInt32.self))
        let sw = image.stride / 4
        let h = image.height
        let own: [Band] = (0..<h).map { y in
            let row = src + y * sw
            var best = (start: 0, end: 0)
            var start = 0
            for x in 1...image.width {
                if x == image.width || row[x] != row[start] {
                    if x - start > best.end - best.start { best = (start, x) }
                    start = x
                }
            }
            return Band(color: row[best.start], first: Int32(best.start), last: Int32(best.end), end: Int32(y))
        }
        return joined(own)
    }
}

extension Compositor {
    /// Inside a band of identical rows (a card's gradient between its edges and text) every tap
    /// is the band's colour until the samples leave it: how many of the next `limit` pixels,
    /// from the fixed-point position (u, v) stepping (du, dv), and the colour; nil outside one.
    @inline(__always)
    static func bandRun(
        runs: UnsafePointer<RowRun>, u: Int, v: Int, du: Int, dv: Int, limit: Int
    ) -> (count: Int, color: UInt32)? {
        let iy = v >> 24
        let ix = u >> 24
        let band = dv >= 0 ? runs[iy].down : runs[iy &+ 1].up
        let inRows = dv >= 0 ? iy &+ 1 <= Int(band.end) : iy >= Int(band.end)
        guard inRows && ix >= Int(band.first) && ix &+ 1 < Int(band.last) else { return nil }
        var k = limit
        if dv > 0 {
            k = min(k, ((Int(band.end) << 24) &- v &- 1) / dv &+ 1)
        } else if dv < 0 {
            k = min(k, (v &- (Int(band.end) << 24)) / (-dv) &+ 1)
        }
        if du > 0 {
            k = min(k, (((Int(band.last) &- 1) << 24) &- u &- 1) / du &+ 1)
        } else if du < 0 {
            k = min(k, (u &- (Int(band.first) << 24)) / (-du) &+ 1)
        }
        return (k, band.color)
    }

    /// Where a row's samples start and how they step, in fixed point with 24 fraction bits
    /// (positions relative to pixel centres); nil when an end of `x0..<x1` falls outside the
    /// image. Both ends inside ⇒ every position between is (the span's margin makes this hold).
    @inline(__always)
    static func rowStart(_ p: Placement, y: Int, from x0: Int, to x1: Int) -> (u: Int, v: Int, du: Int, dv: Int)? {
        let one = Double(1 << 24)
        let xc = Double(x0) + 0.5
        let yc = Double(y) + 0.5
        let u = roundedToInt((p.a * xc + p.b * yc + p.c - 0.5) * one)
        let v = roundedToInt((p.d * xc + p.e * yc + p.f - 0.5) * one)
        let du = roundedToInt(p.a * one)
        let dv = roundedToInt(p.d * one)
        let n = x1 - x0 - 1
        guard u >= 0, v >= 0, u + du * n >= 0, v + dv * n >= 0 else { return nil }
        return (u, v, du, dv)
    }

    /// `Int(x.rounded())` (to nearest, halves away from zero) without a call to libm's `round`,
    /// for which x86-64's baseline has no instruction (aarch64 has `frinta`): `rowStart` rounds
    /// four times a row of every turned image, ~1.5 % of an 800×480 drag frame's instructions.
    /// The same integer for every |x| < 2⁶³: `x − trunc(x)` is exact.
    @inline(__always) static func roundedToInt(_ x: Double) -> Int {
        let t = Int(x)
        let f = x - Double(t)
        return f >= 0.5 ? t &+ 1 : f <= -0.5 ? t &- 1 : t
    }

    /// `rowStart` of the row `x0..<x1`, advanced to its pixel `x`: a part of a row drawn alone
    /// samples where the whole row would.
    @inline(__always)
    static func rowStart(_ p: Placement, y: Int, from x0: Int, to x1: Int, at x: Int) -> (
        u: Int, v: Int, du: Int, dv: Int
    )? {
        guard let s = rowStart(p, y: y, from: x0, to: x1) else { return nil }
        return (s.u &+ s.du &* (x &- x0), s.v &+ s.dv &* (x &- x0), s.du, s.dv)
    }
}
