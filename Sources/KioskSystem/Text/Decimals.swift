import CardModel

/// Numbers as text without Foundation: as JSON, evemu and config files write them (no
/// exponent, trailing zeros dropped) and for people (a fixed number of decimals).

/// A JSON number with at most `decimals` fraction digits, trailing zeros dropped
/// (`decimalText`, which the pure model's log lines use too).
package func jsonNumber(_ value: Double, decimals: Int) -> String { decimalText(value, decimals: decimals) }

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
