/// Numbers as text without Foundation: as JSON, evemu and config files write them (no
/// exponent, trailing zeros dropped) and for people (a fixed number of decimals).

/// A JSON number with at most `decimals` fraction digits, trailing zeros dropped.
package func jsonNumber(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return "0" }
    guard decimals > 0 else {
        let whole = value.rounded()
        return abs(whole) < 9e18 ? String(Int64(whole)) : String(value)
    }
    var scale: Int64 = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (value * Double(scale)).rounded()
    guard abs(scaled) < 9e18 else { return String(value) }
    let n = Int64(scaled)
    let whole = abs(n) / scale
    var fraction = String(abs(n) % scale)
    fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
    while fraction.last == "0" { fraction.removeLast() }
    return (n < 0 ? "-" : "") + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
}

extension String {
    /// A number with two decimals, without Foundation.
    package init(format2 value: Double) {
        guard value.isFinite else {
            self = "\(value)"
            return
        }
        let scaled = Int((abs(value) * 100).rounded())
        let frac = scaled % 100
        self = (value < 0 ? "-" : "") + "\(scaled / 100)." + (frac < 10 ? "0" : "") + "\(frac)"
    }
}
