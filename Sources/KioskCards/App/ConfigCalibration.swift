import CardModel
import KioskInput
import KioskSystem

/// Computes the `touch-matrix` config value from taps on known targets (what
/// `KioskCards calibrate` shows: four targets near the corners).
///
/// Pure. Works in the spaces of `TouchMapping`: a tap is measured as a *normalised device*
/// point (step 1 of the mapping, before any calibration), a target is a *logical* screen
/// point. The target is taken back through the display rotation and the touch-only transform
/// to the normalised space the calibration matrix produces, and an affine matrix is fitted to
/// the pairs by least squares — exact for three or more consistent taps, a best fit for four
/// slightly noisy ones (libinput's calibration matrix is the same 2×3 affine form).
enum TouchCalibration {
    struct Result: Hashable, Sendable {
        var matrix: TouchMatrix
        /// The largest distance, in screen points, between a target and where its tap now lands.
        var worstErrorPoints: Double
    }

    /// The matrix that maps each raw tap onto its target; nil when the taps cannot determine one
    /// (fewer than three, or all on one line: tap the targets again).
    static func solve(targets: [Point], taps: [Point], mapping: TouchMapping) -> Result? {
        guard targets.count == taps.count, targets.count >= 3 else { return nil }
        guard let undoTransform = inverse(of: mapping.touchTransform) else { return nil }
        let wanted = targets.map { target -> Point in
            let onPanel = mapping.rotation.toPhysical(target, physical: mapping.panel)
            let normalised = Point(x: onPanel.x / mapping.panel.width, y: onPanel.y / mapping.panel.height)
            return undoTransform.apply(normalised)
        }
        guard let row1 = fit(taps, wanted.map(\.x)), let row2 = fit(taps, wanted.map(\.y)) else { return nil }
        let m = TouchMatrix(a: row1.0, b: row1.1, c: row1.2, d: row2.0, e: row2.1, f: row2.2)
        guard abs(m.a * m.e - m.b * m.d) > 1e-9 else { return nil }
        var worst = 0.0
        for (tap, target) in zip(taps, targets) {
            var calibrated = mapping
            calibrated.calibration = m
            let n = calibrated.touchTransform.apply(m.apply(tap))
            let onPanel = Point(x: n.x * mapping.panel.width, y: n.y * mapping.panel.height)
            let landed = mapping.rotation.toLogical(onPanel, physical: mapping.panel)
            worst = max(worst, (landed - target).length)
        }
        return Result(matrix: m, worstErrorPoints: worst)
    }

    /// Four targets 10 % in from the corners of a logical screen, in tap order (clockwise
    /// from the top left) — where `calibrate` draws them.
    static func targets(for screen: Size) -> [Point] {
        let (x0, y0) = (screen.width * 0.1, screen.height * 0.1)
        let (x1, y1) = (screen.width * 0.9, screen.height * 0.9)
        return [Point(x: x0, y: y0), Point(x: x1, y: y0), Point(x: x1, y: y1), Point(x: x0, y: y1)]
    }

    /// Least squares for u·p.x + v·p.y + w ≈ value over all points (3×3 normal equations).
    private static func fit(_ points: [Point], _ values: [Double]) -> (Double, Double, Double)? {
        var ata = [[Double]](repeating: [0, 0, 0], count: 3)
        var atb = [0.0, 0.0, 0.0]
        for (p, v) in zip(points, values) {
            let row = [p.x, p.y, 1.0]
            for i in 0..<3 {
                for j in 0..<3 { ata[i][j] += row[i] * row[j] }
                atb[i] += row[i] * v
            }
        }
        guard let s = solve3(ata, atb) else { return nil }
        return (s[0], s[1], s[2])
    }

    /// Gaussian elimination with partial pivoting; nil for a (near-)singular system.
    private static func solve3(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        var m = a
        var y = b
        let scale = max(1e-12, m.flatMap { $0 }.map(abs).max() ?? 0)
        for col in 0..<3 {
            let pivot = (col..<3).max { abs(m[$0][col]) < abs(m[$1][col]) }!
            guard abs(m[pivot][col]) > 1e-10 * scale else { return nil }
            m.swapAt(col, pivot)
            y.swapAt(col, pivot)
            for r in (col + 1)..<3 {
                let k = m[r][col] / m[col][col]
                for c in col..<3 { m[r][c] -= k * m[col][c] }
                y[r] -= k * y[col]
            }
        }
        var x = [0.0, 0.0, 0.0]
        for r in stride(from: 2, through: 0, by: -1) {
            var s = y[r]
            for c in (r + 1)..<3 { s -= m[r][c] * x[c] }
            x[r] = s / m[r][r]
        }
        return x
    }

    /// The affine inverse of `m`; nil when it flattens the plane.
    static func inverse(of m: TouchMatrix) -> TouchMatrix? {
        let det = m.a * m.e - m.b * m.d
        guard abs(det) > 1e-12 else { return nil }
        let a = m.e / det
        let b = -m.b / det
        let d = -m.d / det
        let e = m.a / det
        return TouchMatrix(a: a, b: b, c: -(a * m.c + b * m.f), d: d, e: e, f: -(d * m.c + e * m.f))
    }
}

extension TouchCalibration {
    /// "512.0x300.0": a point as the logs of `calibrate` and the staff menu print it.
    static func pointText(_ p: Point) -> String {
        "\(jsonNumber(p.x, decimals: 1))x\(jsonNumber(p.y, decimals: 1))"
    }
}
