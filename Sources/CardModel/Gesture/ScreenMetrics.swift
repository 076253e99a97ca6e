/// The logical screen the model lays out on: its size in points and how many points make a
/// millimetre on the glass (for thresholds in physical units).
public struct ScreenMetrics: Hashable, Sendable {
    /// In points.
    public var size: Size
    public var pointsPerMillimetre: Double

    public init(size: Size, pointsPerMillimetre: Double) {
        self.size = size
        self.pointsPerMillimetre = pointsPerMillimetre
    }

    /// The physical distance a finger may wander before a touch counts as a drag.
    public static let touchSlopMillimetres = 2.0

    /// `touchSlopMillimetres` in points: about 10 pt on a 7" 800×480 panel at 1 pt/px.
    /// Falls back to 10 pt when the metrics are unusable, and stays within 4…40 pt.
    public var touchSlop: Double {
        guard pointsPerMillimetre.isFinite, pointsPerMillimetre > 0 else { return 10 }
        return min(max(Self.touchSlopMillimetres * pointsPerMillimetre, 4), 40)
    }

    /// The size with unusable values (negative, NaN) replaced by zero.
    var safeSize: Size {
        func ok(_ v: Double) -> Double { v.isFinite && v > 0 ? v : 0 }
        return Size(width: ok(size.width), height: ok(size.height))
    }
}
