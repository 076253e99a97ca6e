extension Compositor.Under {
    /// The part of `x..<end` that reads from one row: up to where the row changes (the still
    /// layer's box edge), and that row.
    @inline(__always) func segment(from x: Int, to end: Int) -> (end: Int, row: UnsafePointer<UInt32>) {
        if inside == outside { return (end, inside) }
        if x < x0 { return (min(end, x0), outside) }
        if x < x1 { return (min(end, x1), inside) }
        return (end, outside)
    }
}

extension Compositor {
    /// The SIMD kernel's turned or scaled row, in one pass: sampled bilinearly four pixels at a
    /// time, faded and blended over `under` straight into `dst[x0..<x1]`, with no row of
    /// samples in between.
    ///
    /// It computes the integers the scalar kernel's two passes do (`sampleRow`, then
    /// `blendRow`), so the pixels are identical (`RenderSIMDTests`):
    /// - the samples step from one start per row (`rowStart`), across the still layer's box edge
    ///   too (`Under.segment` splits only where `under` is read);
    /// - each tap and its right neighbour are one 64-bit load, regrouped by shuffles; the
    ///   weights and every channel's weighted sum are 16-bit lanes (`scaled`, `packed`);
    /// - a pixel of alpha 255 blends to itself (`d·(256 − 255) >> 8 = 0`): four opaque samples,
    ///   or an opaque run of a band, are stored without reading `under`; a transparent run
    ///   blends to `under` unchanged, a copy.
    @inline(never) static func drawTurnedRowSIMD(
        _ src: UnsafePointer<UInt32>, stride sw: Int, runs: UnsafePointer<RowRun>, _ p: Placement, y: Int,
        row: Range<Int>, dst: UnsafeMutablePointer<UInt32>, under: Under, from x0: Int, to x1: Int,
        opacity op: UInt64?, content: SampleBounds?
    ) {
        // `x0..<x1` is the part of the row `row` drawn (the rest hidden under an opaque element
        // drawn later, `Compositor.Hidden`); its samples step from the row's start.
        guard let start = rowStart(p, y: y, from: row.lowerBound, to: row.upperBound, at: x0) else {
            // Every sample transparent: the row blends to what is under it.
            copyUnder(under, to: dst, from: x0, to: x1)
            return
        }
        var (u, v) = (start.u, start.v)
        let (du, dv) = (start.du, start.dv)
        // Samples whose taps all miss the image's drawn pixels are transparent: what is under
        // them shows unchanged. Only the columns between are sampled, stepped from x0 as the
        // whole row would be.
        var x1 = x1
        var x = x0
        if let content {
            let inner = span(p, y: y, u: content.u, v: content.v)
            let s0 = min(max(x0, inner.lowerBound), x1)
            let s1 = max(min(x1, inner.upperBound), s0)
            copyUnder(under, to: dst, from: x0, to: s0)
            copyUnder(under, to: dst, from: s1, to: x1)
            u &+= du &* (s0 &- x0)
            v &+= dv &* (s0 &- x0)
            (x, x1) = (s0, s1)
        }
        let base = UnsafeRawPointer(src)
        let rowBytes = sw &<< 2
        let full = SIMD8<UInt16>(repeating: 256)
        let fade = SIMD8<UInt16>(repeating: UInt16(truncatingIfNeeded: op ?? 256))
        // The low 32 bits of 0, 1, 2 and 3 steps.
        let steps = SIMD4<UInt32>(0, 1, 2, 3)
        let duSteps = steps &* UInt32(truncatingIfNeeded: du)
        let dvSteps = steps &* UInt32(truncatingIfNeeded: dv)
        let du3 = du &* 3
        let dv3 = dv &* 3
        while x < x1 {
            let (end, row) = under.segment(from: x, to: x1)
            // Bands are looked for where one can begin: at the segment's start, after a band run
            // and after a flat group (a band's inside samples flat). Next to a group whose taps
            // differ the check rarely succeeds; a band entered there starts a group later (the
            // group sampled instead gives the same pixels).
            var lookForBand = true
            while x < end {
                if lookForBand, let band = Self.bandRun(runs: runs, u: u, v: v, du: du, dv: dv, limit: end &- x),
                    band.count >= 2
                {
                    let k = band.count
                    var c = band.color
                    if let op { c = pack(((expand(c) &* op) >> 8) & laneMask) }
                    if c >> 24 == 255 {
                        (dst + x).update(repeating: c, count: k)
                    } else if c == 0 {
                        copyRun(row, to: dst, from: x, to: x &+ k)
                    } else {
                        blendConstant(c, dst: dst, under: row, from: x, to: x &+ k)
                    }
                    u &+= du &* k
                    v &+= dv &* k
                    x &+= k
                    continue
                }
                if x &+ 4 > end {
                    // The last one to three pixels of the segment, one at a time.
                    var s = sample(base, at: (v >> 24) &* rowBytes &+ ((u >> 24) &<< 2), rowBytes: rowBytes, u: u, v: v)
                    if let op { s = pack(((expand(s) &* op) >> 8) & laneMask) }
                    dst[x] = s >> 24 == 255 ? s : over(expand(s), row[x])
                    u &+= du
                    v &+= dv
                    x &+= 1
                    continue
                }
                // Four pixels' taps: p00 (column ⌊u⌋, row ⌊v⌋), its right neighbour p10, and the
                // two below them (p01, p11).
                let ix = u >> 24
                let iy = v >> 24
                let u3 = u &+ du3
                let v3 = v &+ dv3
                let at = iy &* rowBytes &+ (ix &<< 2)
                let p00: SIMD4<UInt32>
                let p10: SIMD4<UInt32>
                let p01: SIMD4<UInt32>
                let p11: SIMD4<UInt32>
                if (u3 >> 24) &- ix == 3 && v3 >> 24 == iy {
                    // One image row, columns ⌊u⌋ + 0…3 (the positions step monotonically, so a
                    // step of 3 over three steps is 1 each): four 16-byte loads, no regrouping.
                    p00 = base.loadUnaligned(fromByteOffset: at, as: SIMD4<UInt32>.self)
                    p10 = base.loadUnaligned(fromByteOffset: at &+ 4, as: SIMD4<UInt32>.self)
                    p01 = base.loadUnaligned(fromByteOffset: at &+ rowBytes, as: SIMD4<UInt32>.self)
                    p11 = base.loadUnaligned(fromByteOffset: at &+ rowBytes &+ 4, as: SIMD4<UInt32>.self)
                } else {
                    // Each pixel's top pair (tap and right neighbour) and bottom pair, one 64-bit
                    // load each, regrouped.
                    let u1 = u &+ du
                    let u2 = u1 &+ du
                    let v1 = v &+ dv
                    let v2 = v1 &+ dv
                    let a1 = (v1 >> 24) &* rowBytes &+ ((u1 >> 24) &<< 2)
                    let a2 = (v2 >> 24) &* rowBytes &+ ((u2 >> 24) &<< 2)
                    let a3 = (v3 >> 24) &* rowBytes &+ ((u3 >> 24) &<< 2)
                    let top01 = SIMD4<UInt32>(
                        lowHalf: base.loadUnaligned(fromByteOffset: at, as: SIMD2<UInt32>.self),
                        highHalf: base.loadUnaligned(fromByteOffset: a1, as: SIMD2<UInt32>.self))
                    let top23 = SIMD4<UInt32>(
                        lowHalf: base.loadUnaligned(fromByteOffset: a2, as: SIMD2<UInt32>.self),
                        highHalf: base.loadUnaligned(fromByteOffset: a3, as: SIMD2<UInt32>.self))
                    let bottom01 = SIMD4<UInt32>(
                        lowHalf: base.loadUnaligned(fromByteOffset: at &+ rowBytes, as: SIMD2<UInt32>.self),
                        highHalf: base.loadUnaligned(fromByteOffset: a1 &+ rowBytes, as: SIMD2<UInt32>.self))
                    let bottom23 = SIMD4<UInt32>(
                        lowHalf: base.loadUnaligned(fromByteOffset: a2 &+ rowBytes, as: SIMD2<UInt32>.self),
                        highHalf: base.loadUnaligned(fromByteOffset: a3 &+ rowBytes, as: SIMD2<UInt32>.self))
                    p00 = SIMD4<UInt32>(lowHalf: top01.evenHalf, highHalf: top23.evenHalf)
                    p10 = SIMD4<UInt32>(lowHalf: top01.oddHalf, highHalf: top23.oddHalf)
                    p01 = SIMD4<UInt32>(lowHalf: bottom01.evenHalf, highHalf: bottom23.evenHalf)
                    p11 = SIMD4<UInt32>(lowHalf: bottom01.oddHalf, highHalf: bottom23.oddHalf)
                }
                let (uStart, vStart) = (u, v)
                u = u3 &+ du
                v = v3 &+ dv
                var s: SIMD4<UInt32>
                // Each pixel's left taps equal its right ones (inside a row of flat pixels).
                let level = (p00 .== p10) .& (p01 .== p11)
                let alike = level .& (p00 .== p01)
                // A band can begin where the last pixel's taps are alike.
                lookForBand = alike[3]
                if all(alike) {
                    if all(p00 .== 0) {
                        // Four transparent samples (a card's clear margin, a stamp's inside),
                        // faded or not: what is under them shows unchanged.
                        if row != UnsafePointer(dst) {
                            UnsafeMutableRawPointer(dst + x).storeBytes(
                                of: UnsafeRawPointer(row + x).loadUnaligned(as: SIMD4<UInt32>.self),
                                as: SIMD4<UInt32>.self)
                        }
                        x &+= 4
                        continue
                    }
                    // Four flat pixels (a card's inside): each one's taps are alike, and
                    // (c·Σ wᵢ) >> 8 = c.
                    s = p00
                } else if all(level) {
                    // Four pixels whose taps change only from the upper row to the lower (a
                    // card's vertical gradient): w00 + w10 = 256 − fy and w01 + w11 = fy, so two
                    // products give the four's exact sums (every product and sum fits 16 bits).
                    let fyy = fractions(vStart, dvSteps)
                    let t = scaled(p00, full &- fyy)
                    let b = scaled(p01, fyy)
                    s = packed(t.rb &+ b.rb, t.ag &+ b.ag)
                } else {
                    let fxx = fractions(uStart, duSteps)
                    let fyy = fractions(vStart, dvSteps)
                    let w11 = (fxx &* fyy) &>> 8
                    let w00 = full &- fxx &- fyy &+ w11
                    let w10 = fxx &- w11
                    let w01 = fyy &- w11
                    if all((p00 | p10 | p01 | p11) & 0x00FF_FFFF .== 0) {
                        // Shadow only (premultiplied black): the alpha alone is weighed, in the
                        // low 16-bit half of each lane (the high half is 0·w).
                        let a =
                            unsafeBitCast(p00 &>> 24, to: SIMD8<UInt16>.self) &* w00
                            &+ unsafeBitCast(p10 &>> 24, to: SIMD8<UInt16>.self) &* w10
                            &+ unsafeBitCast(p01 &>> 24, to: SIMD8<UInt16>.self) &* w01
                            &+ unsafeBitCast(p11 &>> 24, to: SIMD8<UInt16>.self) &* w11
                        s = (unsafeBitCast(a, to: SIMD4<UInt32>.self) &<< 16) & 0xFF00_0000
                    } else {
                        let t0 = scaled(p00, w00)
                        let t1 = scaled(p10, w10)
                        let b0 = scaled(p01, w01)
                        let b1 = scaled(p11, w11)
                        s = packed(t0.rb &+ t1.rb &+ b0.rb &+ b1.rb, t0.ag &+ t1.ag &+ b0.ag &+ b1.ag)
                    }
                }
                if op != nil {
                    let (rb, ag) = scaled(s, fade)
                    s = packed(rb, ag)
                }
                let alpha = s &>> 24
                if !all(alpha .== 255) {
                    let d = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD4<UInt32>.self)
                    let (rb, ag) = scaled(d, doubled(SIMD4<UInt32>(repeating: 256) &- alpha))
                    s &+= packed(rb, ag)
                }
                UnsafeMutableRawPointer(dst + x).storeBytes(of: s, as: SIMD4<UInt32>.self)
                x &+= 4
            }
        }
    }

    /// The 8-bit fractions (bits 16…23) of four positions, `start` plus 0…3 steps (`steps`: their
    /// low 32 bits, which step exactly modulo 2³²), in both 16-bit halves of each lane.
    @inline(__always) static func fractions(_ start: Int, _ steps: SIMD4<UInt32>) -> SIMD8<UInt16> {
        let f = (SIMD4<UInt32>(repeating: UInt32(truncatingIfNeeded: start)) &+ steps) & 0x00FF_0000
        return unsafeBitCast(f | (f &>> 16), to: SIMD8<UInt16>.self)
    }

    /// Where the sample point of a turned image must lie for any of its four taps to be a drawn
    /// (non-transparent) pixel, with a pixel to spare for rounding: image coordinates, pixel
    /// centres at .5. A sample's taps are columns ⌊u − ½⌋ and the next, rows ⌊v − ½⌋ and the next.
    struct SampleBounds {
        var u: (min: Double, max: Double)
        var v: (min: Double, max: Double)
    }

    /// The bounds of `image`'s drawn pixels (its rows' extents) for `drawTurnedRowSIMD`; nil when
    /// it has none (every sample is transparent; the span check already gives that).
    static func sampleBounds(_ image: ElementImage) -> SampleBounds? {
        var (minX, maxX, minY, maxY) = (Int.max, Int.min, Int.max, Int.min)
        for y in 0..<image.image.height {
            let e = image.rows[y]
            guard e.end > e.first else { continue }
            (minX, maxX) = (min(minX, Int(e.first)), max(maxX, Int(e.end)))
            (minY, maxY) = (min(minY, y), y &+ 1)
        }
        guard minX < maxX else { return nil }
        // Drawn columns minX..<maxX: some tap is one when ⌊u − ½⌋ is in minX − 1 ... maxX − 1,
        // i.e. u in [minX − ½, maxX + ½); one more pixel either side.
        return SampleBounds(
            u: (Double(minX) - 1.5, Double(maxX) + 1.5), v: (Double(minY) - 1.5, Double(maxY) + 1.5))
    }

    /// `under` into `dst[x0..<x1]`, row by row of its segments (nothing where they are the same
    /// pixels).
    @inline(__always) static func copyUnder(
        _ under: Under, to dst: UnsafeMutablePointer<UInt32>, from x0: Int, to x1: Int
    ) {
        var x = x0
        while x < x1 {
            let (end, row) = under.segment(from: x, to: x1)
            copyRun(row, to: dst, from: x, to: end)
            x = end
        }
    }

    /// `row[x0..<x1]` into `dst` (nothing when they are the same pixels).
    @inline(__always) static func copyRun(
        _ row: UnsafePointer<UInt32>, to dst: UnsafeMutablePointer<UInt32>, from x0: Int, to x1: Int
    ) {
        guard x1 > x0, row != UnsafePointer(dst) else { return }
        (dst + x0).update(from: row + x0, count: x1 - x0)
    }

    /// One translucent premultiplied colour `c` over `under[x]` into `dst[x]` for x in
    /// x0..<x1: `blendRow` with every source pixel `c`.
    static func blendConstant(
        _ c: UInt32, dst: UnsafeMutablePointer<UInt32>, under: UnsafePointer<UInt32>, from x0: Int, to x1: Int
    ) {
        let s = SIMD4<UInt32>(repeating: c)
        let w = doubled(SIMD4<UInt32>(repeating: 256 &- (c >> 24)))
        var x = x0
        while x &+ 4 <= x1 {
            let (rb, ag) = scaled(UnsafeRawPointer(under + x).loadUnaligned(as: SIMD4<UInt32>.self), w)
            UnsafeMutableRawPointer(dst + x).storeBytes(of: s &+ packed(rb, ag), as: SIMD4<UInt32>.self)
            x &+= 4
        }
        let e = expand(c)
        while x < x1 {
            dst[x] = over(e, under[x])
            x &+= 1
        }
    }
}
