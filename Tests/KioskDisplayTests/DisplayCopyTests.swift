import CardModel
import Glibc
import Testing

@testable import KioskDisplay
@testable import KioskSystem

@Suite struct DisplayCopyTests {
    static let sentinel: UInt32 = 0xDEAD_BEEF

    /// A frame whose every pixel differs: 0x00YYYXXX-ish.
    static func frame(width: Int, height: Int) -> PixelBuffer {
        let f = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width { f.setPixel(x: x, y: y, UInt32(y << 12 | x) | 0x0100_0000) }
        }
        return f
    }

    /// The reference: each logical pixel's centre mapped by `Rotation.toPhysical`.
    static func expectedPhysical(
        _ frame: PixelBuffer, damage: PixelRect, rotation: Rotation
    ) -> [Int: UInt32] {
        let physical = rotation.logicalSize(physical: Size(width: Double(frame.width), height: Double(frame.height)))
        var out: [Int: UInt32] = [:]
        let r = damage.intersection(frame.bounds)
        guard !r.isEmpty else { return out }
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX {
                let p = rotation.toPhysical(Point(x: Double(x) + 0.5, y: Double(y) + 0.5), physical: physical)
                out[Int(p.y) << 20 | Int(p.x)] = frame.pixel(x: x, y: y)
            }
        }
        return out
    }

    /// Copies with `ScanoutCopy` into a sentinel-filled buffer with `padding` extra pixels per
    /// row and checks every destination pixel (including the padding) against the reference.
    func check(
        width: Int, height: Int, damage: PixelRect, rotation: Rotation, padding: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let f = Self.frame(width: width, height: height)
        let pw = rotation == .deg90 || rotation == .deg270 ? height : width
        let ph = rotation == .deg90 || rotation == .deg270 ? width : height
        let pitch = pw + padding
        var dst = [UInt32](repeating: Self.sentinel, count: pitch * ph)
        dst.withUnsafeMutableBytes { d in
            ScanoutCopy.copy(f, damage: damage, rotation: rotation, to: d.baseAddress!, destinationStride: pitch * 4)
        }
        let expected = Self.expectedPhysical(f, damage: damage, rotation: rotation)
        var wrong = 0
        for y in 0..<ph {
            for x in 0..<pitch {
                let want = x < pw ? (expected[y << 20 | x] ?? Self.sentinel) : Self.sentinel
                if dst[y * pitch + x] != want { wrong += 1 }
            }
        }
        #expect(
            wrong == 0, "\(wrong) wrong pixels for \(rotation) \(width)x\(height) damage \(damage)",
            sourceLocation: sourceLocation)
        let physicalDamage = ScanoutCopy.physicalRect(
            damage.intersection(f.bounds), rotation: rotation, logicalWidth: width, logicalHeight: height)
        let touched = Set(expected.keys)
        var inRect = 0
        if !physicalDamage.isEmpty {
            for y in physicalDamage.y..<physicalDamage.maxY {
                for x in physicalDamage.x..<physicalDamage.maxX where touched.contains(y << 20 | x) { inRect += 1 }
            }
        }
        #expect(
            inRect == touched.count && touched.count == physicalDamage.width * max(0, physicalDamage.height),
            "physicalRect \(physicalDamage) must cover exactly the written pixels", sourceLocation: sourceLocation)
    }

    @Test(arguments: Rotation.allCases)
    func fullFrameOddSizeWithPaddedStride(rotation: Rotation) {
        check(
            width: 37, height: 23, damage: PixelRect(x: 0, y: 0, width: 37, height: 23), rotation: rotation, padding: 5)
    }

    @Test(arguments: Rotation.allCases)
    func damageOnlyTouchesItsRegion(rotation: Rotation) {
        // Crosses tile edges (16) on both axes and starts at odd offsets.
        check(
            width: 53, height: 41, damage: PixelRect(x: 7, y: 13, width: 29, height: 19), rotation: rotation, padding: 3
        )
        check(
            width: 53, height: 41, damage: PixelRect(x: 52, y: 0, width: 1, height: 41), rotation: rotation, padding: 0)
        check(
            width: 53, height: 41, damage: PixelRect(x: 0, y: 40, width: 53, height: 1), rotation: rotation, padding: 1)
    }

    @Test(arguments: Rotation.allCases)
    func damageIsClippedToTheFrame(rotation: Rotation) {
        check(
            width: 20, height: 10, damage: PixelRect(x: -5, y: 6, width: 100, height: 100), rotation: rotation,
            padding: 2)
        check(
            width: 20, height: 10, damage: PixelRect(x: 30, y: 30, width: 5, height: 5), rotation: rotation, padding: 2)
    }

    @Test func singlePixelFrames() {
        for rotation in Rotation.allCases {
            check(
                width: 1, height: 1, damage: PixelRect(x: 0, y: 0, width: 1, height: 1), rotation: rotation, padding: 15
            )
            check(
                width: 1, height: 17, damage: PixelRect(x: 0, y: 0, width: 1, height: 17), rotation: rotation,
                padding: 1)
        }
    }

    /// A benchmark, not a test of speed: prints MB/s of full-frame copies for each rotation
    /// (set KIOSK_BENCH=1; build with -c release for meaningful figures).
    @Test(.enabled(if: getenvString("KIOSK_BENCH") != nil))
    func benchmarkFullFrameCopy() {
        let f = Self.frame(width: 800, height: 480)
        for rotation in Rotation.allCases {
            let pw = rotation == .deg90 || rotation == .deg270 ? 480 : 800
            let stride = (pw * 4 + 255) / 256 * 256
            let dst = UnsafeMutableRawPointer.allocate(byteCount: stride * 800, alignment: 64)
            defer { dst.deallocate() }
            let rounds = 200
            let start = MonotonicClock.now()
            for _ in 0..<rounds {
                ScanoutCopy.copy(f, damage: f.bounds, rotation: rotation, to: dst, destinationStride: stride)
            }
            let s = MonotonicClock.now().seconds(since: start)
            let mb = Double(800 * 480 * 4 * rounds) / 1e6
            print("ScanoutCopy \(rotation) 800x480: \(Int(s / Double(rounds) * 1e6)) µs/frame, \(Int(mb / s)) MB/s")
            #expect(dst.load(fromByteOffset: 0, as: UInt32.self) != 0, "the copy wrote the destination")
        }
    }
}

func getenvString(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
