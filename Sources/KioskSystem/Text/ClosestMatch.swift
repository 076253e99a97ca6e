/// Suggestions for misspelt names ("did you mean 'idle-timeout'?") in deck files, the config
/// file and command-line flags.
package enum ClosestMatch {
    /// Levenshtein distance over Unicode scalars, case-insensitive.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased().unicodeScalars)
        let y = Array(b.lowercased().unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                let substitution = previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }

    /// The candidate nearest to `name`, if it is near enough to be a plausible typo
    /// (at most a third of the longer name's length, and at least 1 edit allowed; prefixes count).
    package static func suggestion(for name: String, among candidates: [String]) -> String? {
        var best: (name: String, distance: Int)?
        for c in candidates {
            let d = editDistance(name, c)
            if best == nil || d < best!.distance { best = (c, d) }
        }
        guard let best else { return nil }
        let limit = max(2, max(name.count, best.name.count) / 3)
        if best.distance <= limit { return best.name }
        // "idle" for "idle-timeout": a prefix of a longer name is a plausible slip too.
        if name.count >= 3, let prefixed = candidates.first(where: { $0.lowercased().hasPrefix(name.lowercased()) }) {
            return prefixed
        }
        return nil
    }

    /// " — did you mean 'x'?" or ", valid: a, b, c" when nothing is close.
    package static func hint(for name: String, among candidates: [String], quote: String = "'") -> String {
        if let s = suggestion(for: name, among: candidates) {
            return "did you mean \(quote)\(s)\(quote)?"
        }
        return "valid: " + candidates.joined(separator: ", ")
    }
}
