import Glibc
import KioskTestSupport
import Testing

@testable import KioskFleet
@testable import KioskSystem

/// Staged rollouts against the real PostgreSQL of `FleetTests`: the real `fleet publish
/// --canary`, `fleet rollout` and `fleet status` processes; canaries report through their own
/// kiosk roles as the app's heartbeat does; the hold is judged at explicit server times.
extension FleetTests {
    /// A group of kiosks with deck 1 on all of them (a plain publish): the database, the ids
    /// (byte order) and each kiosk's connection.
    func rolloutGroup(_ tag: String, count: Int = 3) throws -> (name: String, ids: [String], dbs: [PostgresConnection])
    {
        let name = try freshFleet()
        let ids = (0..<count).map { "ro-\(tag)-\(["a", "b", "c", "d"][$0])-\(getpid())" }
        let dbs = try ids.map { try connect(try addKiosk($0, database: name, group: "lobby")) }
        try publish([try writeDeck("lobby", version: 1, title: "Eins"), "--group", "lobby"], database: name)
        return (name, ids, dbs)
    }

    func assignedDeck(_ database: String, _ kiosk: String) throws -> String? {
        try pg.admin(database).execute(
            """
            SELECT d.deck_id || '@' || d.version FROM fleet.deck_assignments a JOIN fleet.decks d USING (deck_sha256)
            WHERE a.kiosk_id = $1
            """,
            [kiosk]
        ).scalar
    }

    /// The running app's heartbeat: `deckApplied` on screen (flipped just now), or `error`.
    func canaryBeat(
        _ db: PostgresConnection, applied: String?, error: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let now = WallClock.nowMilliseconds()
        var h = Heartbeat(sentAtMs: now, appVersion: "t", deckApplied: applied, lastFlipMs: now)
        h.deckAssigned = try FleetUpload.assignedDeck(on: db)
        h.deckError = error
        h.source = .app
        try FleetUpload.send(h, on: db, columns: try FleetDeckDownload.heartbeatColumns(on: db))
    }

    /// A time past the group's rollout's hold, on the server's clock.
    func pastHold(_ database: String) throws -> String {
        try #require(
            try pg.admin(database).execute(
                "SELECT (hold_until + interval '1 second')::text FROM fleet.rollouts ORDER BY id DESC LIMIT 1"
            ).scalar)
    }

    func fleet(_ args: [String], database: String) throws -> (status: Int32, out: String) {
        let result = try #require(
            StoreTestSupport.run(
                ["fleet"] + args + ["--postgres", pg.adminURL(database: database)], stderrPath: scratch + "/ro.err"))
        return (result.status, String(decoding: result.stdout, as: UTF8.self))
    }

    @Test func deckRefusedOnTheCanaryNeverReachesTheRest() throws {
        try #require(StoreTestSupport.executableExists)
        let (name, ids, dbs) = try rolloutGroup("refused")
        let admin = try pg.admin(name)
        try publish(
            [try writeDeck("lobby", version: 2, title: "Zwei"), "--group", "lobby", "--canary", "1", "--hold", "30m"],
            database: name)
        // The canary is the first kiosk by id; the rest keep deck 1.
        #expect(try ids.map { try assignedDeck(name, $0) } == ["lobby@2", "lobby@1", "lobby@1"])

        try canaryBeat(dbs[0], applied: "lobby@1", error: "font 'Noto Sans CJK' not found")
        let stopped = try #require(try FleetRollouts.advance(on: admin).first)
        #expect(stopped.state == .stopped && stopped.needsAttention)
        #expect(stopped.reason == "canary \(ids[0]) refused lobby@2: font 'Noto Sans CJK' not found")
        // Long after the hold: still stopped, the rest never got it.
        #expect(try FleetRollouts.advance(at: try pastHold(name), on: admin).first?.state == .stopped)
        #expect(try ids.map { try assignedDeck(name, $0) } == ["lobby@2", "lobby@1", "lobby@1"])
        let history = try admin.execute(
            "SELECT count(*) FROM fleet.assignment_history h JOIN fleet.decks d USING (deck_sha256) WHERE d.version = 2"
        )
        #expect(history.scalar == "1")

        // The operator's view: the rollout line, and attention (exit 1).
        let attention = try fleet(["status", "--attention"], database: name)
        #expect(attention.status == 1)
        #expect(
            attention.out.contains("rollout lobby: lobby@2 to 1 canary (\(ids[0])), 0 shown, 1 refused; stopped at "),
            "\(attention.out)")
        // Resumed while the canary still refuses: stopped again at once.
        let resumed = try fleet(["rollout", "resume", "lobby"], database: name)
        #expect(resumed.status == 1 && resumed.out.contains("refused lobby@2"), "\(resumed.out)")
        #expect(try assignedDeck(name, ids[1]) == "lobby@1")
    }

    @Test func goodDeckReachesTheRestAfterTheHold() throws {
        try #require(StoreTestSupport.executableExists)
        let (name, ids, dbs) = try rolloutGroup("good")
        let admin = try pg.admin(name)
        // Named canaries: the last kiosk by id.
        try publish(
            [try writeDeck("lobby", version: 2, title: "Zwei"), "--group", "lobby", "--canary-kiosks", ids[2]],
            database: name)
        #expect(try ids.map { try assignedDeck(name, $0) } == ["lobby@1", "lobby@1", "lobby@2"])
        // Default hold: 30 minutes from the start.
        let hold = try admin.execute("SELECT extract(epoch FROM hold_until - started_at)::integer FROM fleet.rollouts")
        #expect(hold.scalar == String(FleetRollouts.defaultHoldSeconds))

        // Within the hold, the canary shows it: still holding, the rest wait.
        try canaryBeat(dbs[2], applied: "lobby@2")
        let holding = try #require(try FleetRollouts.advance(on: admin).first)
        #expect(holding.state == .holding && holding.canaries.map(\.shown) == [true])
        #expect(try assignedDeck(name, ids[0]) == "lobby@1")

        // After the hold: promoted to the other two, each with its history row.
        let promoted = try #require(try FleetRollouts.advance(at: try pastHold(name), on: admin).first)
        #expect(promoted.state == .promoted && promoted.reason == "to the other 2 kiosks of the group")
        #expect(try ids.map { try assignedDeck(name, $0) } == ["lobby@2", "lobby@2", "lobby@2"])
        #expect(try FleetUpload.assignedDeck(on: dbs[0]) == FleetUpload.assignedDeck(on: dbs[2]))
        let rows = try admin.execute(
            """
            SELECT kiosk_id FROM fleet.assignment_history h JOIN fleet.decks d USING (deck_sha256)
            WHERE d.version = 2 ORDER BY id
            """)
        #expect(rows.values.map { $0[0] } == [ids[2], ids[0], ids[1]])
        // Judged again: nothing more happens.
        #expect(try FleetRollouts.advance(at: try pastHold(name), on: admin).first?.state == .promoted)
        #expect(try admin.execute("SELECT count(*) FROM fleet.assignment_history").scalar == "6")
        let status = try fleet(["status"], database: name)
        #expect(status.out.contains("rollout lobby: lobby@2 to 1 canary (\(ids[2])), 1 shown, 0 refused; promoted at "))
    }

    @Test func operatorStopsAndResumesARollout() throws {
        try #require(StoreTestSupport.executableExists)
        let (name, ids, dbs) = try rolloutGroup("stop", count: 4)
        let admin = try pg.admin(name)
        // 50 % of four: the first two by id.
        try publish(
            [try writeDeck("lobby", version: 2, title: "Zwei"), "--group", "lobby", "--canary", "50%", "--hold", "1h"],
            database: name)
        #expect(try ids.map { try assignedDeck(name, $0) } == ["lobby@2", "lobby@2", "lobby@1", "lobby@1"])
        try canaryBeat(dbs[0], applied: "lobby@2")
        try canaryBeat(dbs[1], applied: "lobby@2")

        let stop = try fleet(["rollout", "stop", "lobby"], database: name)
        #expect(stop.status == 0 && stop.out.contains("stopped at ") && stop.out.contains(" by "), "\(stop.out)")
        // Stopped by the operator: no promotion after the hold, and not an alert.
        let after = try #require(try FleetRollouts.advance(at: try pastHold(name), on: admin).first)
        #expect(after.state == .stopped && !after.needsAttention)
        #expect(try assignedDeck(name, ids[2]) == "lobby@1")
        #expect(try fleet(["rollout", "stop", "lobby"], database: name).status == 1)

        // Resumed before the hold's end (server clock): holding; judged after it: promoted.
        let resume = try fleet(["rollout", "resume", "lobby"], database: name)
        #expect(resume.status == 0 && resume.out.contains("2 shown, 0 refused; holding until "), "\(resume.out)")
        #expect(try FleetRollouts.advance(at: try pastHold(name), on: admin).first?.state == .promoted)
        #expect(try ids.map { try assignedDeck(name, $0) } == ["lobby@2", "lobby@2", "lobby@2", "lobby@2"])
    }

    @Test func silentCanaryStopsTheRolloutAndANewPublishSupersedesIt() throws {
        try #require(StoreTestSupport.executableExists)
        let (name, ids, dbs) = try rolloutGroup("silent")
        let admin = try pg.admin(name)
        try publish(
            [try writeDeck("lobby", version: 2, title: "Zwei"), "--group", "lobby", "--canary", "2", "--hold", "10m"],
            database: name)
        try canaryBeat(dbs[0], applied: "lobby@2")
        // The second canary is never heard from: at the hold's end the rollout stops.
        let stopped = try #require(try FleetRollouts.advance(at: try pastHold(name), on: admin).first)
        #expect(stopped.state == .stopped && stopped.reason == "canary \(ids[1]) is never seen")
        #expect(try assignedDeck(name, ids[2]) == "lobby@1")
        // A plain publish to the group replaces the rollout: the stopped one is never promoted.
        try publish([try writeDeck("lobby", version: 3, title: "Drei"), "--group", "lobby"], database: name)
        #expect(try FleetRollouts.current(on: admin).isEmpty)
        #expect(try admin.execute("SELECT state FROM fleet.rollouts").scalar == "superseded")
        #expect(try ids.map { try assignedDeck(name, $0) } == ["lobby@3", "lobby@3", "lobby@3"])
        // A canary of the whole group is refused with the fix.
        let whole = try fleet(
            ["publish", try writeDeck("lobby", version: 4, title: "Vier"), "--group", "lobby", "--canary", "3"],
            database: name)
        #expect(whole.status == 1)
        let err = String(decoding: try FileIO.readAll(scratch + "/ro.err", limit: 1 << 16), as: UTF8.self)
        #expect(err.contains("leaves none of the group's 3 kiosks to follow"), "\(err)")
    }

    /// `fleet status --json` carries each group's latest rollout with the figures of its text
    /// line: a group stopped by a refusing canary and one holding with its canary showing the
    /// deck. The oracle is what the test stored: its kiosks, its heartbeats and the server's own
    /// rollout and deck rows.
    @Test func statusJSONCarriesEachGroupsRollout() throws {
        try #require(StoreTestSupport.executableExists)
        let (name, ids, dbs) = try rolloutGroup("json")
        let hall = (0..<2).map { "ro-json-hall-\(["a", "b"][$0])-\(getpid())" }
        let hallDBs = try hall.map { try connect(try addKiosk($0, database: name, group: "hall")) }
        try publish([try writeDeck("hall", version: 1, title: "Eins"), "--group", "hall"], database: name)
        try publish(
            [try writeDeck("lobby", version: 2, title: "Zwei"), "--group", "lobby", "--canary", "2", "--hold", "30m"],
            database: name)
        try publish(
            [try writeDeck("hall", version: 5, title: "Fünf"), "--group", "hall", "--canary", "1", "--hold", "2h"],
            database: name)
        try canaryBeat(dbs[0], applied: "lobby@2")
        try canaryBeat(dbs[1], applied: "lobby@1", error: "image 'map.png' not found")
        try canaryBeat(hallDBs[0], applied: "hall@5")

        let result = try fleet(["status", "--json"], database: name)
        // The lobby rollout was stopped by its canary: attention, exit 1.
        #expect(result.status == 1)
        let root = try JSONReader.parse(Array(result.out.utf8))
        #expect(root["kiosks"]?.elements?.count == 5, "\(result.out)")
        let rollouts = try #require(root["rollouts"]?.elements, "\(result.out)")
        #expect(rollouts.map { $0["group"]?.stringValue } == ["hall", "lobby"])

        let rows = try pg.admin(name).execute(
            """
            SELECT r.group_name, r.deck_sha256, d.deck_id || '@' || d.version, r.state,
                   \(FleetRollouts.iso("r.started_at")), \(FleetRollouts.iso("r.hold_until")),
                   \(FleetRollouts.iso("r.changed_at"))
            FROM fleet.rollouts r JOIN fleet.decks d USING (deck_sha256) ORDER BY r.group_name
            """)
        #expect(rows.values.map { $0[0] } == ["hall", "lobby"])
        for (r, row) in zip(rollouts, rows.values) {
            #expect(r["deck_sha256"]?.stringValue == row[1])
            #expect(r["deck"]?.stringValue == row[2])
            #expect(r["state"]?.stringValue == row[3])
            #expect(r["started_at"]?.stringValue == row[4])
            #expect(r["hold_until"]?.stringValue == row[5])
            #expect(r["changed_at"]?.stringValue == row[6])
            #expect(r["hold_passed"]?.value == .bool(false))
            #expect(r["changed_by"]?.value == .null)
        }
        let (hallRollout, lobby) = (rollouts[0], rollouts[1])
        #expect(lobby["state"]?.stringValue == "stopped")
        #expect(lobby["needs_attention"]?.value == .bool(true))
        #expect(lobby["reason"]?.stringValue == "canary \(ids[1]) refused lobby@2: image 'map.png' not found")
        #expect(lobby["canary_count"]?.value == .number(2))
        #expect(lobby["shown"]?.value == .number(1) && lobby["refused"]?.value == .number(1))
        let lobbyCanaries = try #require(lobby["canaries"]?.elements)
        #expect(lobbyCanaries.map { $0["kiosk_id"]?.stringValue } == [ids[0], ids[1]])
        #expect(lobbyCanaries.map { $0["shown"]?.value } == [.bool(true), .bool(false)])
        #expect(lobbyCanaries.map { $0["refusal"]?.value } == [.null, .string("image 'map.png' not found")])
        #expect(lobbyCanaries.map { $0["state"]?.stringValue } == ["online", "online"])

        #expect(hallRollout["state"]?.stringValue == "holding")
        #expect(hallRollout["needs_attention"]?.value == .bool(false))
        #expect(hallRollout["reason"]?.stringValue == "1 of 1 canaries show it")
        #expect(hallRollout["canary_count"]?.value == .number(1))
        #expect(hallRollout["shown"]?.value == .number(1) && hallRollout["refused"]?.value == .number(0))
        #expect(hallRollout["canaries"]?.elements?.map { $0["kiosk_id"]?.stringValue } == [hall[0]])

        // The table's rollout lines say the same, figure for figure.
        let text = try fleet(["status"], database: name)
        #expect(text.status == 1)
        #expect(
            text.out.contains(
                "rollout lobby: lobby@2 to 2 canaries (\(ids[0]), \(ids[1])), 1 shown, 1 refused;"
                    + " stopped at \(rows.values[1][6] ?? ""): canary \(ids[1]) refused lobby@2:"
                    + " image 'map.png' not found"), "\(text.out)")
        #expect(
            text.out.contains(
                "rollout hall: hall@5 to 1 canary (\(hall[0])), 1 shown, 0 refused;"
                    + " holding until \(rows.values[0][5] ?? ""): 1 of 1 canaries show it"), "\(text.out)")
    }
}

/// The rollout options without a server: what is refused, and with which words.
@Suite struct FleetRolloutCommandLineTests {
    @Test func stagingOptionsAreRefusedWhereTheyCannotApply() throws {
        try #require(StoreTestSupport.executableExists)
        let cases: [([String], String)] = [
            (["publish", "d.json", "--kiosk", "k1", "--canary", "2"], "stage a publish to a --group"),
            (["publish", "d.json", "--group", "g", "--hold", "30m"], "--hold needs --canary"),
            (["publish", "d.json", "--group", "g", "--canary", "0"], "a count (2) or a share (10%)"),
            (["publish", "d.json", "--group", "g", "--canary", "1", "--hold", "soon"], "such as 90s, 30m"),
            (["publish", "d.json", "--group", "g", "--canary-kiosks", "a b"], "kiosk ids, comma-separated"),
            (["rollout", "stop"], "stop takes one group"),
            (["rollout", "pause", "g"], "one of show, stop G or resume G"),
        ]
        for (args, words) in cases {
            let result = try #require(CommandLineTests.run(["fleet"] + args + ["--postgres", "x=y"]))
            #expect(result.status == 2, "\(args)")
            #expect(result.stderr.contains(words), "\(args): \(result.stderr)")
        }
    }
}
