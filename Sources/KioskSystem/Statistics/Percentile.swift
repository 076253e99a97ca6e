/// The nearest-rank percentile `p` (0…100) of `values`: the smallest value with at least p %
/// of the values at or below it (p 50 of [1, 2, 3, 4] is 2, p 0 is the minimum, p 100 the
/// maximum); nil without values. Every figure the kiosk and its tools print uses this rule.
package func percentile(_ p: Double, of values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}
