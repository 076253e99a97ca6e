import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskStore
@testable import KioskSystem

@Suite struct ExportTests {
    /// An RFC 4180 reader for the test: quoted fields, doubled quotes, CRLF records.
    static func parseCSV(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var field = ""
        var record: [String] = []
        var quoted = false
        var scalars = Array(text.unicodeScalars)[...]
        while let c = scalars.popFirst() {
            if quoted {
                if c == "\"" {
                    if scalars.first == "\"" {
                        field.unicodeScalars.append("\"")
                        scalars.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" && field.isEmpty {
                quoted = true
            } else if c == "," {
                record.append(field)
                field = ""
            } else if c == "\r" && scalars.first == "\n" {
                scalars.removeFirst()
                record.append(field)
                records.append(record)
                record = []
                field = ""
            } else {
                field.unicodeScalars.append(c)
            }
        }
        return records
    }

    func populate(_ dir: String, count: Int) throws -> [DecisionRecord] {
        let store = DecisionStore(dataDirectory: dir)
        let records = (0..<count).map { StoreTestSupport.record($0) }
        for r in records { store.enqueue(r) }
        #expect(store.flush(stalledFor: 60))
        store.close()
        return records
    }

    func record(fromFields f: [String]) -> DecisionRecord? {
        guard f.count == ExportCommand.columns.count, let action = DecisionAction(rawValue: f[6]) else { return nil }
        return DecisionRecord(
            kioskID: f[1], sessionID: f[2], deckID: f[3], deckVersion: Int(f[4]) ?? -1, cardID: f[5],
            action: action, wallTimeMs: Int64(f[8]) ?? -1, monotonicNs: Int64(f[9]) ?? -1, dwellMs: Int64(f[10]) ?? -1)
    }

    @Test(TestRequirement.executable.trait)
    func csvRoundTripsThroughTheCommand() throws {
        let dir = DeckFixtures.temporaryDirectory("export-csv")
        defer { DeckFixtures.removeTree(dir) }
        let records = try populate(dir, count: 64)
        let result = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "csv"]))
        #expect(result.status == 0)
        let text = try #require(String(validating: result.stdout, as: UTF8.self))
        #expect(text.hasSuffix("\r\n"))
        let table = Self.parseCSV(text)
        #expect(table.first == ExportCommand.columns)
        #expect(table.dropFirst().map { $0[0] } == (1...64).map(String.init))
        #expect(table.dropFirst().map { record(fromFields: $0) } == records)
        for row in table.dropFirst() {
            #expect(WallClock.parse(row[7], now: 0).map(String.init) == row[8])
        }
    }

    @Test(TestRequirement.executable.trait)
    func jsonRoundTripsThroughTheCommand() throws {
        let dir = DeckFixtures.temporaryDirectory("export-json")
        defer { DeckFixtures.removeTree(dir) }
        let records = try populate(dir, count: 40)
        let result = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "json"]))
        #expect(result.status == 0)
        let array = try #require(try JSONReader.parse(result.stdout).elements)
        let decoded = array.map { object -> DecisionRecord? in
            let fields = ExportCommand.columns.map { key -> String in
                switch object[key]?.value {
                case .string(let s): s
                case .number(let d): String(Int64(d))
                default: "?"
                }
            }
            return record(fromFields: fields)
        }
        #expect(decoded == records)
    }

    @Test(TestRequirement.executable.trait)
    func sinceFiltersByWallTime() throws {
        let dir = DeckFixtures.temporaryDirectory("export-since")
        defer { DeckFixtures.removeTree(dir) }
        let records = try populate(dir, count: 30)
        let cut = records[12].wallTimeISO
        let result = try #require(StoreTestSupport.run(["export", "--data", dir, "--format=csv", "--since", cut]))
        #expect(result.status == 0)
        let table = Self.parseCSV(String(decoding: result.stdout, as: UTF8.self))
        #expect(table.dropFirst().map { record(fromFields: $0) } == Array(records[12...]))
    }

    @Test(TestRequirement.executable.trait)
    func theNewColumnsFollowTheOldOnesInCSVAndJSON() throws {
        let dir = DeckFixtures.temporaryDirectory("export-columns")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        func record(_ session: String, _ card: String, _ action: DecisionAction, _ n: Int64, _ p: Int, _ m: InputMethod)
            -> DecisionRecord
        {
            DecisionRecord(
                kioskID: "k", sessionID: session, deckID: "d", deckVersion: 1, cardID: card, action: action,
                wallTimeMs: 1_714_521_600_000 + n, monotonicNs: n, dwellMs: 100, position: p, inputMethod: m,
                bootID: "boot-1", clockSynced: true)
        }
        var fast = record("v1", "a", .swipedRight, 1, 0, .swipe)
        fast.tooFast = true
        fast.accessibilityMode = false
        fast.language = "de"
        store.enqueue(fast)
        var large = record("v1", "b", .swipedLeft, 2, 1, .button)
        (large.accessibilityMode, large.language) = (true, "ar")
        store.enqueue(large)
        store.enqueue(record("v1", "b", .undone, 3, 1, .key))
        store.enqueue(record("v2", "a", .swipedLeft, 4, 0, .switchAccess))
        store.discardVisit(sessionID: "v2")
        #expect(store.flush(stalledFor: 60))
        store.close()

        let result = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "csv"]))
        #expect(result.status == 0)
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(
            text.hasPrefix(
                "id,kiosk_id,session_id,deck_id,deck_version,card_id,action,wall_time,wall_ms,monotonic_ns,dwell_ms,"
                    + "position,input_method,discarded,too_fast,uid,boot_id,clock_synced,retracts_uid,"
                    + "accessibility_mode,language\r\n"))
        let table = Self.parseCSV(text)
        let rows = Array(table.dropFirst())
        #expect(
            rows.map { Array($0[11...14]) } == [
                ["0", "swipe", "false", "true"], ["1", "button", "false", "false"], ["1", "key", "false", "false"],
                ["0", "switch", "true", "false"],
            ])
        #expect(rows.allSatisfy { $0[16] == "boot-1" && $0[17] == "true" && $0[15].count >= 16 })
        // The undo names the uid of the decision it takes back; the others take nothing back.
        #expect(rows.map { $0[18] } == ["", "", rows[1][15], ""])
        #expect(Set(rows.map { $0[15] }).count == 4)
        // The mode and the language as the app stored them; empty where a decision has none.
        #expect(rows.map { Array($0[19...20]) } == [["false", "de"], ["true", "ar"], ["", ""], ["", ""]])

        let json = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "json"]))
        let array = try #require(try JSONReader.parse(json.stdout).elements)
        #expect(array.count == 4)
        #expect(array[0].members?.map(\.key) == ExportCommand.columns)
        #expect(array[0]["position"]?.value == .number(0))
        #expect(array[0]["too_fast"]?.value == .bool(true))
        #expect(array[3]["discarded"]?.value == .bool(true))
        #expect(array[3]["input_method"]?.value == .string("switch"))
        #expect(array[0]["retracts_uid"]?.value == .null)
        #expect(array[1]["accessibility_mode"]?.value == .bool(true))
        #expect(array[1]["language"]?.value == .string("ar"))
        #expect(array[2]["accessibility_mode"]?.value == .null)
    }

    @Test(TestRequirement.executable.trait)
    func aSchemaTwoFileExportsEmptyNewColumns() throws {
        let dir = DeckFixtures.temporaryDirectory("export-v2")
        defer { DeckFixtures.removeTree(dir) }
        do {
            let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: dir))
            try db.execute(DecisionDatabase.migrations[0])
            try db.execute(DecisionDatabase.migrations[1])
            try db.execute("PRAGMA user_version = 2")
            try db.execute(
                """
                INSERT INTO decisions (uid, kiosk_id, session_id, deck_id, deck_version, card_id, action, wall_time,
                    wall_ms, monotonic_ns, dwell_ms) VALUES ('u1', 'old', 's', 'd', 1, 'c', 'swipedLeft', 'x', 5, 6, 7)
                """)
        }
        let result = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "csv"]))
        #expect(result.status == 0)
        let table = Self.parseCSV(String(decoding: result.stdout, as: UTF8.self))
        #expect(table.count == 2)
        #expect(
            Array(table[1][0..<11]) == [
                "1", "old", "s", "d", "1", "c", "swipedLeft", WallClock.iso8601(milliseconds: 5), "5", "6", "7",
            ])
        #expect(Array(table[1][11...]) == ["", "", "", "", "u1", "", "", "", "", ""])
    }

    @Test func emptyDatabaseGivesEmptyArray() throws {
        let dir = DeckFixtures.temporaryDirectory("export-empty")
        defer { DeckFixtures.removeTree(dir) }
        _ = try populate(dir, count: 0)
        _ = try DecisionDatabase.openForWriting(dataDirectory: dir)
        #expect(try StoreTestSupport.rows(dir).isEmpty)
        try #require(StoreTestSupport.executableExists, "build the executable: swift build --build-tests")
        let result = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "json"]))
        #expect(String(decoding: result.stdout, as: UTF8.self) == "[]\n")
    }

    @Test func optionErrorsNameTheFix() {
        let now: Int64 = 1_714_521_600_000
        guard case .failure(let e1) = ExportCommand.parse(["--formt", "csv"], now: now) else {
            Issue.record("--formt accepted")
            return
        }
        #expect(e1.message.contains("Did you mean '--format'?"))  // the one usage-error shape
        guard case .failure(let e2) = ExportCommand.parse(["--format", "xml"], now: now) else {
            Issue.record("xml accepted")
            return
        }
        #expect(e2.message.contains("csv or json"))
        guard case .failure(let e3) = ExportCommand.parse(["--since", "yesterday"], now: now) else {
            Issue.record("yesterday accepted")
            return
        }
        #expect(e3.message.contains("24h"))
        #expect(
            ExportCommand.parse(["--data", "/x", "--format", "JSON", "--since", "7d"], now: now)
                == .success(.init(dataDirectory: "/x", format: .json, sinceMs: now - 7 * 86_400_000)))
    }

    @Test func missingDatabaseIsAClearError() {
        #expect {
            try StoreTestSupport.rows("/nonexistent-kiosk-data")
        } throws: { error in
            "\(error)".contains("no decisions database here")
        }
    }

    @Test(arguments: ["plain", "a,b", "say \"hi\"", "two\nlines", "cr\rlf", "", "ünï"])
    func csvFieldQuoting(value: String) {
        let line = Escape.csvField(value) + ",x\r\n"
        #expect(Self.parseCSV(line) == [[value, "x"]])
    }

    /// OWASP's CSV injection advice: a cell a spreadsheet would read as a formula starts with
    /// `'` and is quoted; the rest of the text is kept.
    @Test(arguments: ["=1+2", "+1+1", "-1+1", "@SUM(1+1)", "\t=1+2", "\r=1+2", "=HYPERLINK(\"http://x\",\"a,b\")"])
    func aFormulaPrefixIsNeutralised(value: String) {
        let field = Escape.csvField(value)
        #expect(field.hasPrefix("\"'"))
        #expect(Self.parseCSV(field + ",x\r\n") == [["'" + value, "x"]])
    }

    /// Card ids a deck may carry (check-deck passes them) come out of `export` as text, not
    /// formulas; the numeric columns stay numbers.
    @Test(.enabled(if: StoreTestSupport.executableExists, "build the KioskCards executable first"))
    func exportNeutralisesFormulaCardIDs() throws {
        let dir = DeckFixtures.temporaryDirectory("export-formula")
        defer { DeckFixtures.removeTree(dir) }
        let store = DecisionStore(dataDirectory: dir)
        let ids = ["=1+2", "+1+1", "@SUM(1+1)", "-2+3", "plain"]
        for (n, id) in ids.enumerated() {
            var r = StoreTestSupport.record(n)
            r.cardID = id
            store.enqueue(r)
        }
        #expect(store.flush(stalledFor: 60))
        store.close()
        let result = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "csv"]))
        #expect(result.status == 0)
        let table = Self.parseCSV(String(decoding: result.stdout, as: UTF8.self)).dropFirst()
        let card = try #require(ExportCommand.columns.firstIndex(of: "card_id"))
        #expect(table.map { $0[card] } == ["'=1+2", "'+1+1", "'@SUM(1+1)", "'-2+3", "plain"])
        // No cell of any record starts with a formula character.
        for row in table {
            for (column, value) in zip(ExportCommand.columns, row) where !ExportCommand.numericColumns.contains(column)
            {
                #expect(!(value.first.map { "=+-@\t\r".contains($0) } ?? false), "\(column): \(value)")
            }
        }
    }
}

@Suite struct StoreWallClockTests {
    @Test func knownInstants() {
        #expect(WallClock.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        // 2000-02-29 (a leap day in a century leap year) is 11016 days after the epoch.
        #expect(WallClock.iso8601(milliseconds: 11016 * 86_400_000 + 1) == "2000-02-29T00:00:00.001Z")
        #expect(WallClock.iso8601(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test func formatAndParseAreInverse() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let ms = Int64(rng.next() % 8_000_000_000_000)  // 1970 … 2223
            let text = WallClock.iso8601(milliseconds: ms)
            #expect(WallClock.parse(text, now: 0) == ms, "\(text)")
        }
    }

    @Test func theYearHasFourDigitsBefore1000() {
        // 0999-12-31T23:59:59.999Z, one millisecond before 1000-01-01 (30 610 224 000 s before 1970).
        #expect(WallClock.iso8601(milliseconds: -30_610_224_000_001) == "0999-12-31T23:59:59.999Z")
    }

    @Test func parseForms() {
        let day: Int64 = 1_714_521_600_000  // 2024-05-01T00:00:00Z
        #expect(WallClock.parse("2024-05-01", now: 0) == day)
        #expect(WallClock.parse("2024-05-01T12:30", now: 0) == day + 45_000_000)
        #expect(WallClock.parse("2024-05-01T12:30Z", now: 0) == day + 45_000_000)
        #expect(WallClock.parse("2024-05-01T14:30:00+02:00", now: 0) == day + 45_000_000)
        #expect(WallClock.parse("2024-05-01T12:30:00.5Z", now: 0) == day + 45_000_500)
        #expect(WallClock.parse("24h", now: 100_000_000) == Int64(100_000_000 - 86_400_000))
        for bad in ["2024-02-30", "2024-13-01", "2024-05-01T25:00", "yesterday", "2024-05-01X", "12"] {
            #expect(WallClock.parse(bad, now: 0) == nil, "\(bad)")
        }
    }
}

/// `export` rescues data from a read-only file system (a dying SD card remounted ro by the
/// kernel): a real tmpfs of our own, remounted read-only.
@Suite(.serialized) struct ExportReadOnlyTests {
    /// A tmpfs at a fresh directory; `data` inside it.
    func mountedDataDirectory(_ label: String) throws -> (dir: String, data: String) {
        let dir = DeckFixtures.temporaryDirectory(label)
        try #require(StoreTestSupport.mountTmpfs(dir, kilobytes: 8192))
        return (dir, dir + "/data")
    }

    @Test(.enabled(if: StoreTestSupport.canMount, "needs CAP_SYS_ADMIN to remount a tmpfs read-only"))
    func exportReadsACleanDatabaseOnAReadOnlyFileSystem() throws {
        let (dir, data) = try mountedDataDirectory("export-ro")
        defer {
            StoreTestSupport.unmount(dir)
            DeckFixtures.removeTree(dir)
        }
        let store = DecisionStore(dataDirectory: data)
        for n in 0..<5 { store.enqueue(StoreTestSupport.record(n)) }
        #expect(store.flush(stalledFor: 60))
        store.close()
        try #require(StoreTestSupport.remount(dir, readOnly: true, kilobytes: 8192))
        #expect(try StoreTestSupport.rows(data).map(\.record) == (0..<5).map { StoreTestSupport.record($0) })
        #expect(access(data + "/decisions.sqlite3-shm", F_OK) != 0, "nothing written beside it")
    }

    /// A power cut before a checkpoint: the newest rows are only in the -wal file, which an
    /// `immutable` open would miss; export reads a copy with its WAL instead.
    @Test(.enabled(if: StoreTestSupport.canMount, "needs CAP_SYS_ADMIN to remount a tmpfs read-only"))
    func exportReadsRowsThatAreOnlyInTheWALOnAReadOnlyFileSystem() throws {
        let (dir, data) = try mountedDataDirectory("export-ro-wal")
        defer {
            StoreTestSupport.unmount(dir)
            DeckFixtures.removeTree(dir)
        }
        try #require(mkdir(data, 0o755) == 0)
        let live = DeckFixtures.temporaryDirectory("export-ro-wal-live")
        defer { DeckFixtures.removeTree(live) }
        do {
            let db = try DecisionDatabase.openForWriting(dataDirectory: live)
            try db.execute("PRAGMA wal_autocheckpoint=0")
            try DecisionDatabase.insert(
                (0..<4).map { (uid: "rescue-\($0)", record: StoreTestSupport.record($0)) }, into: db)
            // The files as a power cut would leave them, copied while the writer is open.
            let from = DecisionDatabase.path(dataDirectory: live)
            let to = DecisionDatabase.path(dataDirectory: data)
            #expect(system("cp '\(from)' '\(to)' && cp '\(from)-wal' '\(to)-wal'") == 0)
        }
        var st = stat()
        try #require(stat(DecisionDatabase.path(dataDirectory: data) + "-wal", &st) == 0 && st.st_size > 0)
        try #require(StoreTestSupport.remount(dir, readOnly: true, kilobytes: 8192))
        #expect(try StoreTestSupport.rows(data).map(\.record) == (0..<4).map { StoreTestSupport.record($0) })
    }
}
