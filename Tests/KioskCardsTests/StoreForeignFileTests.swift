import CSQLite
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskStore
@testable import KioskSystem

/// `export` and `report --data` given a decisions file the kiosk did not write: crafted here with
/// the sqlite3 C API (not the store; its functions from `SQLiteFunctions`), then read through the real commands.
@Suite struct StoreForeignFileTests {
    /// A data directory whose `decisions.sqlite3` is built by `sql`, at schema version 7.
    func craft(_ label: String, _ sql: String) throws -> String {
        let dir = DeckFixtures.temporaryDirectory(label)
        let sqlite = try SQLiteFunctions.shared.get()
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        #expect(sqlite.open(dir + "/decisions.sqlite3", &db, flags, nil) == SQLITE_OK)
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite.exec(db, sql + "; PRAGMA user_version = 7;", nil, nil, &error)
        let message = error.map { String(cString: $0) } ?? ""
        sqlite.free(error)
        _ = sqlite.closeV2(db)
        try #require(rc == SQLITE_OK, "\(message)")
        return dir
    }

    /// The store's own schema, all seven migrations, under other names where asked.
    static var tables: String {
        DecisionDatabase.migrations.joined(separator: ";\n")
    }

    func stderr(_ path: String) -> String {
        (try? FileIO.readText(path, limit: 1 << 16, what: path)) ?? ""
    }

    @Test(.enabled(if: StoreTestSupport.executableExists, "build the KioskCards executable first"))
    func aViewNamedDecisionsIsRefusedByExportAndReport() throws {
        // The real rows are elsewhere; `decisions` is a view that could compute anything.
        let sql =
            Self.tables.replacingOccurrences("decisions", with: "hidden") + """
                ;
                INSERT INTO hidden (uid, kiosk_id, session_id, deck_id, deck_version, card_id, action, wall_time, wall_ms,
                    monotonic_ns, dwell_ms) VALUES ('u', 'k', 's', 'd', 1, 'c', 'right', 't', 0, 0, 0);
                CREATE VIEW decisions AS SELECT * FROM hidden
                """
        let dir = try craft("foreign-view", sql)
        defer { DeckFixtures.removeTree(dir) }
        let log = dir + "/stderr"
        let export = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "csv"], stderrPath: log))
        #expect(export.status != 0)
        #expect(export.stdout.count <= ExportCommand.csvHeader.utf8.count)
        let report = try #require(
            StoreTestSupport.run(["report", "--data", dir, "--format", "json"], stderrPath: log))
        #expect(report.status != 0)
        let text = stderr(log)
        #expect(text.components("'decisions' is a view, not a table") == 2, "\(text)")
        #expect(text.contains(dir + "/decisions.sqlite3"))
        #expect(text.contains("export from the kiosk's own file"))
    }

    @Test(.enabled(if: StoreTestSupport.executableExists, "build the KioskCards executable first"))
    func aTableWithoutItsColumnsIsRefusedNamingThem() throws {
        let dir = try craft(
            "foreign-columns",
            "CREATE TABLE decisions (id INTEGER PRIMARY KEY, uid TEXT, kiosk_id TEXT, card_id TEXT, action TEXT)")
        defer { DeckFixtures.removeTree(dir) }
        let log = dir + "/stderr"
        let export = try #require(StoreTestSupport.run(["export", "--data", dir], stderrPath: log))
        #expect(export.status != 0)
        #expect(stderr(log).contains("'decisions' lacks session_id, deck_id"), "\(stderr(log))")
    }

    /// A trigger cannot fire and nothing is written: the file's bytes are the same afterwards,
    /// and the connection runs with trusted_schema off.
    @Test(.enabled(if: StoreTestSupport.executableExists, "build the KioskCards executable first"))
    func aTriggerInAForeignFileChangesNothing() throws {
        let sql =
            Self.tables + """
                ;
                INSERT INTO decisions (uid, kiosk_id, session_id, deck_id, deck_version, card_id, action, wall_time,
                    wall_ms, monotonic_ns, dwell_ms) VALUES ('u', 'k', 's', 'd', 1, 'c', 'right', 't', 0, 0, 0);
                CREATE TABLE planted (x);
                CREATE TRIGGER plant AFTER INSERT ON decisions BEGIN INSERT INTO planted VALUES (1); END;
                CREATE TRIGGER plant2 BEFORE DELETE ON decisions BEGIN INSERT INTO planted VALUES (2); END
                """
        let dir = try craft("foreign-trigger", sql)
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/decisions.sqlite3"
        let before = try FileIO.readAll(path, limit: 1 << 24)
        let export = try #require(StoreTestSupport.run(["export", "--data", dir, "--format", "csv"]))
        #expect(export.status == 0)
        let report = try #require(StoreTestSupport.run(["report", "--data", dir, "--format", "json"]))
        #expect(report.status == 0)
        #expect(try FileIO.readAll(path, limit: 1 << 24) == before)
        let db = try SQLiteDatabase(path: path, readOnly: true, create: false)
        #expect(try db.scalarInt("PRAGMA trusted_schema") == 0)
        #expect(throws: SQLiteError.self) { try db.execute("DELETE FROM decisions") }
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, with replacement: String) -> String {
        ReportPage.replacing(target, with: replacement, in: self)
    }

    fileprivate func components(_ needle: String) -> Int {
        var count = 0
        var rest = Substring(self)
        while let r = rest.range(of: needle) {
            count += 1
            rest = rest[r.upperBound...]
        }
        return count
    }
}
