import Testing

@testable import KioskDisplay
@testable import KioskSystem

@Suite struct DisplayFbdevTests {
    static let colors: [UInt32] = [
        0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0x00FF_FFFF, 0x0000_0000, 0x0012_3456, 0xFF80_4020,
    ]

    /// The reference RGB565 packing, channel by channel.
    static func rgb565(_ p: UInt32) -> UInt16 {
        let r = (p >> 16) & 0xFF
        let g = (p >> 8) & 0xFF
        let b = p & 0xFF
        return UInt16((r >> 3) << 11 | (g >> 2) << 5 | (b >> 3))
    }

    @Test func rgb565FastPathMatchesTheGeneralPacking() {
        var out = [UInt16](repeating: 0, count: Self.colors.count)
        Self.colors.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBytes {
                FbPixelFormat.rgb565.convertRow(src.baseAddress!, to: $0.baseAddress!, count: Self.colors.count)
            }
        }
        #expect(out == Self.colors.map(Self.rgb565))
        #expect(out == Self.colors.map { UInt16(FbPixelFormat.rgb565.pack($0)) })
        #expect(out[0] == 0xF800 && out[1] == 0x07E0 && out[2] == 0x001F && out[3] == 0xFFFF)
    }

    @Test func bgr565AndXbgr8888SwapChannels() {
        let bgr565 = FbPixelFormat(bitsPerPixel: 16, red: (0, 5), green: (5, 6), blue: (11, 5))
        #expect(bgr565.pack(0x00FF_0000) == 0x001F)
        #expect(bgr565.pack(0x0000_00FF) == 0xF800)
        let xbgr = FbPixelFormat(bitsPerPixel: 32, red: (0, 8), green: (8, 8), blue: (16, 8))
        var out = [UInt32](repeating: 0, count: 2)
        [UInt32(0x0011_2233), 0x00AA_BBCC].withUnsafeBufferPointer { src in
            out.withUnsafeMutableBytes { xbgr.convertRow(src.baseAddress!, to: $0.baseAddress!, count: 2) }
        }
        #expect(out == [0x0033_2211, 0x00CC_BBAA])
    }

    @Test func xrgb8888IsCopiedAndRgb888IsThreeBytes() {
        var out32 = [UInt32](repeating: 0, count: 3)
        let src: [UInt32] = [0x0001_0203, 0x00FF_0000, 0x00AB_CDEF]
        src.withUnsafeBufferPointer { s in
            out32.withUnsafeMutableBytes {
                FbPixelFormat.xrgb8888.convertRow(s.baseAddress!, to: $0.baseAddress!, count: 3)
            }
        }
        #expect(out32 == src)
        let rgb888 = FbPixelFormat(bitsPerPixel: 24, red: (16, 8), green: (8, 8), blue: (0, 8))
        var out24 = [UInt8](repeating: 0xEE, count: 10)
        src.withUnsafeBufferPointer { s in
            out24.withUnsafeMutableBytes { rgb888.convertRow(s.baseAddress!, to: $0.baseAddress!, count: 3) }
        }
        #expect(out24 == [0x03, 0x02, 0x01, 0x00, 0x00, 0xFF, 0xEF, 0xCD, 0xAB, 0xEE])
    }

    @Test func rectangleConversionTouchesOnlyTheRectangle() {
        let image = PixelBuffer(width: 9, height: 5)
        for y in 0..<5 { for x in 0..<9 { image.setPixel(x: x, y: y, 0x00FF_FFFF) } }
        let stride = 9 * 2 + 6  // padded rows
        var fb = [UInt8](repeating: 0x55, count: stride * 5)
        let rect = PixelRect(x: 2, y: 1, width: 4, height: 3)
        fb.withUnsafeMutableBytes {
            FbPixelFormat.rgb565.convert(
                from: image.pixels, sourceStride: image.stride, rect: rect, to: $0.baseAddress!,
                destinationStride: stride)
        }
        for y in 0..<5 {
            for x in 0..<(stride / 2) {
                let v = UInt16(fb[y * stride + 2 * x]) | UInt16(fb[y * stride + 2 * x + 1]) << 8
                let inside = x >= 2 && x < 6 && y >= 1 && y < 4
                #expect(v == (inside ? 0xFFFF : 0x5555), "pixel \(x),\(y)")
            }
        }
    }
}
