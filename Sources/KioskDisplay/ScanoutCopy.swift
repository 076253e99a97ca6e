import Glibc
import KioskSystem

/// Copies the damaged part of a frame composed in ordinary memory into a scanout buffer,
/// turning it by a `Rotation` on the way. Pure (pointers in, pixels out) and on the frame path.
///
/// It only writes to the destination, never reads it: scanout buffers are often
/// write-combined memory where reads are very slow. For 0° whole rows go through `memcpy`;
/// for 90°/270° the copy walks square tiles so the source's column reads stay in cache and
/// each destination row gets one run of consecutive stores.
package enum ScanoutCopy {
    /// Tile edge for the quarter turns: 16 pixels of XRGB8888 are one 64-byte cache line.
    static let tile = 16

    /// Where the logical rectangle `r` lands on the panel (in physical pixels), for a frame
    /// of `logicalWidth`×`logicalHeight` turned by `rotation` (the pixel form of
    /// `Rotation.toPhysical`).
    static func physicalRect(_ r: PixelRect, rotation: Rotation, logicalWidth: Int, logicalHeight: Int) -> PixelRect {
        switch rotation {
        case .deg0: r
        case .deg90: PixelRect(x: logicalHeight - r.y - r.height, y: r.x, width: r.height, height: r.width)
        case .deg180:
            PixelRect(
                x: logicalWidth - r.x - r.width, y: logicalHeight - r.y - r.height, width: r.width, height: r.height)
        case .deg270: PixelRect(x: r.y, y: logicalWidth - r.x - r.width, width: r.height, height: r.width)
        }
    }

    /// Copies `damage` of `frame` into `destination`, a buffer of the panel's (physical) size
    /// with rows `destinationStride` bytes apart. `damage` is clipped to the frame.
    package static func copy(
        _ frame: PixelBuffer, damage: PixelRect, rotation: Rotation,
        to destination: UnsafeMutableRawPointer, destinationStride: Int
    ) {
        copy(
            from: UnsafeRawPointer(frame.pixels), sourceStride: frame.stride,
            logicalWidth: frame.width, logicalHeight: frame.height, damage: damage, rotation: rotation,
            to: destination, destinationStride: destinationStride)
    }

    /// Copies `damage` of an XRGB8888 image (`logicalWidth`×`logicalHeight`, rows `sourceStride`
    /// bytes apart) into `destination` (the image's size turned by `rotation`, rows
    /// `destinationStride` bytes apart). Strides are multiples of 4.
    static func copy(
        from source: UnsafeRawPointer, sourceStride: Int, logicalWidth: Int, logicalHeight: Int,
        damage: PixelRect, rotation: Rotation,
        to destination: UnsafeMutableRawPointer, destinationStride: Int
    ) {
        let r = damage.intersection(PixelRect(x: 0, y: 0, width: logicalWidth, height: logicalHeight))
        guard !r.isEmpty else { return }
        precondition(sourceStride % 4 == 0 && destinationStride % 4 == 0, "strides must be whole pixels")
        let srcPitch = sourceStride / 4
        let dstPitch = destinationStride / 4
        let src = source.assumingMemoryBound(to: UInt32.self)
        let dst = destination.assumingMemoryBound(to: UInt32.self)

        switch rotation {
        case .deg0:
            for y in r.y..<r.maxY {
                memcpy(dst + (y * dstPitch + r.x), src + (y * srcPitch + r.x), r.width * 4)
            }
        case .deg180:
            // Logical (x, y) lands on (W-1-x, H-1-y): each row is reversed into the mirrored row.
            for y in r.y..<r.maxY {
                let s = src + y * srcPitch
                let d = dst + (logicalHeight - 1 - y) * dstPitch + (logicalWidth - 1)
                var x = r.x
                while x < r.maxX {
                    d[-x] = s[x]
                    x &+= 1
                }
            }
        case .deg90:
            // Logical (x, y) lands on (H-1-y, x): destination row x takes source column x, bottom-up.
            let right = logicalHeight - 1
            forEachTile(of: r) { columns, rows in
                for x in columns {
                    let d = dst + x * dstPitch + right
                    var y = rows.upperBound - 1
                    while y >= rows.lowerBound {
                        d[-y] = src[y * srcPitch + x]
                        y &-= 1
                    }
                }
            }
        case .deg270:
            // Logical (x, y) lands on (y, W-1-x): destination row W-1-x takes source column x, top-down.
            forEachTile(of: r) { columns, rows in
                for x in columns {
                    let d = dst + (logicalWidth - 1 - x) * dstPitch
                    var y = rows.lowerBound
                    while y < rows.upperBound {
                        d[y] = src[y * srcPitch + x]
                        y &+= 1
                    }
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
