import CardModel
import KioskTestSupport
import Testing

@testable import KioskDisplay
@testable import KioskSystem

/// The RGB565 scanout: the damage copy converts each XRGB8888 pixel with 4×4 ordered
/// dithering, under every rotation, and never reads the scanout buffer.
@Suite struct DisplayRGB565Tests {
    /// A frame of pseudo-random colours (seeded).
    static func randomFrame(width: Int, height: Int, seed: UInt64) -> PixelBuffer {
        var rng = SplitMix64(seed: seed)
        let f = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width { f.setPixel(x: x, y: y, UInt32(truncatingIfNeeded: rng.next()) | 0xff00_0000) }
        }
        return f
    }

    /// Copies `damage` into a sentinel-filled 16-bit buffer with `padding` extra pixels a row;
    /// every pixel must be the oracle's (inside the turned damage) or the sentinel (elsewhere).
    func check(
        width: Int, height: Int, damage: PixelRect, rotation: Rotation, padding: Int, seed: UInt64 = 1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let f = Self.randomFrame(width: width, height: height, seed: seed)
        let physical = rotation.logicalSize(physical: Size(width: Double(width), height: Double(height)))
        let (pw, ph) = (Int(physical.width), Int(physical.height))
        let pitch = pw + padding
        let sentinel: UInt16 = 0xBEEF
        var dst = [UInt16](repeating: sentinel, count: pitch * ph)
        dst.withUnsafeMutableBytes { d in
            ScanoutCopy.copy(
                f, damage: damage, rotation: rotation, format: .rgb565, to: d.baseAddress!,
                destinationStride: pitch * 2)
        }
        var want = [UInt16](repeating: sentinel, count: pitch * ph)
        let r = damage.intersection(f.bounds)
        if !r.isEmpty {
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    let p = rotation.toPhysical(Point(x: Double(x) + 0.5, y: Double(y) + 0.5), physical: physical)
                    want[Int(p.y) * pitch + Int(p.x)] = RGB565Oracle.expected565(f.pixel(x: x, y: y), x: x, y: y)
                }
            }
        }
        let wrong = zip(dst, want).filter { $0 != $1 }.count
        #expect(
            wrong == 0, "\(wrong) wrong pixels for \(rotation) \(width)x\(height) damage \(damage)",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: Rotation.allCases)
    func everyPixelIsTheDitheredValueUnderEveryRotation(rotation: Rotation) {
        check(
            width: 37, height: 23, damage: PixelRect(x: 0, y: 0, width: 37, height: 23), rotation: rotation, padding: 3)
        check(
            width: 53, height: 41, damage: PixelRect(x: 7, y: 13, width: 29, height: 19), rotation: rotation,
            padding: 0, seed: 2)
        check(
            width: 20, height: 10, damage: PixelRect(x: -5, y: 6, width: 100, height: 100), rotation: rotation,
            padding: 1, seed: 3)
    }

    /// Dithering is anchored to the frame, not to the damage: two copies of halves make the
    /// same picture as one copy of the whole (no seam where one frame's damage meets the last's).
    @Test(arguments: Rotation.allCases)
    func halvesMakeTheWhole(rotation: Rotation) {
        let f = Self.randomFrame(width: 30, height: 18, seed: 9)
        let pw = rotation == .deg90 || rotation == .deg270 ? 18 : 30
        var whole = [UInt16](repeating: 0, count: 30 * 18)
        var halves = [UInt16](repeating: 0, count: 30 * 18)
        whole.withUnsafeMutableBytes {
            ScanoutCopy.copy(
                f, damage: f.bounds, rotation: rotation, format: .rgb565, to: $0.baseAddress!, destinationStride: pw * 2
            )
        }
        halves.withUnsafeMutableBytes {
            for part in [PixelRect(x: 0, y: 0, width: 13, height: 18), PixelRect(x: 13, y: 0, width: 17, height: 18)] {
                ScanoutCopy.copy(
                    f, damage: part, rotation: rotation, format: .rgb565, to: $0.baseAddress!, destinationStride: pw * 2
                )
            }
        }
        #expect(whole == halves)
    }

    /// No banding: over every 4×4 tile of a flat colour the mean of the dithered values is
    /// within 1/32 of a 5- or 6-bit step of the exact value, for every 8-bit level (truncation
    /// alone is off by up to a whole step: 8 levels of red, the bands of a gradient).
    /// The upright copy converts eight pixels at a time: every value of every channel in every
    /// cell of the Bayer matrix (column x holds x/4 in red, 255 − x/4 in green and a third
    /// order in blue, four rows for the matrix's rows), from a column that is not a multiple of
    /// four to one short of the end, is the oracle's.
    @Test func everyChannelValueInEveryBayerCellIsTheDitheredValue() {
        let (w, h) = (1024, 4)
        let f = PixelBuffer(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let c = UInt32(x >> 2)
                f.setPixel(x: x, y: y, 0xff00_0000 | c << 16 | (255 - c) << 8 | (c ^ 0x5a))
            }
        }
        let damage = PixelRect(x: 1, y: 0, width: w - 2, height: h)
        var dst = [UInt16](repeating: 0xBEEF, count: w * h)
        dst.withUnsafeMutableBytes { d in
            ScanoutCopy.copy(
                f, damage: damage, rotation: .deg0, format: .rgb565, to: d.baseAddress!, destinationStride: w * 2)
        }
        var wrong: [String] = []
        for y in 0..<h {
            for x in 0..<w {
                let inside = x >= damage.x && x < damage.maxX
                let want = inside ? RGB565Oracle.expected565(f.pixel(x: x, y: y), x: x, y: y) : 0xBEEF
                if dst[y * w + x] != want { wrong.append("(\(x), \(y))") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong pixels, first \(wrong.prefix(4))")
    }

    @Test func tilesOfAFlatColourAverageToTheColour() {
        var worstRed = 0.0
        var worstGreen = 0.0
        for c in 0...255 {
            let f = PixelBuffer(width: 4, height: 4)
            for y in 0..<4 { for x in 0..<4 { f.setPixel(x: x, y: y, UInt32(c) << 16 | UInt32(c) << 8 | UInt32(c)) } }
            var out = [UInt16](repeating: 0, count: 16)
            out.withUnsafeMutableBytes {
                ScanoutCopy.copy(
                    f, damage: f.bounds, rotation: .deg0, format: .rgb565, to: $0.baseAddress!, destinationStride: 8)
            }
            let red = out.map { Double($0 >> 11) }.reduce(0, +) / 16
            let green = out.map { Double(($0 >> 5) & 63) }.reduce(0, +) / 16
            worstRed = max(worstRed, abs(red - Double(c) * 31 / 255))
            worstGreen = max(worstGreen, abs(green - Double(c) * 63 / 255))
        }
        #expect(worstRed <= 1.0 / 32 + 1e-9, "red: a tile's mean is \(worstRed) steps off")
        #expect(worstGreen <= 1.0 / 32 + 1e-9, "green: a tile's mean is \(worstGreen) steps off")
    }

    /// A store-only destination that counts the stores to each pixel. `ScanoutDestination`
    /// has no load: the copy has no way to read a scanout buffer, and this shows it writes each
    /// pixel of the turned damage exactly once (no read-modify-write of a neighbour) and
    /// nothing else.
    final class CountingDestination<Pixel: FixedWidthInteger & UnsignedInteger>: ScanoutDestination {
        var stores: [Int: Int] = [:]
        func store(_ value: Pixel, at index: Int) { stores[index, default: 0] += 1 }
        func store(run source: UnsafeRawPointer, count: Int, at index: Int) {
            for i in index..<(index + count) { stores[i, default: 0] += 1 }
        }
        func store<V: SIMD>(vector: V, at index: Int) where V.Scalar == Pixel {
            for i in index..<(index + V.scalarCount) { stores[i, default: 0] += 1 }
        }
    }

    @Test(arguments: Rotation.allCases)
    func theCopyOnlyWritesEachDamagedPixelOnce(rotation: Rotation) {
        let f = Self.randomFrame(width: 53, height: 41, seed: 4)
        let damage = PixelRect(x: 7, y: 13, width: 29, height: 19)
        let physical = ScanoutCopy.physicalRect(damage, rotation: rotation, logicalWidth: 53, logicalHeight: 41)
        let pitch = (rotation == .deg90 || rotation == .deg270 ? 41 : 53) + 3
        var want: [Int: Int] = [:]
        for y in physical.y..<physical.maxY { for x in physical.x..<physical.maxX { want[y * pitch + x] = 1 } }
        let wide = CountingDestination<UInt32>()
        let narrow = CountingDestination<UInt16>()
        ScanoutCopy.copy(
            from: UnsafeRawPointer(f.pixels), sourceStride: f.stride, logicalWidth: 53, logicalHeight: 41,
            damage: damage, rotation: rotation, to: wide, pitch: pitch, converting: SameXRGB8888())
        ScanoutCopy.copy(
            from: UnsafeRawPointer(f.pixels), sourceStride: f.stride, logicalWidth: 53, logicalHeight: 41,
            damage: damage, rotation: rotation, to: narrow, pitch: pitch, converting: DitheredRGB565())
        #expect(wide.stores == want)
        #expect(narrow.stores == want)
        #expect(ScanoutCopy.bytesWritten(damage: damage, format: .rgb565) == 29 * 19 * 2)
        #expect(ScanoutCopy.bytesWritten(damage: damage, format: .xrgb8888) == 29 * 19 * 4)
    }

    /// Widening for pictures of the panel repeats each channel's top bits (as pixman does):
    /// black and white stay exact, and every 5- and 6-bit level maps back to itself.
    @Test func wideningRepeatsTheTopBits() {
        #expect(PixelFormat.xrgb8888(fromRGB565: 0) & 0xff_ffff == 0)
        #expect(PixelFormat.xrgb8888(fromRGB565: 0xffff) & 0xff_ffff == 0xff_ffff)
        for level in 0..<32 {
            let wide = PixelFormat.xrgb8888(fromRGB565: UInt16(level) << 11)
            #expect((wide >> 19) & 31 == UInt32(level))
        }
    }

    /// `Display` converts while it copies: the first present fills the (stale) buffer whole,
    /// each pixel the oracle's, the row padding untouched, and it counts 2 bytes a pixel.
    @Test func theDisplayConvertsWhileCopying() throws {
        // Two RGB565 buffers of 8×4, rows padded to 10 pixels, whose flips complete at once.
        let scanout = MemoryScanout(width: 8, height: 4, format: .rgb565, padding: 2, fill: 0xBEEF_BEEF)
        let display = try Display(scanout: scanout, rotation: nil, loop: EventLoop(), takeTerminal: false)
        #expect(display.pixelFormat == .rgb565)
        let frame = Self.randomFrame(width: 8, height: 4, seed: 5)
        #expect(display.present(frame, damage: PixelRect(x: 1, y: 1, width: 2, height: 2)))
        #expect(display.bytesWritten == 8 * 4 * 2, "a fresh buffer is copied whole")
        for y in 0..<4 {
            for x in 0..<scanout.pitch {
                let want = x < 8 ? RGB565Oracle.expected565(frame.pixel(x: x, y: y), x: x, y: y) : 0xBEEF
                #expect(scanout.pixel(1, x: x, y: y) == UInt32(want), "pixel \(x), \(y)")
            }
        }
        display.shutdown()
    }

    @Test func theDriverChoosesOnlyWhenItPrefersSixteenBits() {
        #expect(PixelFormat.preferred(depth: 16) == .rgb565)
        #expect(PixelFormat.preferred(depth: 24) == .xrgb8888)
        #expect(PixelFormat.preferred(depth: 32) == .xrgb8888)
        #expect(PixelFormat.preferred(depth: 0) == .xrgb8888)
        #expect(PixelFormat(optionValue: "RGB565") == .rgb565)
        #expect(PixelFormat(optionValue: "rgb888") == nil)
    }
}
