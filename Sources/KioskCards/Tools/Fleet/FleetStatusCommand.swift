import KioskFleet
import KioskSystem

/// `KioskCards fleet status --postgres URL [--json | --attention]`: every registered kiosk's
/// health from one query (`KioskStatus`); exit status 1 when any kiosk needs attention (for a
/// monitoring system: deploy/fleet-check).
enum FleetStatusCommand {
    struct Options: Equatable {
        var url = ""
        var credentials: String?
        var json = false
        var attention = false
    }

    static let table = OptionTable<Options>(
        command: "fleet status",
        summary: "every kiosk's health: online, silent, scheduled off or never seen; deck, backlog, touch-to-flip",
        details: """
            A kiosk is online while its running app sent a heartbeat in the last \(KioskStatus.staleAfter) s;
            silent after that, or when only 'fleet sync' (no app running) was heard from; scheduled
            off while its app said its schedule has it closed (until the reopening plus
            \(KioskStatus.staleAfter) s); never seen before its first heartbeat. UNSENT is the backlog
            the kiosk had after its last send; UPTIME the share of the last \(KioskStatus.uptimeWindowHours) h
            (or since registration) covered by the app's heartbeats; TOUCH P95 the panel's own
            input-to-flip over its last \(Int(Heartbeat.InputToFlip.window / 60)) minutes.
            A kiosk needs attention when it is silent or never seen, its deck was refused, its
            storage is failing, or it warns about its setup. Staged rollouts are judged first
            (promoted after their hold, or stopped: 'fleet rollout --help'), and each group's
            latest is listed under the table; one stopped by a canary needs attention too.
            Exit status: 0 no kiosk needs attention, 1 some kiosk does (or the server cannot be
            read), 2 usage.
            """,
        options: [
            FleetCommand.postgresOption(\.url),
            FleetCommand.credentialsOption(\.credentials),
            .flag(
                "json", help: "print one JSON object instead of the table: {\"kiosks\": [...], \"rollouts\": [...]}"
            ) { $0.json = true },
            .flag(
                "attention",
                help: "print one line per kiosk needing attention and nothing else (for a timer or cron)"
            ) { $0.attention = true },
        ],
        validate: { o in
            if o.json && o.attention { return "--json and --attention print different things; choose one" }
            return FleetCommand.requirePostgres(o.url)
        })

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        guard let db = FleetCommand.connect(options.url, credentials: options.credentials, command: "status") else {
            return 1
        }
        let kiosks: [KioskStatus]
        let rollouts: [FleetRollouts.Rollout]
        do {
            // Promotion runs here (and in `fleet rollout`): there is no fleet daemon, and the
            // fleet-check timer runs this every few minutes.
            rollouts = try FleetRollouts.advance(on: db)
            kiosks = try KioskStatus.all(on: db)
        } catch {
            Log.error("fleet status: \(FleetCommand.operatorAdvice(error))")
            return 1
        }
        var text =
            options.json
            ? json(kiosks, rollouts: rollouts) : options.attention ? attentionText(kiosks) : tableText(kiosks)
        if options.attention {
            text += rollouts.filter(\.needsAttention).map { Escape.terminal($0.summary) + "\n" }.joined()
        } else if !options.json {
            text += rollouts.map { Escape.terminal($0.summary) + "\n" }.joined()
        }
        print(text, terminator: "")
        return kiosks.allSatisfy { $0.problems.isEmpty } && !rollouts.contains(where: \.needsAttention) ? 0 : 1
    }

    /// One line per kiosk needing attention: "KIOSK: problem; problem".
    static func attentionText(_ kiosks: [KioskStatus]) -> String {
        kiosks.filter { !$0.problems.isEmpty }.map {
            Escape.terminal($0.kioskID) + ": " + $0.problems.map(Escape.terminal).joined(separator: "; ") + "\n"
        }.joined()
    }

    static func tableText(_ kiosks: [KioskStatus]) -> String {
        let header = [
            "KIOSK", "STATE", "HEARD", "DECK", "ASSIGNED", "UNSENT", "UPTIME", "TOUCH P95", "LAST TOUCH", "LAST FLIP",
            "TEMP",
            "STORED",
        ]
        var rows = [header]
        for k in kiosks {
            var state = k.state.rawValue
            if let since = k.silentSince { state += " since " + since }
            if let opens = k.opensAt { state += " until " + opens }
            let heard: String =
                k.secondsSinceHeartbeat.map { "\($0)s ago" + (k.heartbeatSource == "sync" ? " (sync)" : "") } ?? "-"
            let assigned: String = k.deckAssignedName ?? k.deckAssigned.map { String($0.prefix(12)) } ?? "-"
            let unsent: String = k.unsent.map { String($0) } ?? "-"
            let uptime: String = k.uptime.map { jsonNumber($0 * 100, decimals: 1) + " %" } ?? "-"
            let touch: String = k.inputToFlip.map { jsonNumber($0.p95, decimals: 1) + " ms" } ?? "-"
            let temperature: String = k.cpuTemperatureC.map { jsonNumber($0, decimals: 1) + "°C" } ?? "-"
            // Every field a kiosk reports is shown with its control characters visible.
            let row: [String] = [
                k.kioskID, state, heard, k.deckApplied ?? "-", assigned, unsent, uptime, touch, k.lastTouch ?? "-",
                k.lastFlip ?? "-",
                temperature, String(k.decisions),
            ].map(Escape.terminal)
            rows.append(row)
        }
        let widths = header.indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        var out = ""
        for r in rows {
            out +=
                r.enumerated().map { c, v in
                    c == r.count - 1 ? v : v + String(repeating: " ", count: widths[c] - v.count)
                }.joined(separator: "  ") + "\n"
        }
        if kiosks.isEmpty { out += "(no kiosks yet: KioskCards fleet add-kiosk ID --postgres URL)\n" }
        for k in kiosks {
            if let problem = k.deckError {
                out += "\(Escape.terminal(k.kioskID)): deck not applied: \(Escape.terminal(problem))\n"
            }
            if let warning = k.warning {
                out += "\(Escape.terminal(k.kioskID)): warning: \(Escape.terminal(warning))\n"
            }
        }
        out += "UPTIME over the last \(KioskStatus.uptimeWindowHours) h; TOUCH P95 over each kiosk's last "
        out += "\(Int(Heartbeat.InputToFlip.window / 60)) minutes (input event to page flip).\n"
        return out
    }

    /// `--json`: `{"kiosks": [...], "rollouts": [...]}`, each kiosk and each group's latest
    /// rollout one object with the figures of the table and of the rollout lines
    /// (docs/FLEET.md, "Kiosk health").
    static func json(_ kiosks: [KioskStatus], rollouts: [FleetRollouts.Rollout] = []) -> String {
        let k = kiosks.map(kioskJSON).joined(separator: ",\n  ")
        let r = rollouts.map(rolloutJSON).joined(separator: ",\n  ")
        return "{\"kiosks\": [" + k + "],\n \"rollouts\": [" + r + "]}\n"
    }

    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
    }

    static func string(_ v: String?) -> String { v.map { JSONWriter.quoted($0) } ?? "null" }

    /// One rollout: the figures of its `summary` line, and each canary's.
    static func rolloutJSON(_ r: FleetRollouts.Rollout) -> String {
        let canaries = r.canaries.map { c in
            object([
                ("kiosk_id", JSONWriter.quoted(c.kioskID)),
                ("state", JSONWriter.quoted(c.state.rawValue)),
                ("silent_since", string(c.silentSince)),
                ("shown", c.shown ? "true" : "false"),
                ("refusal", string(c.refusal)),
            ])
        }
        return object([
            ("group", JSONWriter.quoted(r.group)),
            ("deck", JSONWriter.quoted(r.deck)),
            ("deck_sha256", JSONWriter.quoted(r.deckSHA256)),
            ("state", JSONWriter.quoted(r.state.rawValue)),
            ("reason", string(r.reason)),
            ("changed_by", string(r.changedBy)),
            ("started_at", JSONWriter.quoted(r.startedAt)),
            ("hold_until", JSONWriter.quoted(r.holdUntil)),
            ("changed_at", JSONWriter.quoted(r.changedAt)),
            ("hold_passed", r.holdPassed ? "true" : "false"),
            ("canary_count", String(r.canaries.count)),
            ("shown", String(r.canaries.filter(\.shown).count)),
            ("refused", String(r.canaries.filter { $0.refusal != nil }.count)),
            ("needs_attention", r.needsAttention ? "true" : "false"),
            ("canaries", "[" + canaries.joined(separator: ", ") + "]"),
        ])
    }

    static func kioskJSON(_ k: KioskStatus) -> String {
        let s = string
        func n(_ v: Double?) -> String { v.map { jsonNumber($0, decimals: 2) } ?? "null" }
        var members: [(String, String)] = []
        members.append(("kiosk_id", JSONWriter.quoted(k.kioskID)))
        members.append(("state", JSONWriter.quoted(k.state.rawValue)))
        members.append(("group", s(k.group)))
        members.append(("registered_at", s(k.registeredAt)))
        members.append(("seconds_since_heartbeat", k.secondsSinceHeartbeat.map { String($0) } ?? "null"))
        members.append(("last_heartbeat", s(k.lastHeartbeat)))
        members.append(("heartbeat_source", s(k.heartbeatSource)))
        members.append(("seconds_since_app_heartbeat", k.secondsSinceAppHeartbeat.map { String($0) } ?? "null"))
        members.append(("last_app_heartbeat", s(k.lastAppHeartbeat)))
        members.append(("silent_since", s(k.silentSince)))
        members.append(("opens_at", s(k.opensAt)))
        members.append(("app_version", s(k.appVersion)))
        members.append(("deck_applied", s(k.deckApplied)))
        members.append(("deck_assigned", s(k.deckAssigned)))
        members.append(("deck_assigned_name", s(k.deckAssignedName)))
        members.append(("unsent", k.unsent.map { String($0) } ?? "null"))
        members.append(("last_touch", s(k.lastTouch)))
        members.append(("last_flip", s(k.lastFlip)))
        members.append(("cpu_temp_c", k.cpuTemperatureC.map { jsonNumber($0, decimals: 1) } ?? "null"))
        members.append(("throttled", s(k.throttled)))
        members.append(("storage_failing", k.storageFailing.map { $0 ? "true" : "false" } ?? "null"))
        members.append(("decisions", String(k.decisions)))
        members.append(("deck_error", s(k.deckError)))
        members.append(("warning", s(k.warning)))
        members.append(("uptime", n(k.uptime)))
        members.append(("uptime_window_hours", String(KioskStatus.uptimeWindowHours)))
        members.append(("input_to_flip_p50_ms", n(k.inputToFlip?.p50)))
        members.append(("input_to_flip_p95_ms", n(k.inputToFlip?.p95)))
        members.append(("input_to_flip_p99_ms", n(k.inputToFlip?.p99)))
        members.append(("input_to_flip_max_ms", n(k.inputToFlip?.max)))
        members.append(("input_to_flip_samples", k.inputToFlip.map { String($0.samples) } ?? "null"))
        members.append(("problems", "[" + k.problems.map { JSONWriter.quoted($0) }.joined(separator: ", ") + "]"))
        return object(members)
    }
}
