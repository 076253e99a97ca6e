import Glibc
import KioskReport
import KioskSystem

/// `KioskCards report (--data DIR | --postgres URL) [--since TIME] [--until TIME] [--kiosk ID] [--deck ID]
/// [--min-n N] [--k K] (--out FILE.html | --format json)`: what visitors decided, as one
/// self-contained HTML page with charts (Chart.js inlined) or as JSON.
enum ReportCommand {
    struct Options: Equatable {
        var dataDirectory = ""
        /// The fleet's PostgreSQL (an operator's URL), instead of a kiosk's data directory.
        var postgresURL = ""
        var sinceMs: Int64?
        var untilMs: Int64?
        var kioskID: String?
        var deckID: String?
        var minimumN = 20
        var k = 5
        var outPath: String?
        var json = false
        var includeMashing = false
        var chartJSPath = ReportPage.defaultChartJSPath
        /// Deck files whose card titles the page shows (--data; the fleet has its published decks).
        var deckFiles: [String] = []
    }

    static func table(now: Int64) -> OptionTable<Options> {
        let timeHelp = WallClock.timeForms
        return OptionTable(
            command: "report", summary: "what visitors decided: an HTML page with charts, or JSON",
            details: """
                Aggregates the stored decisions and visits in SQL — a kiosk's SQLite (--data) or the
                fleet's PostgreSQL (--postgres, central schema 5, per-kiosk uptime from heartbeats) —
                and writes one self-contained HTML
                file (no network requests; Chart.js from Debian's libjs-chart.js is inlined) or, with
                --format json, every figure as JSON. Definitions: docs/REPORT.md. Hours, weekdays
                and days are in the time zone of TZ. Safe while the kiosk runs (WAL). With --since,
                the page also compares with the previous period of the same length. Cards show
                their titles from --deck-file (or the fleet's published decks), else their ids.
                """,
            options: [
                CommandOption.text(
                    name: "data", value: "DIR", help: "the kiosk's data directory (or --postgres)",
                    expected: "a directory"
                ) { $0.dataDirectory = $1 },
                CommandOption.text(
                    name: "postgres", value: "URL",
                    help: "the fleet's PostgreSQL, as an operator (postgresql://USER@HOST/DB; docs/FLEET.md)",
                    expected: "a postgresql:// URL or key=value pairs"
                ) { $0.postgresURL = $1 },
                CommandOption(name: "since", value: "TIME", help: "only rows at or after TIME: \(timeHelp)") { o, v in
                    guard let ms = WallClock.parse(v, now: now) else { return "a time: \(timeHelp)" }
                    o.sinceMs = ms
                    return nil
                },
                CommandOption(name: "until", value: "TIME", help: "only rows before TIME (same forms)") { o, v in
                    guard let ms = WallClock.parse(v, now: now) else { return "a time: \(timeHelp)" }
                    o.untilMs = ms
                    return nil
                },
                CommandOption.text(name: "kiosk", value: "ID", help: "only this kiosk", expected: "a kiosk id") {
                    $0.kioskID = $1
                },
                CommandOption.text(name: "deck", value: "ID", help: "only this deck id", expected: "a deck id") {
                    $0.deckID = $1
                },
                CommandOption(
                    name: "min-n", value: "N", help: "grey out approvals with fewer answers than N (default 20)"
                ) { o, v in
                    guard let n = Int(v), n >= 1, n <= 1_000_000 else { return "a whole number from 1 to 1000000" }
                    o.minimumN = n
                    return nil
                },
                CommandOption(
                    name: "k", value: "K", help: "privacy floor: hide any segment with fewer than K visits (default 5)"
                ) { o, v in
                    guard let n = Int(v), n >= 1, n <= 1_000_000 else { return "a whole number from 1 to 1000000" }
                    o.k = n
                    return nil
                },
                CommandOption.text(
                    name: "out", value: "FILE", help: "write the HTML page to FILE", expected: "a file name"
                ) { $0.outPath = $1 },
                CommandOption(name: "format", value: "json|html", help: "json: every figure to stdout") { o, v in
                    switch v.lowercased() {
                    case "json": o.json = true
                    case "html": o.json = false
                    default: return "json or html"
                    }
                    return nil
                },
                CommandOption(
                    name: "include-mashing", value: "yes|no",
                    help: "count suspected button-mashing visits in the rates (default no: excluded, and shown)"
                ) { o, v in
                    switch v.lowercased() {
                    case "yes", "on", "true": o.includeMashing = true
                    case "no", "off", "false": o.includeMashing = false
                    default: return "yes or no"
                    }
                    return nil
                },
                CommandOption(
                    name: "deck-file", value: "FILE",
                    help:
                        "a deck file, for its cards' titles and order (repeatable; --data only: the fleet has its own)",
                    repeatable: true
                ) { o, v in
                    guard !v.isEmpty else { return "a deck file, such as /etc/kioskcards/deck.json" }
                    o.deckFiles.append(v)
                    return nil
                },
                CommandOption.text(
                    name: "chart-js", value: "FILE",
                    help: "Chart.js to inline (default \(ReportPage.defaultChartJSPath), from libjs-chart.js)",
                    expected: "a file"
                ) { $0.chartJSPath = $1 },
            ])
    }

    static func run(arguments: [String]) -> Int32 {
        table(now: WallClock.nowMilliseconds()).run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        guard options.dataDirectory.isEmpty != options.postgresURL.isEmpty else {
            Log.error(
                "report: give one source: --data DIR (a kiosk's data directory) or --postgres URL (the fleet);"
                    + " see 'KioskCards report --help'")
            return 2
        }
        if let since = options.sinceMs, let until = options.untilMs, since >= until {
            Log.error(
                "report: --since (\(WallClock.iso8601(milliseconds: since))) is not before --until "
                    + "(\(WallClock.iso8601(milliseconds: until))); swap them or widen the period")
            return 2
        }
        guard options.json || options.outPath != nil else {
            Log.error("report: say where the report goes: --out report.html, or --format json for stdout")
            return 2
        }
        var chartJS: ReportPage.ChartJS?
        if !options.json {
            switch ReportPage.loadChartJS(path: options.chartJSPath) {
            case .success(let c): chartJS = c
            case .failure(let problem):
                Log.error("report: \(problem.message)")
                return 2
            }
        }
        var filter = ReportFilter(
            sinceMs: options.sinceMs, untilMs: options.untilMs, kioskID: options.kioskID, deckID: options.deckID)
        filter.includeMashing = options.includeMashing
        let read: ReportRead
        do {
            read = try Self.read(options, filter, nowMs: WallClock.nowMilliseconds())
        } catch {
            Log.error("report: \(error)")
            return 2
        }
        let aggregates = read.aggregates
        let figures = ReportFigures(
            aggregates: aggregates, settings: .init(minimumN: options.minimumN, k: options.k), filter: filter,
            source: read.label, generatedMs: WallClock.nowMilliseconds(), decks: read.decks, previous: read.previous)
        let json = figures.json
        if options.json {
            var out = OutputBuffer()
            out.append(json.text(indent: 2) + "\n")
            out.flush()
        }
        if let path = options.outPath, let chartJS {
            let page = ReportPage(figures: figures, json: json, chartJS: chartJS, health: read.health).html
            do {
                try FileIO.replaceAtomically(path: path, contents: Array(page.utf8))
            } catch {
                Log.error("report: cannot write \(path): \(error) — check the directory exists and is writable")
                return 1
            }
            Log.info("report: \(path) (\(page.utf8.count / 1024) KiB, \(aggregates.decisionRows) decisions)")
        }
        if aggregates.decisionRows == 0 && aggregates.visits == 0 {
            Log.warning("report: no decisions or visits in the chosen period — the report is empty")
        }
        return 0
    }
}
