import KioskFleet
import KioskSystem

/// `KioskCards fleet status --postgres URL [--json]`: one row per kiosk from its latest
/// heartbeat; exit status 1 when any kiosk is not online (for a monitoring system).
enum FleetStatusCommand {
    struct Options: Equatable {
        var url = ""
        var json = false
    }

    static let table = OptionTable<Options>(
        command: "fleet status", summary: "one row per kiosk: online, stale or offline, deck, unsent, last touch",
        details: """
            A kiosk is online with a heartbeat in the last \(KioskStatus.staleAfter) s, stale up to
            \(KioskStatus.offlineAfter) s, offline after that, never before its first.
            Exit status: 0 every kiosk online, 1 any stale, offline or never seen (or the server
            cannot be read), 2 usage.
            """,
        options: [
            FleetCommand.postgresOption(\.url),
            .flag("json", help: "print a JSON array instead of a table") { $0.json = true },
        ],
        validate: { FleetCommand.requirePostgres($0.url) })

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        guard let db = FleetCommand.connect(options.url, command: "status") else { return 1 }
        let kiosks: [KioskStatus]
        do {
            kiosks = try KioskStatus.all(on: db)
        } catch {
            Log.error("fleet status: \(error)")
            return 1
        }
        print(options.json ? json(kiosks) : tableText(kiosks), terminator: "")
        return kiosks.allSatisfy { $0.state == .online } ? 0 : 1
    }

    static func tableText(_ kiosks: [KioskStatus]) -> String {
        let header = [
            "KIOSK", "STATE", "SEEN", "DECK", "ASSIGNED", "UNSENT", "LAST TOUCH", "LAST FLIP", "TEMP", "STORED",
        ]
        var rows = [header]
        for k in kiosks {
            let seen: String = k.secondsSinceHeartbeat.map { "\($0)s ago" } ?? "-"
            let assigned: String = k.deckAssigned.map { String($0.prefix(12)) } ?? "-"
            let unsent: String = k.unsent.map { String($0) } ?? "-"
            let temperature: String = k.cpuTemperatureC.map { jsonNumber($0, decimals: 1) + "°C" } ?? "-"
            // Every field a kiosk reports is shown with its control characters visible.
            let row: [String] = [
                k.kioskID, k.state.rawValue, seen, k.deckApplied ?? "-", assigned, unsent, k.lastTouch ?? "-",
                k.lastFlip ?? "-", temperature, String(k.decisions),
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
        }
        return out
    }

    static func json(_ kiosks: [KioskStatus]) -> String {
        func s(_ v: String?) -> String { v.map { JSONWriter.quoted($0) } ?? "null" }
        let items = kiosks.map { k -> String in
            var members: [(String, String)] = []
            members.append(("kiosk_id", JSONWriter.quoted(k.kioskID)))
            members.append(("state", JSONWriter.quoted(k.state.rawValue)))
            members.append(("seconds_since_heartbeat", k.secondsSinceHeartbeat.map { String($0) } ?? "null"))
            members.append(("app_version", s(k.appVersion)))
            members.append(("deck_applied", s(k.deckApplied)))
            members.append(("deck_assigned", s(k.deckAssigned)))
            members.append(("unsent", k.unsent.map { String($0) } ?? "null"))
            members.append(("last_touch", s(k.lastTouch)))
            members.append(("last_flip", s(k.lastFlip)))
            members.append(("cpu_temp_c", k.cpuTemperatureC.map { jsonNumber($0, decimals: 1) } ?? "null"))
            members.append(("throttled", s(k.throttled)))
            members.append(("storage_failing", k.storageFailing.map { $0 ? "true" : "false" } ?? "null"))
            members.append(("decisions", String(k.decisions)))
            members.append(("deck_error", s(k.deckError)))
            return "{" + members.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}"
        }
        return "[" + items.joined(separator: ",\n ") + "]\n"
    }
}
