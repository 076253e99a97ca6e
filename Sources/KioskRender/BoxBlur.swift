import Glibc

/// A Gaussian blur approximated by three box blurs per axis (W. Jarosz, "Fast image
/// convolutions"), linear in the pixel count whatever the radius; edges read as transparent.
///
/// Every pass is a box of `2r + 1` samples rounded to the nearest byte, first along the rows,
/// then down the columns: `out = (Σ + r) / (2r + 1)`, zeros beyond the edges. The passes are
/// computed so that this costs a few instructions per pixel:
/// - the column passes run along the rows, sixteen columns at a time in SIMD vectors (SSE2 on
///   x86-64, NEON on aarch64), each column's running sum in a 16-bit lane, never reading
///   memory a column apart;
/// - the division by `2r + 1` is a multiplication by a reciprocal, checked exact for every sum
///   the pass can meet (`Divisor`);
/// - a row equal to the row above it (most rows of a card's outline) is not blurred again
///   along its length: it gets the row above's result;
/// - of a run of equal rows longer than twice the passes' reach only `2·reach + 2` rows go
///   down the columns (on a 1080p card about a sixth of its rows): the rest of the run comes
///   out as its middle row.
///
/// The bytes are exactly those of the plain per-pixel running sum (`RenderShadowTests`
/// compares them with that reference on noise and outlines at many radii).
enum BoxBlur {
    /// Box radii whose three passes approximate a Gaussian of `sigma` pixels.
    static func radii(sigma: Double) -> [Int] {
        guard sigma > 0.5 else { return [] }
        let n = 3.0
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var wl = Int(ideal.rounded(.down))
        if wl % 2 == 0 { wl -= 1 }
        let wu = wl + 2
        let mIdeal = (12 * sigma * sigma - n * Double(wl * wl) - 4 * n * Double(wl) - 3 * n) / (-4 * Double(wl) - 4)
        let m = Int(mIdeal.rounded())
        return (0..<3).map { i in ((i < m ? wl : wu) - 1) / 2 }
    }

    /// Blurs an 8-bit alpha image in place.
    static func gaussian(_ data: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, sigma: Double) {
        let passes = radii(sigma: sigma).filter { $0 > 0 }.map(Divisor.init(radius:))
        guard !passes.isEmpty, width > 0, height > 0 else { return }
        // Beyond a box 201 pixels wide (σ ≈ 58 px) the 16-bit reciprocal is not exact.
        guard passes.allSatisfy(\.isExact) else {
            plainGaussian(data, width: width, height: height, stride: stride, radii: passes.map(\.radius))
            return
        }
        // A run of equal rows longer than the passes reach (the middle of a card's outline)
        // goes down the columns as `2·reach + 2` rows: every row of it further than the reach
        // from its ends comes out as the row in the middle of those.
        let reach = passes.reduce(0) { $0 + $1.radius }
        var same = [Bool](repeating: false, count: height)
        var run = (start: 0, end: 0)
        var start = 0
        for y in 0...height {
            if y > 0, y < height, memcmp(data + y * stride, data + (y - 1) * stride, width) == 0 {
                same[y] = true
                continue
            }
            if y - start > run.end - run.start { run = (start, y) }
            start = y
        }
        let kept = 2 * reach + 2
        let dropped = max(0, run.end - run.start - kept)
        // Rows from `cut` on move up by `dropped`; `middle` stands for the rows left out.
        let cut = run.start + reach + 1
        let middle = run.start + reach
        let rowsBlurred = height - dropped
        // Column passes work in buffers whose rows are whole 16-byte vectors (zero beyond `width`).
        let vectors = (width + 15) / 16
        let rowBytes = vectors * 16
        let a = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * rowsBlurred, alignment: 16)
        let b = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * rowsBlurred, alignment: 16)
        let zero = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
        let sums = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * 2, alignment: 16)
        let rows = RowPasses(width: width, passes: passes)
        defer {
            a.deallocate()
            b.deallocate()
            zero.deallocate()
            sums.deallocate()
            rows.deallocate()
        }
        zero.initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes)
        for c in 0..<rowsBlurred {
            let y = c < cut ? c : c + dropped
            let out = (a + c * rowBytes).assumingMemoryBound(to: UInt8.self)
            // A row equal to the one above (for the first row after the cut: to the run's).
            if c > 0, same[y] {
                memcpy(out, out - rowBytes, rowBytes)
            } else {
                rows.blur(data + y * stride, into: out, padTo: rowBytes)
            }
        }
        var from = a
        var to = b
        for pass in passes {
            columnPass(
                from: from, to: to, zero: zero, sums: sums, vectors: vectors, height: rowsBlurred, rowBytes: rowBytes,
                pass: pass)
            swap(&from, &to)
        }
        for y in 0..<height {
            let c = y < cut ? y : y < cut + dropped ? middle : y - dropped
            memcpy(data + y * stride, from + c * rowBytes, width)
        }
    }

    /// Division by a box's width `2r + 1` of the rounded sums `Σ + r` a pass can meet
    /// (`Σ ≤ 255·(2r + 1)`): the high half of `n · multiplier` (16 × 16 bits, one `pmulhuw` /
    /// `umull` per eight lanes) shifted right by `shift`.
    struct Divisor {
        let radius: Int
        let width: Int
        let multiplier: UInt16
        let shift: UInt16
        /// Whether that gives exactly `n / width` for every such n (checked here, once per
        /// width); otherwise the blur takes the plain path.
        let isExact: Bool

        init(radius: Int) {
            self.radius = radius
            width = 2 * radius + 1
            let largest = 255 * width + radius
            // The most precise multiplier that fits 16 bits: ⌈2^(16 + shift) / width⌉.
            var shift = 0
            while shift < 15, ((1 << (17 + shift)) + width - 1) / width < 1 << 16 { shift += 1 }
            let multiplier = ((1 << (16 + shift)) + width - 1) / width
            var exact = largest < 1 << 16 && multiplier < 1 << 16
            if exact {
                for n in 0...largest where (n * multiplier) >> (16 + shift) != n / width {
                    exact = false
                    break
                }
            }
            self.multiplier = UInt16(truncatingIfNeeded: multiplier)
            self.shift = UInt16(shift)
            isExact = exact
        }

        /// `n / width` for one sum.
        @inline(__always) func divide(_ n: UInt32) -> UInt32 {
            (n &* UInt32(multiplier)) >> (16 + UInt32(shift))
        }
    }

    /// The three row passes of one row, with their scratch lines (one allocation per blur).
    private struct RowPasses {
        let width: Int
        let passes: [Divisor]
        /// The row between passes, padded to whole vectors.
        let line: UnsafeMutablePointer<UInt8>
        /// Running sums, 16 bits wrapping (a box's sum, a difference of two, is below 2^16).
        let prefix: UnsafeMutablePointer<UInt16>

        init(width: Int, passes: [Divisor]) {
            self.width = width
            self.passes = passes
            let reach = passes.map(\.radius).max() ?? 0
            line = .allocate(capacity: width + 8)
            prefix = .allocate(capacity: width + 2 * reach + 9)
        }

        func deallocate() {
            line.deallocate()
            prefix.deallocate()
        }

        /// Blurs `source` (`width` bytes) along its length into `out`, zero-filled up to `padTo`.
        func blur(_ source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, padTo: Int) {
            memcpy(line, source, width)
            for pass in passes {
                // prefix[k] = Σ of the samples before index k − r (zeros outside the line), so
                // the box around i is prefix[i + 2r + 1] − prefix[i].
                let r = pass.radius
                var sum: UInt16 = 0
                for k in 0...r { prefix[k] = 0 }
                for i in 0..<width {
                    sum &+= UInt16(line[i])
                    prefix[i + r + 1] = sum
                }
                for k in (width + r + 1)..<(width + 2 * r + 9) { prefix[k] = sum }
                // Eight at a time; the last vector's extra lanes land in `line`'s padding.
                let half = SIMD8<UInt16>(repeating: UInt16(r))
                let raw = UnsafeRawPointer(prefix)
                for i in Swift.stride(from: 0, to: width, by: 8) {
                    let high = raw.loadUnaligned(fromByteOffset: 2 * (i + 2 * r + 1), as: SIMD8<UInt16>.self)
                    let low = raw.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<UInt16>.self)
                    let q = BoxBlur.divide(high &- low &+ half, pass)
                    UnsafeMutableRawPointer(line + i).storeBytes(
                        of: SIMD8<UInt8>(truncatingIfNeeded: q), as: SIMD8<UInt8>.self)
                }
            }
            memcpy(out, line, width)
            memset(out + width, 0, padTo - width)
        }
    }

    /// One box pass down the columns, `from` → `to` (rows `rowBytes` apart, whole vectors):
    /// each column's running sum lives in a 16-bit lane, even and odd columns of a 16-byte
    /// vector in two `SIMD8<UInt16>` (a load's bytes split by mask and shift, no widening).
    private static func columnPass(
        from: UnsafeMutableRawPointer, to: UnsafeMutableRawPointer, zero: UnsafeMutableRawPointer,
        sums: UnsafeMutableRawPointer, vectors: Int, height: Int, rowBytes: Int, pass: Divisor
    ) {
        let r = pass.radius
        let low = SIMD8<UInt16>(repeating: 0x00FF)
        // Σ of rows 0…r (rows beyond the image are zero).
        for v in 0..<vectors {
            var even = SIMD8<UInt16>(repeating: 0)
            var odd = SIMD8<UInt16>(repeating: 0)
            for y in 0...min(r, height - 1) {
                let p = (from + y * rowBytes + v * 16).load(as: SIMD8<UInt16>.self)
                even &+= p & low
                odd &+= p &>> 8
            }
            (sums + v * 32).storeBytes(of: even, as: SIMD8<UInt16>.self)
            (sums + v * 32 + 16).storeBytes(of: odd, as: SIMD8<UInt16>.self)
        }
        let half = SIMD8<UInt16>(repeating: UInt16(r))
        for y in 0..<height {
            let out = to + y * rowBytes
            let entering = y + r + 1 < height ? from + (y + r + 1) * rowBytes : zero
            let leaving = y - r >= 0 ? from + (y - r) * rowBytes : zero
            for v in 0..<vectors {
                let o = v * 16
                var even = (sums + v * 32).load(as: SIMD8<UInt16>.self)
                var odd = (sums + v * 32 + 16).load(as: SIMD8<UInt16>.self)
                let q = divide(even &+ half, pass) | divide(odd &+ half, pass) &<< 8
                (out + o).storeBytes(of: q, as: SIMD8<UInt16>.self)
                let e = (entering + o).load(as: SIMD8<UInt16>.self)
                let l = (leaving + o).load(as: SIMD8<UInt16>.self)
                even = even &+ (e & low) &- (l & low)
                odd = odd &+ (e &>> 8) &- (l &>> 8)
                (sums + v * 32).storeBytes(of: even, as: SIMD8<UInt16>.self)
                (sums + v * 32 + 16).storeBytes(of: odd, as: SIMD8<UInt16>.self)
            }
        }
    }

    /// `n / width` per lane (each n ≤ 255·width + r, so each quotient fits a byte).
    @inline(__always) fileprivate static func divide(_ n: SIMD8<UInt16>, _ pass: Divisor) -> SIMD8<UInt16> {
        let product = SIMD8<UInt32>(truncatingIfNeeded: n) &* SIMD8<UInt32>(repeating: UInt32(pass.multiplier))
        return SIMD8<UInt16>(truncatingIfNeeded: product &>> 16) &>> SIMD8<UInt16>(repeating: pass.shift)
    }

    /// The same passes one pixel at a time, for boxes too wide for 16-bit sums.
    private static func plainGaussian(
        _ data: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, radii: [Int]
    ) {
        let n = max(width, height)
        let line = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: n)
        defer {
            line.deallocate()
            out.deallocate()
        }
        for y in 0..<height {
            for r in radii { plainPass(data + y * stride, step: 1, count: width, radius: r, line: line, out: out) }
        }
        for x in 0..<width {
            for r in radii { plainPass(data + x, step: stride, count: height, radius: r, line: line, out: out) }
        }
    }

    /// One box pass along a line of `count` samples `step` bytes apart.
    private static func plainPass(
        _ p: UnsafeMutablePointer<UInt8>, step: Int, count: Int, radius r: Int,
        line: UnsafeMutablePointer<UInt8>, out: UnsafeMutablePointer<UInt8>
    ) {
        for i in 0..<count { line[i] = p[i * step] }
        let width = 2 * r + 1
        var sum = 0
        for i in 0...min(r, count - 1) { sum += Int(line[i]) }
        for i in 0..<count {
            out[i] = UInt8((sum + width / 2) / width)
            let add = i + r + 1
            if add < count { sum += Int(line[add]) }
            let sub = i - r
            if sub >= 0 { sum -= Int(line[sub]) }
        }
        for i in 0..<count { p[i * step] = out[i] }
    }
}
