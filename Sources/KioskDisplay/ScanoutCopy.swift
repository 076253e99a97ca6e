import Glibc
import KioskSystem

/// Copies the damaged part of a frame composed in ordinary memory into a scanout buffer,
/// turning it by a `Rotation` and converting it to the buffer's `PixelFormat` on the way. Pure
/// (pointers in, pixels out) and on the frame path.
///
/// It only writes to the destination, never reads it: scanout buffers are often
/// write-combined or uncached memory where reads are very slow. The destination is reached
/// through `ScanoutDestination`, which has stores and no load. For 0° XRGB8888 whole rows go
/// through `memcpy`; for 90°/270° the copy walks square tiles so the source's column reads stay
/// in cache and each destination row gets one run of consecutive stores. RGB565 is ordered
/// (4×4 Bayer) dithered by the source pixel's position, so a frame and its copy under any
/// rotation dither alike and the damage of one frame meets the last without a seam.
package enum ScanoutCopy {
    /// Tile edge for the quarter turns: 16 pixels of XRGB8888 are one 64-byte cache line.
    static let tile = 16

    /// Where the logical rectangle `r` lands on the panel (in physical pixels), for a frame
    /// of `logicalWidth`×`logicalHeight` turned by `rotation` (the pixel form of
    /// `Rotation.toPhysical`).
    package static func physicalRect(_ r: PixelRect, rotation: Rotation, logicalWidth: Int, logicalHeight: Int)
        -> PixelRect
    {
        switch rotation {
        case .deg0: r
        case .deg90: PixelRect(x: logicalHeight - r.y - r.height, y: r.x, width: r.height, height: r.width)
        case .deg180:
            PixelRect(
                x: logicalWidth - r.x - r.width, y: logicalHeight - r.y - r.height, width: r.width, height: r.height)
        case .deg270: PixelRect(x: r.y, y: logicalWidth - r.x - r.width, width: r.height, height: r.width)
        }
    }

    /// Bytes `copy` writes for `damage` of a frame in `format` (what the memory bus carries).
    package static func bytesWritten(damage: PixelRect, format: PixelFormat) -> Int {
        damage.isEmpty ? 0 : damage.width * damage.height * format.bytesPerPixel
    }

    /// Copies `damage` of `frame` into `destination`, a buffer of the panel's (physical) size
    /// in `format` with rows `destinationStride` bytes apart. `damage` is clipped to the frame.
    package static func copy(
        _ frame: PixelBuffer, damage: PixelRect, rotation: Rotation, format: PixelFormat = .xrgb8888,
        to destination: UnsafeMutableRawPointer, destinationStride: Int
    ) {
        copy(
            from: UnsafeRawPointer(frame.pixels), sourceStride: frame.stride,
            logicalWidth: frame.width, logicalHeight: frame.height, damage: damage, rotation: rotation,
            format: format, to: destination, destinationStride: destinationStride)
    }

    /// Copies `damage` of an XRGB8888 image (`logicalWidth`×`logicalHeight`, rows `sourceStride`
    /// bytes apart) into `destination` (the image's size turned by `rotation`, in `format`, rows
    /// `destinationStride` bytes apart). Strides are multiples of 4 (source) and of the
    /// format's pixel size (destination). The source is read only inside `damage`, so it may be
    /// a band of the image addressed from where its pixel (0, 0) would be.
    package static func copy(
        from source: UnsafeRawPointer, sourceStride: Int, logicalWidth: Int, logicalHeight: Int,
        damage: PixelRect, rotation: Rotation, format: PixelFormat = .xrgb8888,
        to destination: UnsafeMutableRawPointer, destinationStride: Int
    ) {
        let pitch = destinationStride / format.bytesPerPixel
        switch format {
        case .xrgb8888:
            copy(
                from: source, sourceStride: sourceStride, logicalWidth: logicalWidth, logicalHeight: logicalHeight,
                damage: damage, rotation: rotation, to: WriteOnlyPixels<UInt32>(destination), pitch: pitch,
                converting: SameXRGB8888())
        case .rgb565:
            copy(
                from: source, sourceStride: sourceStride, logicalWidth: logicalWidth, logicalHeight: logicalHeight,
                damage: damage, rotation: rotation, to: WriteOnlyPixels<UInt16>(destination), pitch: pitch,
                converting: DitheredRGB565())
        }
    }

    /// `copy(from:…)` of `band` into `destination`, which holds only the band's rectangle on the
    /// panel (`physicalRect`), rows of its width: what the display does with each band,
    /// without a buffer of the panel's size (the bench's probe, which has no display).
    package static func copy(
        band: PixelRect, from source: UnsafeRawPointer, sourceStride: Int, logicalWidth: Int, logicalHeight: Int,
        rotation: Rotation, format: PixelFormat, to destination: UnsafeMutableRawPointer
    ) {
        let band = band.intersection(PixelRect(x: 0, y: 0, width: logicalWidth, height: logicalHeight))
        guard !band.isEmpty else { return }
        let p = physicalRect(band, rotation: rotation, logicalWidth: logicalWidth, logicalHeight: logicalHeight)
        let bytes = format.bytesPerPixel
        // The address the panel's pixel (0, 0) would have; written only inside `p`.
        let origin = destination - (p.y * p.width + p.x) * bytes
        copy(
            from: source, sourceStride: sourceStride, logicalWidth: logicalWidth, logicalHeight: logicalHeight,
            damage: band, rotation: rotation, format: format, to: origin, destinationStride: p.width * bytes)
    }

    /// The copy proper: `damage` of the XRGB8888 source, each pixel converted by `conversion`
    /// (with its source position, for dithering), stored into `destination` whose rows are
    /// `pitch` pixels apart.
    static func copy<D: ScanoutDestination, C: PixelConversion>(
        from source: UnsafeRawPointer, sourceStride: Int, logicalWidth: Int, logicalHeight: Int,
        damage: PixelRect, rotation: Rotation, to dst: D, pitch dstPitch: Int, converting conversion: C
    ) where C.Pixel == D.Pixel {
        let r = damage.intersection(PixelRect(x: 0, y: 0, width: logicalWidth, height: logicalHeight))
        guard !r.isEmpty else { return }
        precondition(sourceStride % 4 == 0, "the source stride must be whole pixels")
        let srcPitch = sourceStride / 4
        let src = source.assumingMemoryBound(to: UInt32.self)

        switch rotation {
        case .deg0:
            for y in r.y..<r.maxY {
                let s = src + y * srcPitch
                let row = y * dstPitch
                if C.isIdentity {
                    dst.store(run: UnsafeRawPointer(s + r.x), count: r.width, at: row + r.x)
                } else {
                    conversion.convertRow(s, columns: r.x..<r.maxX, y: y, to: dst, at: row)
                }
            }
        case .deg180:
            // Logical (x, y) lands on (W-1-x, H-1-y): each row is reversed into the mirrored row.
            for y in r.y..<r.maxY {
                let s = src + y * srcPitch
                let d = (logicalHeight - 1 - y) * dstPitch + (logicalWidth - 1)
                var x = r.x
                while x < r.maxX {
                    dst.store(conversion.convert(s[x], x: x, y: y), at: d - x)
                    x &+= 1
                }
            }
        case .deg90:
            // Logical (x, y) lands on (H-1-y, x): destination row x takes source column x, bottom-up.
            let right = logicalHeight - 1
            forEachTile(of: r) { columns, rows in
                for x in columns {
                    let top = rows.upperBound - 1
                    conversion.convertColumn(
                        src + x, pitch: srcPitch, x: x, from: top, step: -1, count: rows.count, to: dst,
                        at: x * dstPitch + right - top)
                }
            }
        case .deg270:
            // Logical (x, y) lands on (y, W-1-x): destination row W-1-x takes source column x, top-down.
            forEachTile(of: r) { columns, rows in
                for x in columns {
                    conversion.convertColumn(
                        src + x, pitch: srcPitch, x: x, from: rows.lowerBound, step: 1, count: rows.count, to: dst,
                        at: (logicalWidth - 1 - x) * dstPitch + rows.lowerBound)
                }
            }
        }
    }

    /// Walks `r` in `tile`×`tile` squares, row of tiles by row of tiles: the column and row
    /// ranges of each square.
    @inline(__always)
    private static func forEachTile(of r: PixelRect, _ body: (Range<Int>, Range<Int>) -> Void) {
        var ty = r.y
        while ty < r.maxY {
            let ty1 = min(ty + tile, r.maxY)
            var tx = r.x
            while tx < r.maxX {
                let tx1 = min(tx + tile, r.maxX)
                body(tx..<tx1, ty..<ty1)
                tx = tx1
            }
            ty = ty1
        }
    }
}

/// Where `ScanoutCopy` writes: stores only. There is no load, so the copy cannot read a scanout
/// buffer back (uncached or write-combined memory, where a read stalls for a bus round trip).
protocol ScanoutDestination {
    associatedtype Pixel: FixedWidthInteger & UnsignedInteger
    /// Stores `value` at pixel `index` (row × pitch + column).
    func store(_ value: Pixel, at index: Int)
    /// Stores `count` pixels from `source` (same format) from pixel `index` on.
    func store(run source: UnsafeRawPointer, count: Int, at index: Int)
    /// Stores the pixels of `vector` from pixel `index` on.
    func store<V: SIMD>(vector: V, at index: Int) where V.Scalar == Pixel
}

/// A scanout buffer in memory, written through `ScanoutDestination` only.
struct WriteOnlyPixels<Pixel: FixedWidthInteger & UnsignedInteger>: ScanoutDestination {
    private let base: UnsafeMutablePointer<Pixel>

    init(_ base: UnsafeMutableRawPointer) { self.base = base.assumingMemoryBound(to: Pixel.self) }

    @inline(__always)
    func store(_ value: Pixel, at index: Int) { base[index] = value }

    @inline(__always)
    func store(run source: UnsafeRawPointer, count: Int, at index: Int) {
        memcpy(base + index, source, count * MemoryLayout<Pixel>.stride)
    }

    @inline(__always)
    func store<V: SIMD>(vector: V, at index: Int) where V.Scalar == Pixel {
        UnsafeMutableRawPointer(base + index).storeBytes(of: vector, as: V.self)
    }
}

/// One XRGB8888 pixel at source position (`x`, `y`) into a scanout format.
protocol PixelConversion {
    associatedtype Pixel: FixedWidthInteger & UnsignedInteger
    /// True when `convert` returns its input: rows may then be copied whole.
    static var isIdentity: Bool { get }
    func convert(_ pixel: UInt32, x: Int, y: Int) -> Pixel
    /// Converts `columns` of source row `y` (starting at `row`) into `destination` from pixel
    /// `index` + column on: the upright copy's inner loop.
    func convertRow<D: ScanoutDestination>(
        _ row: UnsafePointer<UInt32>, columns: Range<Int>, y: Int, to destination: D, at index: Int
    ) where D.Pixel == Pixel
    /// Converts `count` pixels of source column `x` (`column` points at its row 0, rows `pitch`
    /// pixels apart), rows `y0`, `y0 + step`, … into consecutive pixels of `destination` from
    /// `index` on: a turned copy's inner loop.
    func convertColumn<D: ScanoutDestination>(
        _ column: UnsafePointer<UInt32>, pitch: Int, x: Int, from y0: Int, step: Int, count: Int, to destination: D,
        at index: Int
    ) where D.Pixel == Pixel
}

extension PixelConversion {
    @inline(__always)
    func convertRow<D: ScanoutDestination>(
        _ row: UnsafePointer<UInt32>, columns: Range<Int>, y: Int, to destination: D, at index: Int
    ) where D.Pixel == Pixel {
        for x in columns { destination.store(convert(row[x], x: x, y: y), at: index + x) }
    }

    @inline(__always)
    func convertColumn<D: ScanoutDestination>(
        _ column: UnsafePointer<UInt32>, pitch: Int, x: Int, from y0: Int, step: Int, count: Int, to destination: D,
        at index: Int
    ) where D.Pixel == Pixel {
        var y = y0
        var at = y0 &* pitch
        let rowStep = step &* pitch
        for k in 0..<count {
            destination.store(convert(column[at], x: x, y: y), at: index &+ k)
            y &+= step
            at &+= rowStep
        }
    }
}

/// XRGB8888 stays as it is.
struct SameXRGB8888: PixelConversion {
    static var isIdentity: Bool { true }
    @inline(__always)
    func convert(_ pixel: UInt32, x: Int, y: Int) -> UInt32 { pixel }
}

/// XRGB8888 to RGB565 with 4×4 ordered (Bayer) dithering: channel value c of n bits becomes
/// ⌊c·(2ⁿ−1)/255 + (b + ½)/16⌋ for the Bayer index b of the pixel's position, so the mean of
/// every 4×4 tile of a flat colour is within 1/32 of a step of the exact value and a gradient
/// does not band. In integers that is ⌊(c·(2ⁿ−1) + oᵦ)/255⌋ with oᵦ = ⌊255·(2b + 1)/32⌋
/// (`offsets`): ⌊(32·c·(2ⁿ−1) + 255·(2b + 1))/8160⌋ = ⌊⌊x/32⌋/255⌋, and 32·c·(2ⁿ−1) is a
/// multiple of 32. The sum is below 2¹⁴, where ⌊t/255⌋ = (t + 1 + ⌊t/256⌋) >> 8: eight pixels
/// at a time in 16-bit lanes, along a row or gathered down a turned copy's column, and the
/// same integers one pixel at a time for the few left over.
struct DitheredRGB565: PixelConversion {
    static var isIdentity: Bool { false }

    /// The 4×4 Bayer matrix, row by row: the order in which thresholds rise.
    static let bayer: [Int] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5]

    /// ⌊255·(2b + 1)/32⌋ for each cell's Bayer index b, in the cells' order (row by row).
    static let offsets: [UInt16] = bayer.map { UInt16(255 * (2 * $0 + 1) / 32) }

    /// The offsets of eight pixels along a row from a column that is a multiple of four (the
    /// matrix row's four twice), for each matrix row.
    static let rowOffsets: [SIMD8<UInt16>] = (0..<4).map { row in
        var v = SIMD8<UInt16>()
        for k in 0..<8 { v[k] = offsets[row << 2 | (k & 3)] }
        return v
    }

    /// The offsets of eight pixels of one column, rows y, y + step, … (step ±1): for each
    /// direction, matrix row of y and matrix column, the cells' offsets down or up the column.
    static let columnOffsets: [SIMD8<UInt16>] = [1, -1].flatMap { step in
        (0..<4).flatMap { row in
            (0..<4).map { column in
                var v = SIMD8<UInt16>()
                for k in 0..<8 { v[k] = offsets[((row + step * k) & 3) << 2 | column] }
                return v
            }
        }
    }

    /// ⌊t/255⌋ for eight sums t < 65535.
    @inline(__always) static func quantized(_ t: SIMD8<UInt16>) -> SIMD8<UInt16> {
        (t &+ 1 &+ (t &>> 8)) &>> 8
    }

    /// Eight XRGB8888 pixels as RGB565, each with its Bayer cell's offset.
    @inline(__always) static func converted(_ p: SIMD8<UInt32>, offsets d: SIMD8<UInt16>) -> SIMD8<UInt16> {
        let byte = SIMD8<UInt32>(repeating: 0xff)
        let r = SIMD8<UInt16>(truncatingIfNeeded: (p &>> 16) & byte)
        let g = SIMD8<UInt16>(truncatingIfNeeded: (p &>> 8) & byte)
        let b = SIMD8<UInt16>(truncatingIfNeeded: p & byte)
        let red = quantized(r &* 31 &+ d)
        let green = quantized(g &* 63 &+ d)
        let blue = quantized(b &* 31 &+ d)
        return (red &<< 11) | (green &<< 5) | blue
    }

    /// Eight pixels at a time from a column that is a multiple of four, the rest one by one.
    @inline(__always)
    func convertRow<D: ScanoutDestination>(
        _ row: UnsafePointer<UInt32>, columns: Range<Int>, y: Int, to destination: D, at index: Int
    ) where D.Pixel == UInt16 {
        var x = columns.lowerBound
        while x < columns.upperBound && x & 3 != 0 {
            destination.store(convert(row[x], x: x, y: y), at: index &+ x)
            x &+= 1
        }
        let d = Self.rowOffsets[y & 3]
        while x &+ 8 <= columns.upperBound {
            let p = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD8<UInt32>.self)
            destination.store(vector: Self.converted(p, offsets: d), at: index &+ x)
            x &+= 8
        }
        while x < columns.upperBound {
            destination.store(convert(row[x], x: x, y: y), at: index &+ x)
            x &+= 1
        }
    }

    /// Eight pixels of the column at a time, gathered from their rows, the rest one by one.
    @inline(__always)
    func convertColumn<D: ScanoutDestination>(
        _ column: UnsafePointer<UInt32>, pitch: Int, x: Int, from y0: Int, step: Int, count: Int, to destination: D,
        at index: Int
    ) where D.Pixel == UInt16 {
        var y = y0
        var k = 0
        let down = (step < 0 ? 16 : 0) | (x & 3)
        let rowStep = step &* pitch
        while k &+ 8 <= count {
            var at = y &* pitch
            var p = SIMD8<UInt32>()
            for lane in 0..<8 {
                p[lane] = column[at]
                at &+= rowStep
            }
            let d = Self.columnOffsets[down | (y & 3) << 2]
            destination.store(vector: Self.converted(p, offsets: d), at: index &+ k)
            y &+= step &* 8
            k &+= 8
        }
        while k < count {
            destination.store(convert(column[y &* pitch], x: x, y: y), at: index &+ k)
            y &+= step
            k &+= 1
        }
    }

    /// One pixel: the same integers as `converted`.
    @inline(__always)
    func convert(_ pixel: UInt32, x: Int, y: Int) -> UInt16 {
        let o = UInt32(Self.offsets[(y & 3) << 2 | (x & 3)])
        @inline(__always) func level(_ c: UInt32, _ levels: UInt32) -> UInt16 {
            let t = c &* levels &+ o
            return UInt16(truncatingIfNeeded: (t &+ 1 &+ (t >> 8)) >> 8)
        }
        return level((pixel >> 16) & 0xff, 31) << 11 | level((pixel >> 8) & 0xff, 63) << 5 | level(pixel & 0xff, 31)
    }
}
