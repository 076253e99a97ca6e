import Glibc
import KioskStore
import KioskSystem

/// `KioskCards export --data DIR --format csv|json [--since TIME]`: writes the stored
/// decisions to stdout.
enum ExportCommand {
    enum Format: String, CaseIterable {
        case csv
        case json
    }

    /// The header. The first eleven are the original columns, in their original order (old
    /// readers keep working); later columns are only ever appended. An empty CSV field (JSON
    /// null) is a value the store does not have: NULL, or a file from before its migration.
    /// `session_id` is the visit id (the `visits` row's key).
    static let columns = [
        "id", "kiosk_id", "session_id", "deck_id", "deck_version", "card_id", "action", "wall_time", "wall_ms",
        "monotonic_ns", "dwell_ms",
        // Store migration 3: the card's 0-based position in the visit, how it was decided.
        "position", "input_method",
        // Migration 5: the visit was discarded (partial-visit policy); inside the deck's cooldown.
        "discarded", "too_fast",
        // Migration 1's uid (unique across kiosks), migration 4's boot id, clock flag and retraction.
        "uid", "boot_id", "clock_synced", "retracts_uid",
        // Migrations 6 and 7: an accessibility mode was on in the visit by this decision; the
        // language the visitor read the card in (a BCP 47 tag).
        "accessibility_mode", "language",
    ]

    /// Columns written as JSON numbers or booleans rather than strings.
    static let numericColumns: Set<String> = ["id", "deck_version", "wall_ms", "monotonic_ns", "dwell_ms", "position"]
    static let booleanColumns: Set<String> = ["discarded", "too_fast", "clock_synced", "accessibility_mode"]

    struct Options: Equatable {
        var dataDirectory = "/var/lib/kioskcards"
        var format = Format.csv
        var sinceMs: Int64?
    }

    /// `export`'s options; `now` is what an age in `--since` counts back from.
    static func table(now: Int64) -> OptionTable<Options> {
        OptionTable(
            command: "export", summary: "write the stored decisions as CSV or JSON",
            details: """
                Writes every stored decision to stdout, oldest first.
                Safe to run while the kiosk is running (the database is in WAL mode).
                """,
            options: [
                CommandOption.text(
                    name: "data", value: "DIR", help: "the kiosk's data directory (default /var/lib/kioskcards)",
                    expected: "a directory"
                ) { $0.dataDirectory = $1 },
                CommandOption.parsed(
                    name: "format", value: "csv|json",
                    help: "csv (RFC 4180, a header line, formulas neutralised; the default) or json (an array)",
                    expected: "csv or json",
                    { Format(rawValue: $0.lowercased()) }
                ) { $0.format = $1 },
                CommandOption(
                    name: "since", value: "TIME",
                    help: "only decisions at or after TIME: \(WallClock.timeForms)"
                ) { o, v in
                    guard let ms = WallClock.parse(v, now: now) else { return "a time: \(WallClock.timeForms)" }
                    o.sinceMs = ms
                    return nil
                },
            ])
    }

    /// Parses the arguments after `export`; the error says what is wrong and what is accepted.
    static func parse(_ arguments: [String], now: Int64) -> CommandLineParse<Options> {
        table(now: now).parse(arguments, from: Options())
    }

    static func run(arguments: [String]) -> Int32 {
        table(now: WallClock.nowMilliseconds()).run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        var out = OutputBuffer()
        var count = 0
        if options.format == .csv { out.append(csvHeader) }
        if options.format == .json { out.append("[") }
        do {
            try DecisionDatabase.forEachRow(dataDirectory: options.dataDirectory, sinceMs: options.sinceMs) { row in
                switch options.format {
                case .csv: out.append(csvLine(row))
                case .json: out.append((count == 0 ? "\n  " : ",\n  ") + jsonObject(row))
                }
                count += 1
            }
        } catch {
            Log.error("export: \(error)")
            return 1
        }
        if options.format == .json { out.append(count == 0 ? "]\n" : "\n]\n") }
        out.flush()
        Log.info("export: \(count) decision\(count == 1 ? "" : "s")")
        return 0
    }

    // MARK: - Formats

    static var csvHeader: String { columns.joined(separator: ",") + "\r\n" }

    /// The row's values in `columns` order; nil: the store has no value.
    static func fields(_ row: DecisionDatabase.Row) -> [String?] {
        let r = row.record
        func flag(_ b: Bool?) -> String? { b.map { $0 ? "true" : "false" } }
        return [
            String(row.id), r.kioskID, r.sessionID, r.deckID, String(r.deckVersion), r.cardID, row.actionName,
            r.wallTimeISO, String(r.wallTimeMs), String(r.monotonicNs), String(r.dwellMs),
            row.position.map { String($0) }, row.inputMethodName, flag(row.discarded), flag(row.tooFast), row.uid,
            row.bootID, flag(row.clockSynced), row.retractsUID, flag(row.accessibilityMode), row.language,
        ]
    }

    /// One RFC 4180 record (lines end in CRLF): each text field through `Escape.csvField`
    /// (quoted when it must be; a formula prefix neutralised), numbers and flags as they are.
    static func csvLine(_ row: DecisionDatabase.Row) -> String {
        zip(columns, fields(row)).map { column, value in
            numericColumns.contains(column) || booleanColumns.contains(column)
                ? value ?? "" : Escape.csvField(value ?? "")
        }.joined(separator: ",") + "\r\n"
    }

    static func jsonObject(_ row: DecisionDatabase.Row) -> String {
        let members = zip(columns, fields(row)).map { key, value in
            let text: String
            if let value {
                text = numericColumns.contains(key) || booleanColumns.contains(key) ? value : JSONWriter.quoted(value)
            } else {
                text = "null"
            }
            return JSONWriter.quoted(key) + ": " + text
        }
        return "{" + members.joined(separator: ", ") + "}"
    }
}

/// Collects stdout text and writes it in large chunks (export can be millions of rows).
struct OutputBuffer {
    private var bytes: [UInt8] = []

    mutating func append(_ s: String) {
        bytes.append(contentsOf: s.utf8)
        if bytes.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        try? FileIO.writeAll(fd: 1, bytes: bytes)  // a reader that went away has nowhere to be told
        bytes.removeAll(keepingCapacity: true)
    }
}
