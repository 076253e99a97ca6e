import CardModel
import Glibc
import KioskSystem

/// Every figure of the report, computed from the source's aggregates (docs/REPORT.md defines
/// each one). Rates and intervals are computed here from counts; privacy suppression too.
package struct ReportFigures {
    package struct Settings: Hashable {
        package var minimumN = 20
        package var k = 5

        package init(minimumN: Int = 20, k: Int = 5) {
            self.minimumN = minimumN
            self.k = k
        }
    }

    /// Wilson score interval at 95 % (z = 1.959964) for `right` of `n`; nil when n = 0.
    package static func wilson(_ right: Int, _ n: Int) -> (low: Double, high: Double)? {
        guard n > 0 else { return nil }
        let z = 1.959963984540054
        let nn = Double(n)
        let p = Double(right) / nn
        let denominator = 1 + z * z / nn
        let centre = (p + z * z / (2 * nn)) / denominator
        let half = z * (p * (1 - p) / nn + z * z / (4 * nn * nn)).squareRoot() / denominator
        return (max(0, centre - half), min(1, centre + half))
    }

    /// The cards of one deck version as its deck file or the fleet's published copy lists them.
    package struct DeckCards: Hashable, Sendable {
        /// (card id, title) in deck order.
        package var cards: [(id: String, title: String)]
        /// Where the deck came from ("the deck file …", "fleet.decks").
        package var source: String

        package init(cards: [(id: String, title: String)], source: String) {
            self.cards = cards
            self.source = source
        }

        package static func == (a: DeckCards, b: DeckCards) -> Bool {
            a.source == b.source && a.cards.map(\.id) == b.cards.map(\.id)
                && a.cards.map(\.title) == b.cards.map(\.title)
        }
        package func hash(into h: inout Hasher) {
            h.combine(source)
            for c in cards { h.combine(c.id) }
        }
    }

    /// The period before the report's, as long as it, aggregated the same way.
    package struct Previous {
        package var aggregates: ReportAggregates
        package var sinceMs: Int64
        package var untilMs: Int64

        package init(aggregates: ReportAggregates, sinceMs: Int64, untilMs: Int64) {
            self.aggregates = aggregates
            self.sinceMs = sinceMs
            self.untilMs = untilMs
        }
    }

    package let aggregates: ReportAggregates
    package let settings: Settings
    package let filter: ReportFilter
    package let source: String
    package let generatedMs: Int64
    /// Titles and deck order per "id@version"; a deck version not here shows its cards by id.
    package let decks: [String: DeckCards]
    package let previous: Previous?

    package init(
        aggregates: ReportAggregates, settings: Settings, filter: ReportFilter, source: String, generatedMs: Int64,
        decks: [String: DeckCards] = [:], previous: Previous? = nil
    ) {
        self.aggregates = aggregates
        self.settings = settings
        self.filter = filter
        self.source = source
        self.generatedMs = generatedMs
        self.decks = decks
        self.previous = previous
    }

    /// The previous period's `(period's end, period's start)` for a report from `sinceMs` to
    /// `untilMs` (nil: until `nowMs`): as long as it, ending where it starts. nil without --since.
    package static func previousPeriod(sinceMs: Int64?, untilMs: Int64?, nowMs: Int64) -> (since: Int64, until: Int64)?
    {
        guard let since = sinceMs else { return nil }
        let until = untilMs ?? nowMs
        guard until > since else { return nil }
        return (since - (until - since), since)
    }

    /// A card's title from its deck (nil: the deck version or the card is not known here).
    package func title(deck: String, version: Int, card: String) -> String? {
        decks["\(deck)@\(version)"]?.cards.first { $0.id == card }?.title
    }

    /// The cards in deck order: by deck id and version, then the card's place in the deck file
    /// when the deck is known (cards it does not list after), else the position it was shown at
    /// most often.
    package var orderedCards: [ReportAggregates.Card] {
        func place(_ c: ReportAggregates.Card) -> Int {
            if let deck = decks["\(c.deckID)@\(c.deckVersion)"] {
                return deck.cards.firstIndex { $0.id == c.cardID }.map { $0 + 1 } ?? Int.max - 1
            }
            return c.usualPosition ?? Int.max
        }
        return aggregates.cards.enumerated().sorted { l, r in
            if l.element.deckID != r.element.deckID || l.element.deckVersion != r.element.deckVersion {
                return l.offset < r.offset
            }
            let lp = place(l.element)
            let rp = place(r.element)
            return lp != rp ? lp < rp : l.offset < r.offset
        }.map(\.element)
    }

    /// A JSON document of every figure (the same numbers the page shows).
    package var json: JSONValue {
        let a = aggregates
        let k = settings.k
        func ratio(_ x: Int, _ n: Int) -> JSONValue { n > 0 ? .number(Double(x) / Double(n), 6) : .null }
        func time(_ ms: Int64?) -> JSONValue { ms.map { .string(WallClock.iso8601(milliseconds: $0)) } ?? .null }
        func approval(_ right: Int, _ n: Int, visits: Int) -> [(String, JSONValue)] {
            guard visits >= k else {
                return [("suppressed", .bool(true)), ("n", .null), ("right", .null), ("approval", .null)]
            }
            let w = Self.wilson(right, n)
            return [
                ("suppressed", .bool(false)), ("n", .int(n)), ("right", .int(right)), ("approval", ratio(right, n)),
                ("low", w.map { .number($0.low, 6) } ?? .null), ("high", w.map { .number($0.high, 6) } ?? .null),
            ]
        }
        // In the source's order: deck id, version, then deck order (the card's usual position).
        // A card's title from its deck (null: the deck version is not known to the report).
        func title(_ deck: String, _ version: Int, _ card: String) -> JSONValue {
            self.title(deck: deck, version: version, card: card).map { .string($0) } ?? .null
        }
        let before = previous.map { p in
            Dictionary(p.aggregates.cards.map { ("\($0.deckID)@\($0.deckVersion)\u{1}\($0.cardID)", $0) }) { x, _ in x }
        }
        let cards: [JSONValue] = orderedCards.map { c in
            var fields: [(String, JSONValue)] = [
                ("deck", .string(c.deckID)), ("version", .int(c.deckVersion)),
                ("deckVersion", .string("\(c.deckID)@\(c.deckVersion)")), ("card", .string(c.cardID)),
                ("title", title(c.deckID, c.deckVersion, c.cardID)),
                ("position", c.usualPosition.map { .int($0) } ?? .null),
            ]
            fields += approval(c.right, c.n, visits: c.visits)
            if let before {
                let p = before["\(c.deckID)@\(c.deckVersion)\u{1}\(c.cardID)"]
                let then = approval(p?.right ?? 0, p?.n ?? 0, visits: p?.visits ?? 0).filter {
                    ["suppressed", "n", "right", "approval"].contains($0.0)
                }
                let now = c.visits >= k && c.n > 0 ? Double(c.right) / Double(c.n) : nil
                let was = then.first { $0.0 == "approval" }?.1.double
                fields += [
                    ("previous", .object(then)),
                    ("approvalChange", now != nil && was != nil ? .number(now! - was!, 6) : .null),
                ]
            }
            if c.visits >= k {
                fields += [
                    ("left", .int(c.n - c.right)), ("visits", .int(c.visits)),
                    ("belowMinN", .bool(c.n < settings.minimumN)),
                    ("medianDwellMs", c.medianDwellMs.map { .int(Int($0)) } ?? .null),
                    ("p90DwellMs", c.p90DwellMs.map { .int(Int($0)) } ?? .null),
                    ("tooFastShare", ratio(c.tooFast, c.n)),
                ]
            }
            return .object(fields)
        }
        // Per deck version: the funnel by position (visits whose furthest decided position is ≥ p),
        // where visits stopped without completing the deck (drop-off; a completed visit never
        // counts), and approval by position. Positions are 1-based (1 = the first card).
        let decks: [JSONValue] = a.decks.map { d in
            let last = max(d.stoppedAt.keys.max() ?? 0, d.completedAt.keys.max() ?? 0)
            var reached: [JSONValue] = []
            if last >= 1 {
                for p in 1...last {
                    let atLeast =
                        d.stoppedAt.filter { $0.key >= p }.values.reduce(0, +)
                        + d.completedAt.filter { $0.key >= p }.values.reduce(0, +)
                    reached.append(
                        .object([
                            ("position", .int(p)), ("visits", .int(atLeast)),
                            ("stoppedHere", .int(d.stoppedAt[p] ?? 0)),
                            ("completedHere", .int(d.completedAt[p] ?? 0)),
                        ]))
                }
            }
            let positions: [JSONValue] = d.positions.keys.sorted().map { p in
                let c = d.positions[p]!
                return .object(
                    [("position", .int(p)), ("visits", .int(c.visits))] + approval(c.right, c.n, visits: c.visits))
            }
            return .object([
                ("deck", .string(d.deckID)), ("version", .int(d.version)), ("name", .string(d.name)),
                ("visitsStarted", .int(d.visits)), ("firstDecision", .int(d.visitsWithDecision)),
                ("completed", .int(d.completed)), ("reached", .array(reached)), ("positionBias", .array(positions)),
            ])
        }
        var reasons: [(String, JSONValue)] = []
        for name in ["completed", "idle", "reset", "shutdown"] { reasons.append((name, .int(a.endReasons[name] ?? 0))) }
        let other = a.endReasons.filter {
            $0.key != nil && !["completed", "idle", "reset", "shutdown"].contains($0.key!)
        }
        for (name, count) in other.sorted(by: { $0.key! < $1.key! }) { reasons.append((name!, .int(count))) }
        reasons.append(("unknown", .int(a.endReasons[nil] ?? 0)))
        let funnel: JSONValue = .object([
            ("attractShown", a.attractShown.map { .int($0) } ?? .null), ("visitsStarted", .int(a.visits)),
            ("firstDecision", .int(a.visitsWithDecision)), ("completed", .int(a.endReasons["completed"] ?? 0)),
            ("endReasons", .object(reasons)),
        ])
        let cells: [JSONValue] = a.hourWeekday.keys.sorted().map { key in
            let c = a.hourWeekday[key]!
            return .object(
                [
                    ("weekday", .int(key / 24)), ("hour", .int(key % 24)),
                    ("visits", c.visits >= k ? .int(c.visits) : .null),
                ]
                    + approval(c.right, c.n, visits: c.visits))
        }
        // Every day from the first to the last, days without visits as 0 (a zero names no one).
        let days: [JSONValue] = Self.everyDay(a.days.keys.sorted()).map { day in
            let c = a.days[day] ?? .init()
            return .object(
                [("date", .string(day)), ("visits", c.visits >= k || c.visits == 0 ? .int(c.visits) : .null)]
                    + approval(c.right, c.n, visits: c.visits))
        }
        let ranked = a.kiosks.sorted {
            let l = $0.activeDays > 0 ? Double($0.visits) / Double($0.activeDays) : 0
            let r = $1.activeDays > 0 ? Double($1.visits) / Double($1.activeDays) : 0
            return l != r ? l > r : $0.kioskID < $1.kioskID
        }
        let kiosks: [JSONValue] = ranked.enumerated().map { rank, kiosk in
            var fields: [(String, JSONValue)] = [
                ("kiosk", .string(kiosk.kioskID)), ("rank", .int(rank + 1)), ("lastSeen", time(kiosk.lastSeenMs)),
                // Fleet only (heartbeats); null from a kiosk's SQLite.
                ("uptimeShare", kiosk.uptimeShare.map { .number($0, 4) } ?? .null),
                ("lastHeartbeat", time(kiosk.lastHeartbeatMs)),
            ]
            if kiosk.visits >= k {
                fields += [
                    ("visits", .int(kiosk.visits)), ("activeDays", .int(kiosk.activeDays)),
                    (
                        "visitsPerDay",
                        kiosk.activeDays > 0 ? .number(Double(kiosk.visits) / Double(kiosk.activeDays), 3) : .null
                    ),
                    ("completion", ratio(kiosk.completed, kiosk.visits)),
                ]
            } else {
                fields += [("visits", .null)]
            }
            return .object(fields + approval(kiosk.right, kiosk.n, visits: kiosk.visits))
        }
        var methods: [(String, JSONValue)] = []
        for m in ["swipe", "button", "key", "switch", "tap"] { methods.append((m, .int(a.inputMethods[m] ?? 0))) }
        methods.append(("unknown", .int(a.inputMethods[nil] ?? 0)))
        // Most decisions first, then by tag; the rows without a language last.
        let tagged = a.languages.compactMap { key, n in key.map { ($0, n) } }.sorted { ($1.1, $0.0) < ($0.1, $1.0) }
        var languages: [JSONValue] = tagged.map { .object([("language", .string($0.0)), ("decisions", .int($0.1))]) }
        if let unknown = a.languages[nil] {
            languages.append(.object([("language", .null), ("decisions", .int(unknown))]))
        }
        let modes: JSONValue = .object([
            ("on", .int(a.accessibilityModes[true] ?? 0)), ("off", .int(a.accessibilityModes[false] ?? 0)),
            ("unknown", .int(a.accessibilityModes[nil] ?? 0)),
        ])
        let quality: JSONValue = .object([
            ("undoRate", ratio(a.undoRows, a.decidedRows)), ("undoRows", .int(a.undoRows)),
            ("decidedRows", .int(a.decidedRows)), ("tooFastShare", ratio(a.tooFastAnswers, a.finalAnswers)),
            ("inputMethods", .object(methods)), ("languages", .array(languages)), ("accessibilityMode", modes),
            (
                "mashing",
                .object([
                    ("visits", .int(a.mashingVisits)), ("decisions", .int(a.mashingDecisions)),
                    ("excluded", .bool(!filter.includeMashing)),
                ])
            ),
        ])
        // Each card's approval over time: per local day, or per week (from Monday) beyond 62 days.
        let allDays = Self.everyDay((Set(a.days.keys).union(a.cardDays.map(\.segment))).sorted())
        let weekly = allDays.count > 62
        func bucket(_ day: String) -> String {
            guard weekly, let n = Self.dayNumber(day) else { return day }
            // 1970-01-01 was a Thursday: Monday of the week is n − (n + 3) mod 7.
            return Self.dayText(n - ((n + 3) % 7 + 7) % 7)
        }
        var buckets: [String] = []
        for day in allDays where buckets.last != bucket(day) { buckets.append(bucket(day)) }
        func key(_ c: ReportAggregates.CardCell) -> String { "\(c.deckID)@\(c.deckVersion)\u{1}\(c.cardID)" }
        var perBucket: [String: [String: (n: Int, right: Int)]] = [:]
        for c in a.cardDays {
            let b = bucket(c.segment)
            let old = perBucket[key(c), default: [:]][b] ?? (0, 0)
            perBucket[key(c), default: [:]][b] = (old.n + c.n, old.right + c.right)
        }
        var perKiosk: [String: [String: (n: Int, right: Int)]] = [:]
        for c in a.kioskCards { perKiosk[key(c), default: [:]][c.segment] = (c.n, c.right) }
        let kioskOrder = ranked.map(\.kioskID)
        var overTime: [JSONValue] = []
        var byKiosk: [JSONValue] = []
        for c in orderedCards where c.visits >= k {
            let id = "\(c.deckID)@\(c.deckVersion)\u{1}\(c.cardID)"
            let head: [(String, JSONValue)] = [
                ("deckVersion", .string("\(c.deckID)@\(c.deckVersion)")), ("card", .string(c.cardID)),
                ("title", title(c.deckID, c.deckVersion, c.cardID)),
            ]
            let points: [JSONValue] = buckets.map { b in
                let x = perBucket[id]?[b] ?? (0, 0)
                return .object([("period", .string(b))] + approval(x.right, x.n, visits: x.n == 0 ? k : x.n))
            }
            overTime.append(.object(head + [("points", .array(points))]))
            let cells: [JSONValue] = kioskOrder.map { kiosk in
                let x = perKiosk[id]?[kiosk] ?? (0, 0)
                return .object([("kiosk", .string(kiosk))] + approval(x.right, x.n, visits: x.n == 0 ? k : x.n))
            }
            byKiosk.append(.object(head + [("kiosks", .array(cells))]))
        }
        let finalRight = a.cards.reduce(0) { $0 + $1.right }
        var comparison: JSONValue = .null
        if let previous {
            let p = previous.aggregates
            let right = p.cards.reduce(0) { $0 + $1.right }
            comparison = .object([
                ("since", time(previous.sinceMs)), ("until", time(previous.untilMs)), ("visits", .int(p.visits)),
                ("finalAnswers", .int(p.finalAnswers)), ("right", .int(right)),
                ("approval", ratio(right, p.finalAnswers)), ("completed", .int(p.endReasons["completed"] ?? 0)),
            ])
        }
        return .object([
            ("generated", time(generatedMs)), ("source", .string(source)),
            (
                "filter",
                .object([
                    ("since", time(filter.sinceMs)), ("until", time(filter.untilMs)),
                    ("kiosk", filter.kioskID.map { .string($0) } ?? .null),
                    ("deck", filter.deckID.map { .string($0) } ?? .null), ("minN", .int(settings.minimumN)),
                    ("k", .int(k)), ("cooldownMs", .int(Int(filter.cooldownMs))),
                    ("mashMinimum", .int(filter.mashMinimum)), ("tooFastMs", .int(Int(filter.tooFastMs))),
                    ("includeMashing", .bool(filter.includeMashing)), ("timeZone", .string(Self.timeZoneName)),
                ])
            ),
            (
                "schema",
                .object([
                    ("visits", .bool(a.hasVisits)), ("events", .bool(a.hasEvents)),
                    ("positions", .bool(a.hasPositions)),
                ])
            ),
            (
                "totals",
                .object([
                    ("decisionRows", .int(a.decisionRows)), ("visits", .int(a.visits)),
                    ("finalAnswers", .int(a.finalAnswers)), ("right", .int(finalRight)),
                    ("approval", ratio(finalRight, a.finalAnswers)),
                    ("completed", .int(a.endReasons["completed"] ?? 0)),
                    ("first", time(a.firstMs)), ("last", time(a.lastMs)),
                ])
            ),
            ("previousPeriod", comparison),
            ("cards", .array(cards)), ("funnel", funnel), ("hourWeekday", .array(cells)), ("days", .array(days)),
            ("decks", .array(decks)), ("kiosks", .array(kiosks)), ("quality", quality),
            ("approvalOverTime", .object([("bucket", .string(weekly ? "week" : "day")), ("cards", .array(overTime))])),
            ("kioskCards", .object([("kiosks", .array(kioskOrder.map { .string($0) })), ("cards", .array(byKiosk))])),
            ("linkCodes", codesJSON),
        ])
    }

    /// The dates from the first to the last of `sorted` ("YYYY-MM-DD"), gaps filled; at most ten
    /// years (a longer span keeps only the dates given).
    static func everyDay(_ sorted: [String]) -> [String] {
        guard let first = sorted.first.flatMap(dayNumber), let last = sorted.last.flatMap(dayNumber),
            last >= first, last - first < 3660
        else { return sorted }
        return (first...last).map(dayText)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian "YYYY-MM-DD" (CardModel's `CivilDate`).
    static func dayNumber(_ text: String) -> Int? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return CivilDate(year: parts[0], month: parts[1], day: parts[2]).daysSinceEpoch
    }

    /// The "YYYY-MM-DD" of a day number.
    static func dayText(_ n: Int) -> String {
        let date = CivilDate(daysSinceEpoch: n)
        func pad(_ v: Int, _ width: Int) -> String {
            let t = String(v)
            return String(repeating: "0", count: max(0, width - t.count)) + t
        }
        return "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))"
    }

    /// The zone hours, weekdays and days are counted in (the process's, from TZ).
    package static var timeZoneName: String {
        if let tz = getenv("TZ") { return String(cString: tz) }
        var t = time(nil)
        var parts = tm()
        localtime_r(&t, &parts)
        return parts.tm_zone.map { String(cString: $0) } ?? "local"
    }
}

/// A small JSON document model for the report (ordered objects, numbers with fixed decimals).
package indirect enum JSONValue: Hashable {
    case null
    case bool(Bool)
    case int(Int)
    /// A number written with at most `decimals` decimals.
    case number(Double, Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (a: JSONValue, b: JSONValue) -> Bool { a.text() == b.text() }
    package func hash(into h: inout Hasher) { h.combine(text()) }

    /// The value at a dotted path ("cards.3.approval"), for the page's figure cells.
    package subscript(path: String) -> JSONValue? {
        var node: JSONValue? = self
        for part in path.split(separator: ".") {
            switch node {
            case .object(let fields): node = fields.first { $0.0 == part }?.1
            case .array(let items): node = Int(part).flatMap { $0 < items.count ? items[$0] : nil }
            default: return nil
            }
        }
        return node
    }

    package func text(indent: Int? = nil, level: Int = 0) -> String {
        let pad = indent.map { "\n" + String(repeating: " ", count: $0 * (level + 1)) } ?? ""
        let close = indent.map { "\n" + String(repeating: " ", count: $0 * level) } ?? ""
        let colon = indent == nil ? ":" : ": "
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .number(let x, let decimals): return x.isFinite ? jsonNumber(x, decimals: decimals) : "null"
        case .string(let s): return JSONWriter.quoted(s)
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            return "[" + items.map { pad + $0.text(indent: indent, level: level + 1) }.joined(separator: ",") + close
                + "]"
        case .object(let fields):
            guard !fields.isEmpty else { return "{}" }
            return "{"
                + fields.map { pad + JSONWriter.quoted($0.0) + colon + $0.1.text(indent: indent, level: level + 1) }
                .joined(separator: ",") + close + "}"
        }
    }

    package var double: Double? {
        switch self {
        case .int(let i): Double(i)
        case .number(let x, _): x
        default: nil
        }
    }
}
