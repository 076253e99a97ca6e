/// The uptime share that leaves out-of-order time: of the time a kiosk was in service (not
/// between an "out of order" and the next "back in service" entry), how much it was up.
///
/// Pure: entries and the times the kiosk was seen up (heartbeats) in, a share out.
extension MaintenanceLog {
    /// Wall-clock intervals (ms, half-open) within `period` when `kioskID` was in service.
    /// Before its first entry a kiosk is in service; notes change nothing.
    package static func inService(_ entries: [Entry], kioskID: String, period: Range<Int64>) -> [Range<Int64>] {
        var out: [Range<Int64>] = []
        var inService = true
        var since = period.lowerBound
        for e in entries.filter({ $0.kioskID == kioskID }).sorted(by: { $0.wallTimeMs < $1.wallTimeMs }) {
            let t = min(max(e.wallTimeMs, period.lowerBound), period.upperBound)
            switch e.state {
            case .outOfOrder where inService:
                if t > since { out.append(since..<t) }
                inService = false
            case .inService where !inService:
                since = t
                inService = true
            default: break
            }
        }
        if inService && period.upperBound > since { out.append(since..<period.upperBound) }
        return out
    }

    /// The share of in-service time in `period` covered by `up` (intervals the kiosk was seen
    /// up, e.g. each heartbeat to the next one expected); nil when it was never in service.
    package static func uptimeShare(
        up: [Range<Int64>], entries: [Entry], kioskID: String, period: Range<Int64>
    ) -> Double? {
        let service = inService(entries, kioskID: kioskID, period: period)
        let serviceMs = service.reduce(Int64(0)) { $0 + ($1.upperBound - $1.lowerBound) }
        guard serviceMs > 0 else { return nil }
        // Merge `up` so overlapping heartbeats count once.
        var merged: [Range<Int64>] = []
        for r in up.sorted(by: { $0.lowerBound < $1.lowerBound }) where !r.isEmpty {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        var covered: Int64 = 0
        for s in service {
            for u in merged where u.overlaps(s) {
                covered += min(s.upperBound, u.upperBound) - max(s.lowerBound, u.lowerBound)
            }
        }
        return Double(covered) / Double(serviceMs)
    }
}
