/// The RGB565 oracle the display's tests and the `render --pixel-format rgb565` goldens check
/// against, written from the definition rather than from `DitheredRGB565`'s tables.
package enum RGB565Oracle {
    /// The classic 4×4 Bayer matrix and ⌊c·(2ⁿ−1)/255 + (b + ½)/16⌋ in floating point.
    package static let bayer: [[Double]] = [[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]]

    package static func dither(_ c: UInt32, levels: Double, x: Int, y: Int) -> UInt16 {
        let t = (bayer[y & 3][x & 3] + 0.5) / 16
        return UInt16((Double(c) * levels / 255 + t).rounded(.down))
    }

    /// Logical pixel `p` at (`x`, `y`) as the panel's RGB565 pixel.
    package static func expected565(_ p: UInt32, x: Int, y: Int) -> UInt16 {
        dither((p >> 16) & 0xff, levels: 31, x: x, y: y) << 11 | dither((p >> 8) & 0xff, levels: 63, x: x, y: y) << 5
            | dither(p & 0xff, levels: 31, x: x, y: y)
    }
}
