import CardModel
import Glibc
import KioskDeckFiles
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDisplay
@testable import KioskFleet
@testable import KioskSystem

/// Screenshots from afar against the real PostgreSQL of `FleetTests`: the real
/// `fleet screenshot` process asks; a real `KioskApp` (on a display in memory, its real fleet
/// worker thread and poll loop) answers; the PNG is compared with what the real `render`
/// process draws for the same deck state, decoded by another PNG reader (scripts/png-diff.py,
/// Python's zlib).
extension FleetTests {
    /// A kiosk app on an 800×480 panel in memory with `deck`, its fleet worker running (not
    /// `start()`: no signals, no input devices here), and its frame drawn.
    func screenshotApp(
        _ settings: FleetSettings, kiosk: String, deck: String, frameTimeout: Double = 5,
        configure: (inout KioskConfig) -> Void = { _ in }
    ) throws -> KioskApp {
        var config = KioskConfig()
        config.dataDirectory = scratch + "/app-\(kiosk)"
        _ = mkdir(config.dataDirectory, 0o755)
        config.kioskID = kiosk
        config.fleetURL = settings.url
        config.fleetCredentials = settings.credentialsPath
        config.staffPinHash = "$y$j9T$unused$unused"
        configure(&config)
        let file = try DeckLoader.load(path: deck).get()
        let loop = EventLoop()
        let display = try Display(
            scanout: AppLanguageTests.MemoryScanout(), rotation: nil, loop: loop, takeTerminal: false)
        let app = KioskApp(config: config, deck: file, display: display, loop: loop, processStart: .seconds(0))
        PanelScreenshots.attach(app)
        let now = MonotonicClock.now()
        app.feed(.tick, at: now)
        // The card is drawn on the preparation thread; the app redraws when it is ready (here
        // without `start()`'s watch: by drawing the same instant again until it is in).
        #expect(
            StoreTestSupport.waitFor(seconds: 30) {
                app.drawFrame(at: now)
                return !app.surface.renderer.isShowingStandIns
            })
        app.fleet?.screenshots?.frameTimeout = frameTimeout
        app.fleet?.start()
        #expect(StoreTestSupport.waitFor(seconds: 30) { app.fleet?.currentState == .online })
        return app
    }

    /// `fleet screenshot KIOSK` as the operator runs it (as the admin, or `url`), while this
    /// thread runs the app's loop (the kiosk's answer needs it); its exit status, stdout and stderr.
    func shoot(
        _ kiosk: String, database: String, out: String, app: KioskApp?, extra: [String] = [], url: String? = nil
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        Self.counter += 1
        let err = scratch + "/shot-\(Self.counter).err"
        let child = try #require(
            StoreTestSupport.spawn(
                ["fleet", "screenshot", kiosk, "--postgres", url ?? pg.adminURL(database: database), "--out", out]
                    + extra,
                stderrPath: err))
        var status: Int32 = 0
        let end = MonotonicClock.now().advanced(bySeconds: 120)
        while true {
            let done = waitpid(child.pid, &status, WNOHANG)
            if done == child.pid { break }
            if MonotonicClock.now() >= end {
                kill(child.pid, SIGKILL)
                _ = waitpid(child.pid, &status, 0)
                break
            }
            if let app { app.loop.runOnce(maxWait: 0.02) } else { usleep(20_000) }
        }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buf.withUnsafeMutableBytes { read(child.stdout, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        close(child.stdout)
        let log = (try? FileIO.readAll(err, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return ((status >> 8) & 0xFF, String(decoding: out, as: UTF8.self), log)
    }

    /// Whether two PNG files hold the same pixels, by scripts/png-diff.py (its own decoder).
    func samePixels(_ a: String, _ b: String) throws -> (Bool, String) {
        let report = scratch + "/png-diff.out"
        let status = PostgresTestServer.runAsServerUser(
            ["/usr/bin/python3", DeckFixtures.packageRoot + "/scripts/png-diff.py", a, b], log: report)
        let text = (try? FileIO.readAll(report, limit: 1 << 16)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (status == 0, text)
    }

    @Test func screenshotEqualsRenderOfTheSameStateAndNeverShowsTheStaffMenu() throws {
        try #require(StoreTestSupport.executableExists)
        try #require(access("/usr/bin/python3", X_OK) == 0, "python3 compares the PNGs (scripts/png-diff.py)")
        let name = try freshFleet()
        let kiosk = "shot-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let deck = DeckFixtures.packageRoot + "/examples/seed-stack.json"
        let app = try screenshotApp(settings, kiosk: kiosk, deck: deck) { $0.fleetScreenshotInterval = 1 }
        defer {
            app.fleet?.stop()
            app.store.close()
        }
        // Readable by `nobody` (png-diff runs as the server's user when the tests run as root).
        chmod(scratch, 0o755)
        let got = scratch + "/got.png"
        let shot = try shoot(kiosk, database: name, out: got, app: app)
        #expect(shot.status == 0, "\(shot.stderr)")
        #expect(shot.stdout.contains("800×480"), "\(shot.stdout)")

        let rendered = scratch + "/render.png"
        let render = try #require(
            StoreTestSupport.run(["render", "--deck", deck, "--size", "800x480", "--out", rendered]))
        #expect(render.status == 0)
        let (same, report) = try samePixels(got, rendered)
        #expect(same, "the screenshot differs from render: \(report)")

        // Stored centrally with its times: the server's answer time, the kiosk's frame time.
        let row = try pg.admin(name).execute(
            """
            SELECT state, width, height, octet_length(png), answered_at >= requested_at,
                   abs(taken_wall_ms - extract(epoch FROM answered_at) * 1000) < 600000
            FROM fleet.screenshots WHERE kiosk_id = $1
            """, [kiosk])
        let bytes = try FileIO.readAll(got, limit: 1 << 24).count
        #expect(row.values == [["taken", "800", "480", String(bytes), "t", "t"]])

        // The PIN pad up: refused, saying why; nothing of it reaches the server.
        app.feed(.staffKeys)
        #expect(app.kiosk.staffMenu.isOpen)
        usleep(1_100_000)  // past fleet-screenshot-interval (1 s), so only the menu can refuse
        let refused = try shoot(kiosk, database: name, out: scratch + "/pin.png", app: app)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the staff menu is open"), "\(refused.stderr)")
        #expect(access(scratch + "/pin.png", F_OK) != 0)
        let states = try pg.admin(name).execute(
            "SELECT state, png IS NULL FROM fleet.screenshots WHERE kiosk_id = $1 ORDER BY id", [kiosk])
        #expect(states.values == [["taken", "f"], ["refused", "t"]])
    }

    @Test func screenshotsAreRateLimitedCanBeOffAndNoKioskReadsAnothers() throws {
        try #require(StoreTestSupport.executableExists)
        let name = try freshFleet()
        let a = "shot-a-\(getpid())"
        let b = "shot-b-\(getpid())"
        let aSettings = try addKiosk(a, database: name)
        let bSettings = try addKiosk(b, database: name)
        let deck = DeckFixtures.packageRoot + "/examples/seed-stack.json"

        // An operator role (fleet_operator), not the admin, asks from here on.
        let op = "op_shot_\(getpid())"
        let password = FleetAdmin.randomPassword()
        _ = try FleetAdmin.addOperator(op, password: password, on: try pg.admin(name))
        let opURL = "postgresql://\(op):\(password)@127.0.0.1:\(pg.port)/\(name)"

        // Kiosk A: one screenshot an hour at most.
        let app = try screenshotApp(aSettings, kiosk: a, deck: deck) { $0.fleetScreenshotInterval = 3600 }
        defer {
            app.fleet?.stop()
            app.store.close()
        }
        let first = try shoot(a, database: name, out: scratch + "/a1.png", app: app, url: opURL)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileIO.exists(scratch + "/a1.png"))
        let second = try shoot(a, database: name, out: scratch + "/a2.png", app: app, url: opURL)
        #expect(second.status == 1)
        #expect(second.stderr.contains("at most one screenshot every 3600 s"), "\(second.stderr)")
        #expect(second.stderr.contains("ask again in"), "\(second.stderr)")

        // Kiosk B: fleet-screenshot = off.
        let off = try screenshotApp(bSettings, kiosk: b, deck: deck) { $0.fleetScreenshot = false }
        defer {
            off.fleet?.stop()
            off.store.close()
        }
        let refused = try shoot(b, database: name, out: scratch + "/b.png", app: off)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("fleet-screenshot = off"), "\(refused.stderr)")

        // Kiosk B's role sees only its own requests, never a PNG, and cannot answer A's.
        let bRole = try connect(bSettings)
        #expect(try bRole.execute("SELECT DISTINCT kiosk_id FROM fleet.screenshots").values == [[b]])
        #expect(throws: FleetError.self) { try bRole.execute("SELECT png FROM fleet.screenshots") }
        let aRequest = try #require(
            try pg.admin(name).execute(
                "INSERT INTO fleet.screenshots (kiosk_id) VALUES ($1) RETURNING id", [a]
            ).scalar)
        let stolen = try bRole.execute(
            "UPDATE fleet.screenshots SET state = 'refused', reason = 'x' WHERE id = $1::bigint", [aRequest])
        #expect(stolen.affected == 0)
        #expect(throws: FleetError.self) {
            try bRole.execute("INSERT INTO fleet.screenshots (kiosk_id) VALUES ($1)", [b])
        }
        // A kiosk answers once: a taken request cannot be rewritten.
        let taken = try #require(
            try pg.admin(name).execute(
                "SELECT id FROM fleet.screenshots WHERE kiosk_id = $1 AND state = 'taken'", [a]
            ).scalar)
        let aRole = try connect(aSettings)
        let rewrite = try aRole.execute(
            "UPDATE fleet.screenshots SET png = '\\x00'::bytea WHERE id = $1::bigint", [taken])
        #expect(rewrite.affected == 0)

        // A kiosk whose app is not running: the operator hears so, not a hang.
        let c = "shot-c-\(getpid())"
        _ = try addKiosk(c, database: name)
        let silent = try shoot(
            c, database: name, out: scratch + "/c.png", app: nil, extra: ["--timeout", "2"], url: opURL)
        #expect(silent.status == 1)
        #expect(silent.stderr.contains("did not answer within 2 s; it has never sent a heartbeat"), "\(silent.stderr)")
        let expired = try pg.admin(name).execute("SELECT state FROM fleet.screenshots WHERE kiosk_id = $1", [c])
        #expect(expired.values == [["expired"]])
        let unknown = try shoot("nobody-\(getpid())", database: name, out: scratch + "/n.png", app: nil)
        #expect(unknown.status == 1 && unknown.stderr.contains("is registered"), "\(unknown.stderr)")
    }

    /// A request waiting for the frame when the loop has ended (SIGTERM): the app's teardown
    /// refuses it with the reason and stops its worker without waiting for the frame. The
    /// worker's own wait is made long here, so only the teardown can have ended it: the row's
    /// reason tells which did.
    @Test func screenshotWaitingAtShutdownIsRefusedNotWaitedFor() throws {
        try #require(StoreTestSupport.executableExists)
        let name = try freshFleet()
        let kiosk = "shot-exit-\(getpid())"
        let settings = try addKiosk(kiosk, database: name)
        let deck = DeckFixtures.packageRoot + "/examples/seed-stack.json"
        let app = try screenshotApp(settings, kiosk: kiosk, deck: deck, frameTimeout: 600)
        defer {
            app.fleet?.stop()
            app.store.close()
        }
        let shots = try #require(app.fleet?.screenshots)
        // The operator asks (and waits); this thread does not run the loop (as once it has
        // ended), so the worker waits for a frame.
        let err = scratch + "/exit-shot.err"
        let child = try #require(
            StoreTestSupport.spawn(
                [
                    "fleet", "screenshot", kiosk, "--postgres", pg.adminURL(database: name), "--out",
                    scratch + "/exit.png", "--timeout", "120",
                ], stderrPath: err))
        #expect(StoreTestSupport.waitFor(seconds: 60) { shots.desk.unanswered == 1 })
        let id = try #require(
            try pg.admin(name).execute(
                "SELECT id FROM fleet.screenshots WHERE kiosk_id = $1 AND state = 'requested'", [kiosk]
            ).scalar)

        // What `KioskApp.run()` does once its loop has ended: the desk closes, later the worker stops.
        PanelScreenshots.detach(app)
        app.fleet?.stop()
        let row = try pg.admin(name).execute(
            "SELECT state, reason, png IS NULL FROM fleet.screenshots WHERE id = $1::bigint", [id])
        #expect(row.values == [["refused", RemoteScreenshots.shutdownReason, "t"]])
        #expect(shots.taken == 0 && shots.desk.unanswered == 1, "the loop never answered, and nothing waited for it")
        // The operator's command, still waiting, reads the refusal and its reason.
        var status: Int32 = 0
        _ = waitpid(child.pid, &status, 0)
        close(child.stdout)
        let log = String(decoding: try FileIO.readAll(err, limit: 1 << 20), as: UTF8.self)
        #expect((status >> 8) & 0xFF == 1)
        #expect(log.contains("refused: \(RemoteScreenshots.shutdownReason)"), "\(log)")
        #expect(access(scratch + "/exit.png", F_OK) != 0)
    }
}

/// The kiosk's own rules for screenshots from afar, time passed in.
struct ScreenshotPolicyTests {
    @Test func offRefusesAndTheIntervalCountsFromTheLastTaken() {
        var policy = ScreenshotPolicy(enabled: true, minimumInterval: 10)
        #expect(policy.refusal(at: 100) == nil)
        policy.taken(at: 100)
        let soon = policy.refusal(at: 103.5)
        #expect(
            soon?.contains("every 10 s") == true && soon?.contains("3 s ago: ask again in 7 s") == true, "\(soon ?? "")"
        )
        #expect(policy.refusal(at: 110) == nil)
        let off = ScreenshotPolicy(enabled: false, minimumInterval: 10)
        #expect(off.refusal(at: 0)?.contains("fleet-screenshot = off") == true)
    }

    @Test func configKeysSetThePolicy() throws {
        var config = KioskConfig()
        let text = "fleet-url = postgresql://k@/db?host=/tmp\nfleet-screenshot = off\nfleet-screenshot-interval = 45s\n"
        #expect(KioskConfig.apply(file: text, name: "kiosk.conf", to: &config) == nil)
        let settings = try #require(FleetSettings(config: config))
        #expect(settings.screenshots == ScreenshotPolicy(enabled: false, minimumInterval: 45))
        var bad = KioskConfig()
        let problem = KioskConfig.apply(file: "fleet-screenshot-interval = 0s\n", name: "kiosk.conf", to: &bad)
        #expect(problem != nil)
    }
}

/// The worker's desk at the app's exit, without a server: an asker waiting for a loop that
/// has ended is refused when the desk closes, and so is every later one.
struct FrameDeskShutdownTests {
    final class Slot: @unchecked Sendable {
        let sync = Condition()
        var answer: FrameDesk.Answer?
        var done = false
    }

    @Test func aClosedDeskRefusesTheAskerWaitingAndEveryLaterOne() throws {
        let loop = EventLoop()  // never run again: the app's loop has ended
        let desk = FrameDesk()
        desk.attach(to: loop) { .refused("the loop answered") }
        let slot = Slot()
        let asker = BackgroundWork.run("frame-desk-test") {
            let answer = desk.capture(timeout: 600)
            slot.sync.withLock {
                slot.answer = answer
                slot.done = true
            }
        }
        #expect(StoreTestSupport.waitFor(seconds: 60) { desk.unanswered == 1 })
        #expect(slot.sync.withLock { !slot.done }, "the asker waits for the loop")
        desk.close(reason: "shutting down")
        asker.wait()
        guard case .refused(let reason)? = slot.sync.withLock({ slot.answer }) else {
            Issue.record("the waiting asker got no refusal")
            return
        }
        #expect(reason == "shutting down")
        guard case .refused(let later)? = desk.capture(timeout: 600) else {
            Issue.record("an asker after the close got no refusal")
            return
        }
        #expect(later == "shutting down")
        #expect(desk.unanswered == 1, "the later asker did not ask the loop at all")
    }
}

/// The app's answer to a screenshot request without a server: on a panel turned 90° (mounted
/// portrait) the PNG equals `render --rotation 90` of the same deck state; with the staff
/// menu open it is a refusal.
@Suite(.serialized) struct AppScreenshotTests {
    @Test func aTurnedPanelsScreenshotEqualsRenderAndTheStaffMenuIsRefused() throws {
        try #require(StoreTestSupport.executableExists)
        try #require(access("/usr/bin/python3", X_OK) == 0, "python3 compares the PNGs (scripts/png-diff.py)")
        let dir = DeckFixtures.temporaryDirectory("app-screenshot")
        defer { DeckFixtures.removeTree(dir) }
        chmod(dir, 0o755)
        var config = KioskConfig()
        config.dataDirectory = dir
        config.kioskID = "turned"
        config.staffPinHash = "$y$j9T$unused$unused"
        let deck = DeckFixtures.packageRoot + "/examples/seed-stack.json"
        let loop = EventLoop()
        let display = try Display(
            scanout: AppLanguageTests.MemoryScanout(), rotation: .deg90, loop: loop, takeTerminal: false)
        let app = KioskApp(
            config: config, deck: try DeckLoader.load(path: deck).get(), display: display, loop: loop,
            processStart: .seconds(0))
        defer { app.store.close() }
        let now = MonotonicClock.now()
        app.feed(.tick, at: now)
        #expect(
            StoreTestSupport.waitFor(seconds: 30) {
                app.drawFrame(at: now)
                return !app.surface.renderer.isShowingStandIns
            })
        guard case .frame(let box, let rotation, let format, _) = PanelScreenshots.answer(for: app) else {
            Issue.record("the app refused a screenshot with no staff menu open")
            return
        }
        #expect(box.value.width == 480 && box.value.height == 800, "the frame is upright (portrait)")
        let (picture, png) = try RemoteScreenshots.encode(box.value, rotation: rotation, format: format)
        #expect(picture.width == 800 && picture.height == 480)
        let got = dir + "/got.png"
        try FileIO.replaceAtomically(path: got, contents: png)
        let rendered = dir + "/render.png"
        let render = try #require(
            StoreTestSupport.run(["render", "--deck", deck, "--size", "800x480", "--rotation", "90", "--out", rendered])
        )
        #expect(render.status == 0)
        let report = dir + "/png-diff.out"
        let same = PostgresTestServer.runAsServerUser(
            ["/usr/bin/python3", DeckFixtures.packageRoot + "/scripts/png-diff.py", got, rendered], log: report)
        let text = (try? FileIO.readAll(report, limit: 1 << 16)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(same == 0, "the screenshot differs from render --rotation 90: \(text)")

        app.feed(.staffKeys)
        guard case .refused(let reason) = PanelScreenshots.answer(for: app) else {
            Issue.record("a screenshot was made with the staff menu open")
            return
        }
        #expect(reason.contains("the staff menu is open"))
    }
}
