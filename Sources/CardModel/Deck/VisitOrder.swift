/// The order a visit sees a deck's cards in: file order, or — with `shuffle` — a random order
/// seeded per visit, with some cards pinned first or last (an intro card, a thank-you card).
///
/// The same seed always gives the same order, on every platform and Swift version (its own
/// Fisher–Yates over `SplitMix64`, not the standard library's unspecified `shuffle`). A card's
/// position in the visit is its index in `order(_:seed:)`; the app passes that order to the
/// deck, so what the visitor sees is exactly this order.
public struct VisitOrder: Hashable, Sendable {
    /// Shuffle the cards that are not pinned; false keeps file order (pins are then moot).
    public var shuffle: Bool
    /// Card ids shown first, in this order, before the shuffled rest.
    public var pinnedFirst: [String]
    /// Card ids shown last, in this order, after the shuffled rest.
    public var pinnedLast: [String]

    public init(shuffle: Bool = false, pinnedFirst: [String] = [], pinnedLast: [String] = []) {
        self.shuffle = shuffle
        self.pinnedFirst = pinnedFirst
        self.pinnedLast = pinnedLast
    }

    /// The realised order of `cards` for the visit seeded with `seed`. Pinned ids that name no
    /// card are skipped; every card appears exactly once.
    public func order(_ cards: [Card], seed: UInt64) -> [Card] {
        guard shuffle else { return cards }
        var byID: [String: Card] = [:]
        for c in cards where byID[c.id] == nil { byID[c.id] = c }
        var used = Set<String>()
        func take(_ ids: [String]) -> [Card] {
            ids.compactMap { id in
                guard let c = byID[id], !used.contains(id) else { return nil }
                used.insert(id)
                return c
            }
        }
        let first = take(pinnedFirst)
        let last = take(pinnedLast)
        var middle = cards.filter { !used.contains($0.id) }
        var rng = SplitMix64(seed: seed)
        if middle.count > 1 {
            for i in stride(from: middle.count - 1, to: 0, by: -1) {
                let j = Int(rng.next() % UInt64(i + 1))
                middle.swapAt(i, j)
            }
        }
        return first + middle + last
    }

    /// Each card's 0-based position in the realised `order`, by card id (what a stored
    /// decision's position is).
    public static func positions(_ order: [Card]) -> [String: Int] {
        var out: [String: Int] = [:]
        for (i, c) in order.enumerated() where out[c.id] == nil { out[c.id] = i }
        return out
    }
}

/// The per-deck cooldown against button-mashing: a decision that comes less than `seconds`
/// after the visit's previous one is flagged (still stored, never dropped), so analyses can
/// tell mashing from choices. 0 switches it off.
public struct DecisionCooldown: Hashable, Sendable {
    public var seconds: Double
    private var previous: Instant?

    public init(seconds: Double = 0) { self.seconds = seconds }

    /// Whether `decision` comes too fast after the previous one; call once per decision in
    /// order. Every decision counts as the "previous" for the next, flagged or not.
    public mutating func isTooFast(_ decision: Decision) -> Bool {
        defer { previous = decision.time }
        guard seconds > 0, let previous else { return false }
        return decision.time.seconds(since: previous) < seconds
    }

    /// A new visit: its first decision is never too fast.
    public mutating func reset() { previous = nil }
}
