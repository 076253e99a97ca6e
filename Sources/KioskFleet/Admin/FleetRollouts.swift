/// Staged deck rollouts (`fleet publish --canary`): a group's new deck goes to a few canary
/// kiosks first; the rest of the group follows after a hold, unless a canary refused the deck
/// or went silent. Stored in `fleet.rollouts` (central schema 10), one open rollout per group.
///
/// There is no fleet daemon: a rollout is advanced (promoted or stopped) by whichever operator
/// command reads it after the hold — `fleet status` (and so the fleet-check timer, every five
/// minutes) or `fleet rollout`. Not by a kiosk: promotion assigns decks to other kiosks, which
/// a kiosk role must never be able to do (a stolen kiosk password), and a rule evaluated when
/// kiosks ask for their assignment would need exactly that. The judgement is `verdict`, pure.
package enum FleetRollouts {
    /// The hold when `--hold` is not given: long enough for every canary to download, switch
    /// and send a few heartbeats (one a minute), short enough to finish within a shift.
    package static let defaultHoldSeconds = 30 * 60

    /// Which kiosks of the group get the deck first.
    package enum Canary: Hashable, Sendable {
        /// The first N kiosks by id (byte order).
        case count(Int)
        /// The first ⌈P % of the group⌉ kiosks by id, at least one.
        case percent(Int)
        /// These kiosks, each of them in the group.
        case named([String])
    }

    /// "N" or "P%" (1 to 99), nil: neither.
    package static func parseCanary(_ text: String) -> Canary? {
        if text.hasSuffix("%") {
            let digits = text.dropLast().filter { $0 != " " }
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let p = Int(digits), (1...99).contains(p) else {
                return nil
            }
            return .percent(p)
        }
        guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(text), n >= 1 else { return nil }
        return .count(n)
    }

    /// "90s", "30m", "2h", "1d" or plain seconds, at most 30 days; nil: none of these.
    package static func parseDuration(_ text: String) -> Int? {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last, let u = units[last] {
            digits = digits.dropLast()
            unit = u
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.count <= 7,
            let n = Int(digits), n * unit <= 30 * 86_400
        else { return nil }
        return n * unit
    }

    /// The canaries among `group` (its kiosk ids). Deterministic: ids in byte order. Leaves at
    /// least one kiosk to follow, else the operator wants a plain publish.
    package static func choose(_ canary: Canary, from group: [String]) throws(FleetError) -> [String] {
        let sorted = group.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let chosen: [String]
        switch canary {
        case .count(let n): chosen = Array(sorted.prefix(n))
        case .percent(let p): chosen = Array(sorted.prefix(max(1, (sorted.count * p + 99) / 100)))
        case .named(let names):
            if let stranger = names.first(where: { !group.contains($0) }) {
                throw FleetError(
                    kind: .query,
                    message: "canary '\(stranger)' is not in the group (fleet status shows each kiosk's group)")
            }
            chosen = sorted.filter { names.contains($0) }
        }
        guard chosen.count < group.count else {
            throw FleetError(
                kind: .query,
                message:
                    "a canary of \(chosen.count) leaves none of the group's \(group.count) kiosks to follow;"
                    + " choose fewer canaries, or publish without --canary")
        }
        return chosen
    }

    /// Records a new rollout (inside the publish's transaction, after `supersede`).
    static func begin(
        group: String, deckSHA256: String, canaries: [String], holdSeconds: Int, on db: PostgresConnection
    ) throws(FleetError) {
        // Kiosk ids are [A-Za-z0-9._-]: an array literal needs no quoting.
        try db.execute(
            """
            INSERT INTO fleet.rollouts (group_name, deck_sha256, canaries, hold, started_at, hold_until)
            SELECT $1, $2, $3::text[], x.h, x.t, x.t + x.h
            FROM (SELECT clock_timestamp() AS t, make_interval(secs => $4::integer) AS h) x
            """, [group, deckSHA256, "{" + canaries.joined(separator: ",") + "}", String(holdSeconds)])
    }

    /// Closes the group's open rollout: a newer publish or a rollback to the group replaces it.
    static func supersede(group: String, on db: PostgresConnection) throws(FleetError) {
        try db.execute(
            """
            UPDATE fleet.rollouts SET state = 'superseded', reason = 'a newer publish or rollback to the group',
                changed_at = clock_timestamp(), changed_by = session_user
            WHERE group_name = $1 AND state IN ('holding', 'stopped')
            """, [group])
    }

    /// What is known about one canary.
    package struct CanaryFacts: Hashable, Sendable {
        package var kioskID: String
        package var state: KioskStatus.State
        package var silentSince: String?
        /// Its running app reported the deck applied, with no error, and a page flip after the
        /// rollout began (so the deck reached the screen).
        package var shown: Bool
        /// Why it refused the deck (its latest heartbeat that knew of the assignment), nil: it did not.
        package var refusal: String?

        package init(
            kioskID: String, state: KioskStatus.State, silentSince: String? = nil, shown: Bool, refusal: String? = nil
        ) {
            self.kioskID = kioskID
            self.state = state
            self.silentSince = silentSince
            self.shown = shown
            self.refusal = refusal
        }
    }

    /// What a holding rollout should do now.
    package enum Verdict: Hashable, Sendable {
        /// Keep holding, and why.
        case hold(String)
        case promote
        /// Stop, and why (the operator sees it in `fleet status --attention`).
        case stop(String)
    }

    /// A refusal stops the rollout at once; at the hold's end a silent (or never seen) canary
    /// stops it, one that has not shown the deck yet keeps it holding, and otherwise the rest
    /// of the group gets the deck.
    package static func verdict(deck: String, holdPassed: Bool, canaries: [CanaryFacts]) -> Verdict {
        if let refused = canaries.first(where: { $0.refusal != nil }) {
            return .stop("canary \(refused.kioskID) refused \(deck): \(refused.refusal ?? "")")
        }
        let shown = canaries.filter(\.shown).count
        guard holdPassed else { return .hold("\(shown) of \(canaries.count) canaries show it") }
        if let silent = canaries.first(where: { $0.state == .silent || $0.state == .never }) {
            let since = silent.silentSince.map { " since \($0)" } ?? ""
            return .stop("canary \(silent.kioskID) is \(silent.state.rawValue)\(since)")
        }
        if let waiting = canaries.first(where: { !$0.shown }) {
            return .hold("waiting for canary \(waiting.kioskID) to show \(deck)")
        }
        return .promote
    }

    /// One rollout, as `fleet status` shows it.
    package struct Rollout: Hashable, Sendable {
        package enum State: String, Hashable, Sendable {
            case holding, promoted, stopped, superseded
        }

        package var id: Int64
        package var group: String
        package var deckSHA256: String
        /// "id@version".
        package var deck: String
        package var state: State
        /// Why it stopped or what it waits for; for a promoted one, how many kiosks followed.
        package var reason: String?
        /// Who stopped, resumed or superseded it, nil: the rule (`verdict`).
        package var changedBy: String?
        package var startedAt: String
        package var holdUntil: String
        package var changedAt: String
        package var holdPassed: Bool
        package var canaries: [CanaryFacts]

        /// Stopped by the rule (a canary refused or went silent): needs the operator.
        package var needsAttention: Bool { state == .stopped && changedBy == nil }

        /// One line: where the rollout stands.
        package var summary: String {
            let shown = canaries.filter(\.shown).count
            let refused = canaries.filter { $0.refusal != nil }.count
            var line =
                "rollout \(group): \(deck) to \(canaries.count) "
                + "canar\(canaries.count == 1 ? "y" : "ies") (\(canaries.map(\.kioskID).joined(separator: ", "))),"
                + " \(shown) shown, \(refused) refused; "
            switch state {
            case .holding: line += "holding until \(holdUntil)"
            case .promoted: line += "promoted at \(changedAt)"
            case .stopped: line += "stopped at \(changedAt)" + (changedBy.map { " by \($0)" } ?? "")
            case .superseded: line += "superseded at \(changedAt)"
            }
            if let reason { line += ": " + reason }
            return line
        }
    }

    static func iso(_ column: String) -> String {
        "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
    }

    /// The latest rollout of each group that has one (superseded ones left out), by group;
    /// `at`: the time to judge the hold by (nil: the server's clock).
    package static func current(at: String? = nil, on db: PostgresConnection) throws(FleetError) -> [Rollout] {
        // A central schema before 10 has no rollouts (fleet init migrates it).
        guard try db.execute("SELECT to_regclass('fleet.rollouts') IS NOT NULL").scalar == "t" else { return [] }
        let rows = try db.execute(
            """
            SELECT r.id, r.group_name, r.deck_sha256, d.deck_id || '@' || d.version, r.state, r.reason,
                   r.changed_by, \(iso("r.started_at")), \(iso("r.hold_until")), \(iso("r.changed_at")),
                   coalesce($1::timestamptz, clock_timestamp()) >= r.hold_until
            FROM fleet.rollouts r JOIN fleet.decks d ON d.deck_sha256 = r.deck_sha256
            WHERE r.id IN (SELECT max(id) FROM fleet.rollouts GROUP BY group_name) AND r.state <> 'superseded'
            ORDER BY r.group_name
            """, [at])
        let status = try KioskStatus.all(on: db)
        var out: [Rollout] = []
        for v in rows.values {
            let id = Int64(v[0] ?? "") ?? 0
            let deck = v[3] ?? ""
            // Applied and flipped: the kiosk's last flip moved to the server's clock by the
            // heartbeat's own offset (received − sent), so a kiosk with a wrong clock is judged right.
            let facts = try db.execute(
                """
                SELECT c.kiosk,
                    EXISTS (SELECT FROM fleet.heartbeats h
                        WHERE h.kiosk_id = c.kiosk AND h.received_at >= r.started_at
                          AND coalesce(h.source, 'app') = 'app' AND h.deck_applied = $2
                          AND h.deck_assigned = r.deck_sha256 AND h.deck_error IS NULL
                          AND h.last_flip + (h.received_at - h.sent_at) >= r.started_at),
                    (SELECT h.deck_error FROM fleet.heartbeats h
                        WHERE h.kiosk_id = c.kiosk AND h.received_at >= r.started_at
                          AND h.deck_assigned = r.deck_sha256
                        ORDER BY h.received_at DESC LIMIT 1)
                FROM fleet.rollouts r, unnest(r.canaries) WITH ORDINALITY AS c(kiosk, n)
                WHERE r.id = $1::bigint
                ORDER BY c.n
                """, [String(id), deck])
            let canaries = facts.values.map { f in
                let kiosk = f[0] ?? ""
                let s = status.first { $0.kioskID == kiosk }
                return CanaryFacts(
                    kioskID: kiosk, state: s?.state ?? .never, silentSince: s?.silentSince, shown: f[1] == "t",
                    refusal: f[2])
            }
            out.append(
                Rollout(
                    id: id, group: v[1] ?? "", deckSHA256: v[2] ?? "", deck: deck,
                    state: Rollout.State(rawValue: v[4] ?? "") ?? .stopped, reason: v[5], changedBy: v[6],
                    startedAt: v[7] ?? "", holdUntil: v[8] ?? "", changedAt: v[9] ?? "", holdPassed: v[10] == "t",
                    canaries: canaries))
        }
        return out
    }

    /// Judges every holding rollout (`verdict`): promotes it (the deck to every other kiosk
    /// of the group now, with its history) or stops it, in one transaction under a lock, so a
    /// `fleet status` and the timer at once promote once. Returns every group's rollout after.
    @discardableResult
    package static func advance(at: String? = nil, on db: PostgresConnection) throws(FleetError) -> [Rollout] {
        try db.transaction { db in
            try db.execute("SELECT pg_advisory_xact_lock(7246003)")
            var rollouts = try current(at: at, on: db)
            for i in rollouts.indices where rollouts[i].state == .holding {
                let r = rollouts[i]
                switch verdict(deck: r.deck, holdPassed: r.holdPassed, canaries: r.canaries) {
                case .hold(let why):
                    rollouts[i].reason = why
                case .stop(let why):
                    // The time it changed as stored, so the line printed now says when it stopped.
                    let changed = try db.execute(
                        """
                        UPDATE fleet.rollouts SET state = 'stopped', reason = $2, changed_by = NULL,
                            changed_at = clock_timestamp() WHERE id = $1::bigint RETURNING \(iso("changed_at"))
                        """, [String(r.id), why])
                    rollouts[i].state = .stopped
                    rollouts[i].reason = why
                    rollouts[i].changedBy = nil
                    rollouts[i].changedAt = changed.scalar ?? r.changedAt
                case .promote:
                    let canaries = Set(r.canaries.map(\.kioskID))
                    let rest = try FleetDecks.kiosks(.group(r.group), on: db).filter { !canaries.contains($0) }
                    _ = try FleetDecks.assign(r.deckSHA256, to: rest, rollback: false, on: db)
                    let why = "to the other \(rest.count) kiosk\(rest.count == 1 ? "" : "s") of the group"
                    let changed = try db.execute(
                        """
                        UPDATE fleet.rollouts SET state = 'promoted', reason = $2, changed_by = NULL,
                            changed_at = clock_timestamp() WHERE id = $1::bigint RETURNING \(iso("changed_at"))
                        """, [String(r.id), why])
                    rollouts[i].state = .promoted
                    rollouts[i].reason = why
                    rollouts[i].changedAt = changed.scalar ?? r.changedAt
                }
            }
            return rollouts
        }
    }

    /// Stops the group's holding rollout: nothing more is promoted until `resume`. The canaries
    /// keep the deck (`fleet publish --rollback --group G` takes it back).
    package static func stop(group: String, on db: PostgresConnection) throws(FleetError) {
        let rows = try db.execute(
            """
            UPDATE fleet.rollouts SET state = 'stopped', reason = 'stopped by the operator',
                changed_by = session_user, changed_at = clock_timestamp()
            WHERE group_name = $1 AND state = 'holding' RETURNING id
            """, [group])
        if rows.count == 0 {
            throw FleetError(
                kind: .query, message: "group '\(group)' has no rollout holding (fleet status shows each rollout)")
        }
    }

    /// Resumes the group's stopped rollout: it holds again until its hold's end (or is judged at
    /// once if that has passed); a canary that still refuses the deck stops it again.
    package static func resume(group: String, on db: PostgresConnection) throws(FleetError) {
        let rows = try db.execute(
            """
            UPDATE fleet.rollouts SET state = 'holding', reason = NULL,
                changed_by = session_user, changed_at = clock_timestamp()
            WHERE group_name = $1 AND state = 'stopped' RETURNING id
            """, [group])
        if rows.count == 0 {
            throw FleetError(
                kind: .query, message: "group '\(group)' has no stopped rollout (fleet status shows each rollout)")
        }
    }
}
