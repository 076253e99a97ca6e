/// Numbers as text without Foundation, for the kiosk's log lines and every file format.

/// A JSON number with at most `decimals` fraction digits, trailing zeros dropped.
package func decimalText(_ value: Double, decimals: Int) -> String {
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
