import CardModel
import KioskTestSupport
import Testing

@testable import KioskDisplay
@testable import KioskSystem

/// `Display.present(damage:compose:)`: no frame, only bands. The display asks for the region
/// its back buffer needs and copies each band in as it comes (turned, converted); the picture
/// in the scanout buffer is the whole frame's, under every rotation and format.
@Suite struct DisplayBandsTests {
    /// Where logical pixel (x, y) of a `w`×`h` picture lies on the panel (written out here, not
    /// taken from `Rotation` or `ScanoutCopy`).
    static func physical(_ x: Int, _ y: Int, w: Int, h: Int, _ rotation: Rotation) -> (Int, Int) {
        switch rotation {
        case .deg0: (x, y)
        case .deg90: (h - 1 - y, x)
        case .deg180: (w - 1 - x, h - 1 - y)
        case .deg270: (y, w - 1 - x)
        }
    }

    /// A compose that hands out `frame`'s `region` in bands of `rows` rows, each copied into a
    /// buffer of that band's size only and overwritten after its call (so a read outside the
    /// band, or later, sees garbage); records the regions asked for.
    final class BandSource {
        let frame: PixelBuffer
        let rows: Int
        var asked: [PixelRect] = []

        init(frame: PixelBuffer, rows: Int) { (self.frame, self.rows) = (frame, rows) }

        func compose(_ region: PixelRect, _ sink: (PixelRect, UnsafeRawPointer, Int) -> Void) {
            asked.append(region)
            var y = region.y
            while y < region.maxY {
                let band = PixelRect(x: region.x, y: y, width: region.width, height: min(rows, region.maxY - y))
                var pixels = [UInt32](repeating: 0, count: band.width * band.height)
                for r in 0..<band.height {
                    for c in 0..<band.width { pixels[r * band.width + c] = frame.pixel(x: band.x + c, y: band.y + r) }
                }
                pixels.withUnsafeBytes { b in
                    let origin = b.baseAddress! - 4 * (band.y * band.width + band.x)
                    sink(band, origin, band.width * 4)
                }
                for i in pixels.indices { pixels[i] = 0x1234_5678 }
                y = band.maxY
            }
        }
    }

    @Test(arguments: [Rotation.deg0, .deg90, .deg180, .deg270])
    func bandsMakeTheWholePicture(_ rotation: Rotation) throws {
        for format in PixelFormat.allCases {
            for (n, rows) in [1, 7, 16, 40].enumerated() {
                // A panel of 37×23 (tiles of 16 do not fit it), the picture turned onto it.
                let scanout = MemoryScanout(width: 37, height: 23, format: format, padding: 3, fill: 0xDEAD_BEEF)
                let display = try Display(scanout: scanout, rotation: rotation, loop: EventLoop(), takeTerminal: false)
                let (w, h) = (display.pixelWidth, display.pixelHeight)
                let frame = DisplayRGB565Tests.randomFrame(width: w, height: h, seed: UInt64(n + 1))
                let source = BandSource(frame: frame, rows: rows)
                // Both buffers are stale at first: each is written whole.
                let first = PixelRect(x: 2, y: 3, width: 4, height: 5)
                #expect(display.present(damage: first, compose: source.compose))
                DisplayScanoutTests.waitOutThePeriod()
                #expect(display.present(damage: first, compose: source.compose))
                #expect(source.asked == [PixelRect(x: 0, y: 0, width: w, height: h), frame.bounds])
                for index in 0..<2 {
                    for y in 0..<h {
                        for x in 0..<w {
                            let p = frame.pixel(x: x, y: y)
                            let want = format == .rgb565 ? UInt32(RGB565Oracle.expected565(p, x: x, y: y)) : p
                            let (px, py) = Self.physical(x, y, w: w, h: h, rotation)
                            let got = scanout.pixel(index, x: px, y: py)
                            #expect(got == want, "\(rotation) \(format) rows \(rows) buffer \(index) pixel \(x),\(y)")
                            if got != want { return }
                        }
                    }
                }
                // Then the damage ∪ what the back buffer missed: the previous present's damage.
                source.asked = []
                let a = PixelRect(x: 1, y: 1, width: 3, height: 2)
                let b = PixelRect(x: 5, y: 6, width: 2, height: 2)
                DisplayScanoutTests.waitOutThePeriod()
                #expect(display.present(damage: a, compose: source.compose))
                DisplayScanoutTests.waitOutThePeriod()
                #expect(display.present(damage: b, compose: source.compose))
                #expect(source.asked == [a.union(first), b.union(a)])
                display.shutdown()
            }
        }
    }
}
