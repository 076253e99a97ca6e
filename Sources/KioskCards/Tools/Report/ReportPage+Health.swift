import CardModel
import Glibc
import KioskFleet
import KioskSystem

extension ReportPage {
    /// A Unix-ms instant in the report's local time, to the minute ("2026-11-02 14:05").
    static func localTime(_ ms: Int64) -> String {
        var t = time_t(ms / 1000)
        var parts = tm()
        localtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            + " \(two(parts.tm_hour)):\(two(parts.tm_min))"
    }

    /// An ISO 8601 time from the JSON or a heartbeat in local time, to the minute; "–" for none.
    static func localTime(iso: String?) -> String {
        guard let iso, let ms = WallClock.parse(iso, now: 0) else { return "–" }
        return localTime(ms)
    }

    /// The health table's columns for one kiosk: `fleet status`'s row (its one query), each field
    /// once as (heading, text) — a new field is one line here.
    static func healthFields(_ s: KioskStatus, generatedMs: Int64) -> [(heading: String, text: String)] {
        let heartbeat = s.secondsSinceHeartbeat.map { localTime(generatedMs - $0 * 1000) }
        let state: String
        switch s.state {
        case .online: state = "online"
        case .silent: state = "silent since \(localTime(iso: s.silentSince ?? s.lastHeartbeat))"
        case .scheduledOff: state = "scheduled off" + (s.opensAt.map { " until \(localTime(iso: $0))" } ?? "")
        case .never: state = "never seen"
        }
        func deck(_ d: String?) -> String {
            guard let d else { return "–" }
            return d.count > 20 ? String(d.prefix(12)) + "…" : d
        }
        return [
            ("Kiosk", s.kioskID), ("State", state), ("Last heartbeat", heartbeat ?? "never"),
            ("Last touch", localTime(iso: s.lastTouch)), ("Last flip", localTime(iso: s.lastFlip)),
            ("Deck applied", deck(s.deckApplied)), ("Deck assigned", s.deckAssignedName ?? deck(s.deckAssigned)),
            ("Refused deck", s.deckError ?? "–"), ("Unsent decisions", s.unsent.map { String($0) } ?? "–"),
            (
                "Uptime, last \(KioskStatus.uptimeWindowHours)\(unitSpace)h",
                s.uptime.map { decimalText($0 * 100, decimals: 1) + unitSpace + "%" } ?? "–"
            ),
            ("Touch to flip, p95", s.inputToFlip.map { decimalText($0.p95, decimals: 1) + unitSpace + "ms" } ?? "–"),
            ("Decisions on the server", String(s.decisions)), ("App", s.appVersion ?? "–"),
        ]
    }

    /// "Is every kiosk working?": every registered kiosk, including those never seen.
    func healthSection(_ rows: [KioskStatus]) -> String {
        guard let first = rows.first else {
            return "<section id=\"health\"><h2>Kiosk health</h2><p class=\"note\">No kiosk is registered.</p></section>"
        }
        let head = Self.healthFields(first, generatedMs: figures.generatedMs).map {
            "<th>\(Escape.htmlText($0.heading))</th>"
        }.joined()
        var body = ""
        for row in rows {
            let cells = Self.healthFields(row, generatedMs: figures.generatedMs)
            let attention = !row.problems.isEmpty
            body +=
                "<tr\(attention ? " class=\"attention\"" : "")>"
                + cells.map { "<td>\(Escape.htmlText($0.text))</td>" }.joined() + "</tr>"
        }
        return """
            <section id="health"><h2>Kiosk health</h2>
            <p class="help">Every registered kiosk, from its latest heartbeat (the same query as
            <code>fleet status</code>): online within \(KioskStatus.staleAfter) s of the running app's heartbeat,
            else silent since the last one; scheduled off: closed by its schedule; never seen: registered, never
            reported. Touch to flip: the panel's own input → flip time over its last
            \(Int(Heartbeat.InputToFlip.window / 60)) minutes. Times local, as of \(Self.localTime(figures.generatedMs)).</p>
            <div class="scroll"><table id="health-table"><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table></div></section>
            """
    }
}
