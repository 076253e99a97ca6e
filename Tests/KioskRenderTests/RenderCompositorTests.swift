import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// The compositor's turned placements against a plain per-pixel bilinear reference, so its
/// fast paths (flat pixels, shadow-only pixels, whole runs inside gradient bands) are checked
/// against the definition rather than against themselves.
@Suite struct RenderCompositorTests {
    /// Premultiplied bilinear sample of `image` at continuous image position (u, v) relative
    /// to pixel centres, transparent outside; channels 0…255 as doubles (B, G, R, A).
    static func reference(_ image: CairoImage, _ u: Double, _ v: Double) -> [Double] {
        let x0 = Int(u.rounded(.down))
        let y0 = Int(v.rounded(.down))
        let fx = u - Double(x0)
        let fy = v - Double(y0)
        var out = [0.0, 0, 0, 0]
        for (dx, dy, w) in [(0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)]
        {
            let x = x0 + dx
            let y = y0 + dy
            guard x >= 0, y >= 0, x < image.width, y < image.height else { continue }
            let p = image.data.load(fromByteOffset: y * image.stride + x * 4, as: UInt32.self)
            for c in 0..<4 { out[c] += Double((p >> (8 * UInt32(c))) & 0xFF) * w }
        }
        return out
    }

    @Test(arguments: [15.0, -15.0, 3.0, -0.5, 90.0, 200.0])
    func turnedImageMatchesBilinearReference(_ degrees: Double) throws {
        let source = try RenderFixtures.cardImage()
        let target = PixelBuffer(width: 360, height: 360)
        let background: UInt32 = 0x0033_6699
        Compositor.fill(target.bounds, with: background, in: target)
        let placement = Placement(
            anchorX: source.anchorX, anchorY: source.anchorY, centerX: 180.3, centerY: 179.6,
            rotation: degrees * Double.pi / 180, scale: 1)
        Compositor.draw(source, at: placement, opacity: 1, into: target, base: nil, clip: target.bounds)
        var worst = 0.0
        for y in 0..<target.height {
            for x in 0..<target.width {
                let xc = Double(x) + 0.5
                let yc = Double(y) + 0.5
                let s = Self.reference(
                    source.image, placement.a * xc + placement.b * yc + placement.c - 0.5,
                    placement.d * xc + placement.e * yc + placement.f - 0.5)
                let k = 1 - s[3] / 255
                let got = target.pixel(x: x, y: y)
                for c in 0..<3 {
                    let under = Double((background >> (8 * UInt32(c))) & 0xFF)
                    let expected = s[c] + under * k
                    worst = max(worst, abs(expected - Double((got >> (8 * UInt32(c))) & 0xFF)))
                }
            }
        }
        // 8-bit weights and truncation: a few levels at most.
        #expect(worst <= 4, "largest channel error \(worst) at \(degrees)°")
    }

    @Test func bandsDescribeIdenticalRows() throws {
        let source = try RenderFixtures.cardImage()
        let image = source.image
        for y in 0..<image.height {
            for band in [source.runs[y].down, source.runs[y].up] {
                let rows = band.end >= y ? y...Int(band.end) : Int(band.end)...y
                for r in rows {
                    for x in Int(band.first)..<Int(band.last) {
                        let p = image.data.load(fromByteOffset: r * image.stride + x * 4, as: UInt32.self)
                        if p != band.color {
                            Issue.record("row \(r) column \(x) differs from the band of row \(y)")
                            return
                        }
                    }
                }
            }
        }
    }
}
