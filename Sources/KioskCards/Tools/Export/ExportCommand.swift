import Glibc
import KioskStore
import KioskSystem

/// `KioskCards export --data DIR --format csv|json [--since TIME]`: writes the stored
/// decisions to stdout.
enum ExportCommand {
    static let usage = """
        Usage: KioskCards export [--data DIR] [--format csv|json] [--since TIME]

        Writes every stored decision to stdout, oldest first.
          --data DIR      the kiosk's data directory (default /var/lib/kioskcards)
          --format F      csv (RFC 4180, with a header line; the default) or json (an array)
          --since TIME    only decisions at or after TIME: 2024-05-01, 2024-05-01T12:00Z,
                          2024-05-01T14:00+02:00, or an age: 90m, 24h, 7d
        Safe to run while the kiosk is running (the database is in WAL mode).
        """

    enum Format: String, CaseIterable {
        case csv
        case json
    }

    static let columns = [
        "id", "kiosk_id", "session_id", "deck_id", "deck_version", "card_id", "action", "wall_time", "wall_ms",
        "monotonic_ns", "dwell_ms",
    ]

    struct Options: Equatable {
        var dataDirectory = "/var/lib/kioskcards"
        var format = Format.csv
        var sinceMs: Int64?
    }

    /// Parses the arguments after `export`; the error says what is wrong and what is accepted.
    static func parse(_ arguments: [String], now: Int64) -> Result<Options, UsageError> {
        var options = Options()
        var i = 0
        let flags = ["--data", "--format", "--since", "--help"]
        while i < arguments.count {
            let arg = arguments[i]
            var name = arg
            var inlineValue: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            func value() -> String? {
                if let inlineValue { return inlineValue }
                i += 1
                return i < arguments.count ? arguments[i] : nil
            }
            switch name {
            case "--help", "-h":
                return .failure(UsageError(message: "", showUsage: true, status: 0))
            case "--data":
                guard let v = value(), !v.isEmpty else { return .failure(UsageError("--data needs a directory")) }
                options.dataDirectory = v
            case "--format":
                guard let v = value(), let f = Format(rawValue: v.lowercased()) else {
                    return .failure(UsageError("--format must be csv or json"))
                }
                options.format = f
            case "--since":
                guard let v = value() else { return .failure(UsageError("--since needs a time")) }
                guard let ms = WallClock.parse(v, now: now) else {
                    return .failure(
                        UsageError(
                            "--since '\(v)' is not a time; use 2024-05-01, 2024-05-01T12:00Z,"
                                + " 2024-05-01T14:00+02:00, or an age such as 24h or 7d"))
                }
                options.sinceMs = ms
            default:
                return .failure(UsageError("unknown option '\(name)'; " + ClosestMatch.hint(for: name, among: flags)))
            }
            i += 1
        }
        return .success(options)
    }

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch parse(arguments, now: WallClock.nowMilliseconds()) {
        case .success(let o): options = o
        case .failure(let e):
            if e.status == 0 {
                print(usage)
                return 0
            }
            Log.error("export: \(e.message)\n\(usage)")
            return e.status
        }
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

    static func fields(_ row: DecisionDatabase.Row) -> [String] {
        let r = row.record
        return [
            String(row.id), r.kioskID, r.sessionID, r.deckID, String(r.deckVersion), r.cardID, row.actionName,
            r.wallTimeISO, String(r.wallTimeMs), String(r.monotonicNs), String(r.dwellMs),
        ]
    }

    /// One RFC 4180 record: fields with a comma, quote, CR or LF are quoted, quotes doubled;
    /// lines end in CRLF.
    static func csvLine(_ row: DecisionDatabase.Row) -> String {
        fields(row).map(csvField).joined(separator: ",") + "\r\n"
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
            return s
        }
        var out = "\""
        for u in s.unicodeScalars {
            if u == "\"" { out += "\"\"" } else { out.unicodeScalars.append(u) }
        }
        return out + "\""
    }

    static func jsonObject(_ row: DecisionDatabase.Row) -> String {
        let f = fields(row)
        let numeric: Set<String> = ["id", "deck_version", "wall_ms", "monotonic_ns", "dwell_ms"]
        let members = zip(columns, f).map { key, value in
            JSONWriter.quoted(key) + ": " + (numeric.contains(key) ? value : JSONWriter.quoted(value))
        }
        return "{" + members.joined(separator: ", ") + "}"
    }
}

/// A command-line mistake: the message, and whether to show the usage.
struct UsageError: Error, Equatable {
    var message: String
    var showUsage = true
    var status: Int32 = 2

    init(_ message: String) {
        self.message = message
    }

    init(message: String, showUsage: Bool, status: Int32) {
        self.message = message
        self.showUsage = showUsage
        self.status = status
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
