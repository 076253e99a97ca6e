import CardModel
import Glibc
import KioskDeckFiles
import KioskDisplay
import KioskInput
import KioskRender
import KioskSpeech
import KioskStore
import KioskSystem

/// The running kiosk: one `poll()` loop that carries touches from the input devices through
/// the visitor session into the deck model, draws the model's scene when the display is ready
/// for a frame, and hands every decision to the store.
///
/// Flow per frame: `Display.onFrame(t)` → `deck.scene(at: t)` → `SceneRenderer.render` (only
/// the damage, in ordinary memory) → `Display.present` (copy damage, page flip) → the flip event
/// paces the next `onFrame` while something moves. When nothing moves nothing is scheduled and
/// the process sleeps in `poll()`.
final class KioskApp {
    let config: KioskConfig
    let loop: EventLoop
    let display: Display
    let store: DecisionStore
    /// The fleet sync (decisions up, heartbeats), when kiosk.conf has a fleet-url.
    let fleet: FleetSyncWorker?
    /// What the heartbeat reports; written here at most once a second, read by the worker.
    private let health = FleetHealth()
    private var lastFlipNoted: Instant?
    private var lastTouchNoted: Instant?
    let kioskID: String
    /// The deck on screen: `primaryDeck`, or the deck a schedule window names.
    private(set) var deckFile: DeckFile
    /// The deck file the kiosk was started with (watched, reloaded); its schedule rules.
    private(set) var primaryDeck: DeckFile
    /// Which deck the schedule's window wants shown, and whether it is (KioskApp+Schedule).
    var rotation = DeckRotation()
    /// Decks named by schedule windows are read here, off the loop.
    var deckLoads: LoopDelivery<(path: String, result: Result<DeckFile, DeckProblems>)>?
    /// The staff menu's reload of the primary deck, read on a worker.
    var primaryLoads: LoopDelivery<Result<DeckFile, DeckProblems>>?
    /// A window's deck read while a visitor was busy: shown when the visit ends.
    var readyDeck: DeckFile?
    /// `deckFile` in the visitor's language (what the screen shows and speech reads).
    var shownDeck: DeckFile
    /// The visitor's language (KioskApp+Language).
    var languages: LanguageChoice
    /// Contacts that began on the language control (they reach no card).
    var languageSwallowed: Set<Int> = []
    var deck: any CardDeck
    var session: VisitorSession
    private var visits: VisitRecorder
    private(set) var surface: Surface
    private(set) var input: InputManager?
    private var watcher: DeckWatcher?
    /// A fleet deck that arrived during a visit: it replaces the deck when the visit ends.
    private var fleetDeckHold = FleetDeckHold()
    private var signals: TerminationSignals?
    private var sessionTimer: Int?
    /// Pixels the renderer changed that no completed present has shown yet.
    private var unshownDamage = PixelRect.empty
    /// The earliest input not yet in a presented frame, and the one in the flip in flight.
    private var unshownInput: InputTrace?
    private var inFlightInput: InputTrace?
    private var contactsDown: Set<Int> = []
    /// What the deck was last told about the attract screen (nil: a visitor is here).
    var attractShownSince: Instant?
    private var wakeupTimer: Int?
    private var imagesToken: Int?
    private var preparedToken: Int?
    private var preparedCardID: String?
    /// Flags decisions inside the deck's cooldown; restarts with every visit.
    private var cooldown: DecisionCooldown
    /// The cards in the order the current visit sees them (`deckFile.order`, seeded per visit);
    /// a decision's position is its card's index here.
    private(set) var visitOrder: [Card]
    /// The deck's opening hours applied (nil: no schedule, always open); see KioskApp+Schedule.
    var hours: OpeningHours?
    var scheduleTimer: Int?
    /// Wall-clock steps (NTP after boot, `date -s`) make the schedule look again at once.
    var clockSteps: WallClockSteps?
    /// The staff menu (KioskApp+Staff): its hidden entry, the menu, its timer.
    var staffEntry = StaffEntry()
    var staffMenu = StaffMenu()
    var staffTimer: Int?
    /// The PIN's crypt(3) check runs here, off the loop (yescrypt takes tens of ms).
    var pinChecks: LoopDelivery<Bool>?
    /// The staff menu's calibration: the tap sequence on raw frames (nil until the first one).
    var calibration: CalibrationSequence?
    /// Blanked from the staff menu: the next touch lights the panel and decides nothing.
    var staffBlanked = false
    var staffSwallowed: Set<Int> = []
    /// The visible per-visit accessibility control, bottom-left (KioskApp+Access).
    var accessControl: AccessibilityControl
    /// Whether the current visit has had a mode of the control on (stored with each decision).
    var visitUsedMode = false
    /// Whether the current visitor has asked for speech (a read key, a held finger, the scan's
    /// read): the control then also reads its ringed switch and state as the keys move it.
    var visitListens = false
    /// One-switch scanning (`switch-key`; KioskApp+Access) and its long-press timer.
    var scanner = SwitchScanner()
    var scanTimer: Int?
    /// The speech worker, started by the first "read the card" key (its own thread).
    private var speech: Speech?
    private var speechToken: Int?
    /// The held-touch gesture that reads the card (a finger held still 2 s), and its timer.
    private var heldTouch = HeldTouch(slop: 10)
    private var heldTimer: Int?
    private(set) var stats: RunStats
    /// The signal that ended the run, if any.
    private(set) var stopSignal: Int32?

    /// What frames are drawn into, sized for the display's current mode.
    struct Surface {
        var frame: PixelBuffer
        var renderer: SceneRenderer
        var metrics: ScreenMetrics
        var scale: Double
    }

    init(config: KioskConfig, deck deckFile: DeckFile, display: Display, loop: EventLoop, processStart: Instant) {
        self.config = config
        self.loop = loop
        self.display = display
        self.deckFile = deckFile
        primaryDeck = deckFile
        kioskID = config.kioskID ?? KioskApp.hostName()
        stats = RunStats(processStart: processStart)
        surface = KioskApp.makeSurface(display: display, scale: config.scale)
        staffEntry = StaffEntry(rule: config.staffGesture, screen: surface.metrics.size)
        let now = MonotonicClock.now()
        visitOrder = KioskApp.visitOrder(deckFile)
        cooldown = DecisionCooldown(seconds: deckFile.cooldownSeconds)
        let languages = KioskApp.languageChoice(deckFile, config: config)
        self.languages = languages
        shownDeck = deckFile.localized(to: languages.current)
        deck = KioskApp.makeDeck(
            shownDeck, cards: visitOrder.map { $0.localized(to: languages.current) }, metrics: surface.metrics,
            buttons: config.showsButtons, at: now)
        accessControl = AccessibilityControl(
            screen: surface.metrics.size, pointsPerMillimetre: surface.metrics.pointsPerMillimetre,
            trailing: deckFile.layout == .list)
        accessControl.labels = AccessibilityControl.Labels(language: languages.current)
        session = VisitorSession(policy: config.sessionPolicy(deck: deckFile), now: now, newSessionID: RandomID.uuid)
        visits = VisitRecorder(
            kioskID: kioskID, deckID: deckFile.id, deckVersion: deckFile.version, deckCardCount: deckFile.cards.count)
        let health = health
        let fleet = FleetSettings(config: config).map {
            FleetSyncWorker(settings: $0, dataDirectory: config.dataDirectory) { health.heartbeat() }
        }
        self.fleet = fleet
        // A commit pokes the sync so new decisions go up at once (the writer never waits for it).
        store = DecisionStore(dataDirectory: config.dataDirectory, onStored: { _ in fleet?.poke() })
        let store = store
        health.storageFailing = { store.currentStatus.failing }
        health.update { $0.deckApplied = "\(deckFile.id)@\(deckFile.version)" }
        let millimetres: String =
            display.physicalSizeMM.map { "panel \(Int($0.width.rounded()))x\(Int($0.height.rounded())) mm, " } ?? ""
        Log.info(
            "kiosk: \(deckFile.summary) on \(display.outputName) (\(display.driverName)) "
                + "\(display.pixelWidth)x\(display.pixelHeight) px, \(jsonNumber(surface.scale, decimals: 3)) px/pt, "
                + millimetres
                + "rotation \(display.rotation.rawValue), data in \(config.dataDirectory), kiosk id '\(kioskID)'")
        if !config.buttons && config.publicMode {
            Log.warning(
                "config: 'buttons = off' ignored: a public kiosk always shows the stack's ✗ / ✓ / undo buttons "
                    + "(WCAG 2.5.7); set 'public = off' for a staff-only kiosk")
        }
    }

    // MARK: Set-up

    static func makeSurface(display: Display, scale: Double?) -> Surface {
        // The same geometry `render --panel-mm` draws with.
        let panel = PanelGeometry(
            pixelWidth: display.pixelWidth, pixelHeight: display.pixelHeight, millimetres: display.logicalSizeMM,
            scale: scale)
        return Surface(
            frame: PixelBuffer(width: display.pixelWidth, height: display.pixelHeight),
            renderer: SceneRenderer(
                pixelWidth: display.pixelWidth, pixelHeight: display.pixelHeight, scale: panel.scale,
                images: ImageCache(), preparer: ElementPreparer()),
            metrics: panel.metrics, scale: panel.scale)
    }

    /// A new visit's card order: `file.order` with a fresh random seed (logged, so the order
    /// can be reproduced with `VisitOrder.order(_:seed:)`).
    static func visitOrder(_ file: DeckFile) -> [Card] {
        guard file.order.shuffle else { return file.cards }
        let seed = RandomID.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let order = file.order.order(file.cards, seed: seed)
        Log.info("deck: visit order seed \(seed): \(order.map(\.id).joined(separator: " "))")
        return order
    }

    static func makeDeck(
        _ file: DeckFile, cards: [Card]? = nil, metrics: ScreenMetrics, buttons: Bool, at time: Instant
    ) -> any CardDeck {
        let cards = cards ?? file.cards
        switch file.layout {
        case .stack:
            return StackDeck(cards: cards, metrics: metrics, options: stackOptions(file, buttons: buttons))
        case .list:
            let seed = RandomID.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return ListDeck(
                cards: cards, metrics: metrics, title: file.title, attractText: file.attractText,
                emptyText: file.emptyText, randomSeed: seed,
                bottomInset: AccessibilityControl.bottomBand(pointsPerMillimetre: metrics.pointsPerMillimetre),
                deleteLabel: UIStrings.text(.delete, in: file.shownLanguage ?? file.language))
        }
    }

    /// The stack's words from `file` (already in the visitor's language) and whether it shows buttons.
    static func stackOptions(_ file: DeckFile, buttons: Bool) -> StackOptions {
        StackOptions(
            emptyText: file.emptyText, showButtons: buttons, leftLabel: file.leftLabel, rightLabel: file.rightLabel,
            attractText: file.attractText)
    }

    static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count) == 0 else { return "kiosk" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts input, hot reload, signals and the first frame. Failures of optional parts
    /// (no input device yet, no inotify) are logged; the kiosk still shows its deck.
    func start() throws(SystemCallError) {
        signals = try TerminationSignals(loop: loop, signals: [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2]) {
            [unowned self] signal in self.handleSignal(signal)
        }
        fleet?.start()
        var inputConfig = InputManager.Configuration(panel: panelPoints())
        inputConfig.explicitPaths = config.inputs
        inputConfig.rotation = display.rotation
        inputConfig.calibration = config.touchMatrix
        inputConfig.recorderWindow = KioskApp.flightRecorderWindow
        if config.staffPinHash != nil { inputConfig.chord = config.staffKeys }
        inputConfig.switchKey = config.switchKey
        scanner = SwitchScanner(stepping: .perPress, longPress: config.switchHold)
        if let key = config.switchKey {
            Log.info(
                "switch: \(key) steps through the choices, held \(jsonNumber(config.switchHold, decimals: 1)) s selects"
            )
        }
        FatalSignalRecorder.install(directory: config.dataDirectory)
        let manager = InputManager(loop: loop, configuration: inputConfig) { [unowned self] output in
            self.handleInput(output)
        }
        manager.onChord = { [unowned self] time in self.staffKeysPressed(at: time) }
        startStaff()
        do {
            try manager.start()
            input = manager
        } catch {
            Log.error("input: \(error) — touch and keys are off until restart")
        }
        // With a fleet the deck on screen is the fleet's: watch its `current` (the worker
        // replaces it by rename when a verified deck has arrived), even before the first one.
        var watchedPath = deckFile.path
        if fleet != nil {
            let managed = ManagedDecks(dataDirectory: config.dataDirectory)
            _ = mkdir(managed.root, 0o755)
            watchedPath = managed.deckPath
        }
        do {
            watcher = try DeckWatcher(path: watchedPath, current: deckFile, loop: loop) { [unowned self] file in
                self.deckArrived(file)
            }
        } catch {
            Log.warning("deck: cannot watch \(watchedPath) for changes (\(error)); restart to reload it")
        }
        display.onFrame = { [unowned self] t in self.drawFrame(at: t) }
        display.onFlip = { [unowned self] t in
            self.stats.flipCompleted(at: t, input: self.inFlightInput)
            self.inFlightInput = nil
            self.noteFlipForHeartbeat(at: t)
            if self.stats.flips == 1 {
                Log.info(
                    "kiosk: first frame on screen \(jsonNumber(t.seconds(since: self.stats.processStart) * 1000, decimals: 1)) ms after start"
                )
            }
        }
        display.onResize = { [unowned self] _ in self.displayResized() }
        display.onConnection = { [unowned self] connected in
            Log.info("display: \(connected ? "connected again, redrawing" : "disconnected, waiting for it")")
            if connected { self.redrawAll() }
        }
        let notifier = SystemdNotifier.fromEnvironment()
        // The pings run on this loop, so a hung loop stops them by itself; beyond that, flips
        // that keep timing out mean the display is stuck: let systemd restart us.
        var lostAtLastPing = display.lostFlipCount
        var stallRecorded = false
        notifier.scheduleWatchdog(on: loop) { [unowned self] in
            let lost = self.display.lostFlipCount - lostAtLastPing
            lostAtLastPing = self.display.lostFlipCount
            if lost >= 3 {
                Log.error("display: \(lost) page flips timed out since the last watchdog ping")
                if !stallRecorded {
                    self.saveFlightRecordings(reason: "fatal: display stuck, the watchdog restarts the kiosk")
                }
                stallRecorded = true
            }
            return lost < 3
        }
        watchImages()
        syncAttract(at: MonotonicClock.now())
        display.requestFrame()
        rescheduleSession()
        watchClockSteps()
        checkSchedule()
        _ = notifier.ready(status: deckFile.summary)
    }

    /// Product photos are decoded, and cards drawn, off the loop; when one is ready, the frame
    /// that showed its placeholder is drawn again.
    private func watchImages() {
        for token in [imagesToken, preparedToken].compactMap({ $0 }) { loop.remove(token) }
        (imagesToken, preparedToken) = (nil, nil)
        if let images = surface.renderer.images {
            imagesToken = loop.add(fd: images.readyFD) { [unowned self] _ in
                images.drainReady()
                self.display.requestFrame()
            }
        }
        if let preparer = surface.renderer.preparer {
            // Images drawn ahead of need wait for the next frame; one that replaces a stand-in
            // on screen asks for a frame now.
            preparedToken = loop.add(fd: preparer.readyFD) { [unowned self] _ in
                preparer.drainReady()
                if self.surface.renderer.isShowingStandIns { self.display.requestFrame() }
            }
        }
    }

    /// The panel's size in points, unturned (what the input maps device units onto).
    private func panelPoints() -> Size {
        Size(width: Double(display.panelWidth) / surface.scale, height: Double(display.panelHeight) / surface.scale)
    }

    // MARK: Running

    /// Runs until SIGTERM/SIGINT/SIGHUP, then tears down in order: input, hot reload, the
    /// display (drain the flip, restore the CRTC and the console), then waits for the store.
    func run() {
        loop.run()
        collectDecisions()
        session.endVisit(reason: .shutdown, at: MonotonicClock.now())
        recordVisits()
        input?.stop()
        watcher?.stop()
        display.shutdown()
        speech?.stop()
        if !store.flush(timeout: 10) {
            let s = store.currentStatus
            Log.error(
                "store: \(s.pending) decision(s) could not be written to \(store.databasePath) before exit"
                    + (s.lastError.map { ": \($0)" } ?? ""))
        }
        store.close()
        fleet?.stop()  // what it has not sent stays in SQLite for the next run
        FlightRecordingDump.waitForWrites(timeout: 5)
        stats.finish()
        reportStats()
        signals = nil
    }

    /// The stats line to the log and, with `--stats FILE`, the figures as JSON to the file
    /// (on SIGUSR2 and at exit; a small write into the page cache, no fsync).
    private func reportStats() {
        let rss = RunStats.peakRSSKilobytes()
        Log.info(stats.line(peakRSSKilobytes: rss, now: MonotonicClock.now()))
        if let path = config.statsPath {
            writeText(
                stats.json(
                    peakRSSKilobytes: rss,
                    more: display.flipIntervals.jsonFields + [
                        ("frame_callbacks", String(display.framesDelivered)),
                        ("frame_callbacks_with_nothing_to_show", String(display.framesWithNothingToShow)),
                        ("presents_refused", String(display.presentsRefused)),
                    ]) + "\n", to: path)
        }
    }

    private func handleSignal(_ signal: Int32) {
        switch signal {
        case SIGUSR1: saveScreenshot()
        case SIGUSR2:
            reportStats()
            saveFlightRecordings(reason: "SIGUSR2")
        default:
            Log.info("kiosk: \(TerminationSignals.name(signal)), exiting")
            stopSignal = signal
            loop.stop()
        }
    }

    func handleInput(_ output: InputManager.Output) {
        switch output {
        case .touch(let frame):
            noteTouchForHeartbeat(at: frame.time)
            if staffTake(frame) { return }
            if closedHoursTake(frame) { return }
            // The language keys are hit where they were drawn: large on the attract screen.
            let keysProminent = languageProminent
            let (sessionDeliver, effects) = session.handle(frame)
            let deliver = sessionDeliver.flatMap { languageFilter($0, prominent: keysProminent) }
            recordVisits()
            apply(effects, at: frame.time)
            syncAttract(at: frame.time)
            if let deliver, accessTake(deliver) {
                noteInput(at: deliver.time)
                display.requestFrame()
            } else if let deliver {
                noteHeldTouch(deliver)
                noteGestures(deliver)
                if deliver.contacts.allSatisfy({ $0.phase == .cancelled }) && !deliver.contacts.isEmpty {
                    deck.cancelTouches(at: deliver.time)
                } else {
                    deck.handle(deliver)
                }
                noteInput(at: deliver.time)
                display.requestFrame()
            }
        case .key(let key, let time):
            if staffTakeKey(key, at: time) { return }
            if closedHoursTakeKey(at: time) { return }
            let (deliverKey, effects) = session.handleKey(at: time)
            apply(effects, at: time)
            syncAttract(at: time)
            guard deliverKey else { break }
            recordVisits()
            // The accessibility control first: its key opens it, and while it is open it has every key.
            accessKey(languageKey(AccessKey(rawValue: key.rawValue) ?? .help), at: time)
            collectDecisions(method: .key)
            noteInput(at: time)
            display.requestFrame()
        case .switchKey(let pressed, let time):
            switchKey(pressed: pressed, at: time)
            noteInput(at: time)
        }
        collectDecisions()
        rescheduleSession()
    }

    /// An input with the kernel's timestamp `time` reached the model: the next presented frame
    /// is the first to show it (unless an earlier input is still waiting).
    private func noteInput(at time: Instant) {
        if unshownInput == nil { unshownInput = InputTrace(input: time, read: MonotonicClock.now()) }
    }

    /// Hands `text` to the speech worker in the visitor's language (queued; the loop never waits).
    /// The worker plays it on the config's ALSA device; without one it logs once and carries on.
    /// The visitor now listens (`visitListens`) until the next visit.
    func read(_ text: String) {
        visitListens = true
        let worker = speech ?? startSpeech()
        worker.say(text, language: languages.current, to: .alsa(device: config.speechDevice))
        Log.info("speech: reading \"\(text)\" (\(languages.current)) on '\(config.speechDevice)'")
    }

    /// A finger held still on the deck for `HeldTouch.holdSeconds` reads the card (no menu).
    private func noteHeldTouch(_ frame: TouchFrame) {
        if heldTouch.slop != surface.metrics.touchSlop { heldTouch = HeldTouch(slop: surface.metrics.touchSlop) }
        if let heldTimer { loop.cancelTimer(heldTimer) }
        heldTimer = nil
        guard let due = heldTouch.take(frame) else { return }
        heldTimer = loop.schedule(at: due) { [unowned self] in
            self.heldTimer = nil
            guard self.heldTouch.fire(at: MonotonicClock.now()), let deck = self.deck as? any AccessibleDeck else {
                return
            }
            Log.info("speech: finger held still \(jsonNumber(HeldTouch.holdSeconds, decimals: 0)) s, reading the card")
            self.read(deck.spokenText)
        }
    }

    /// The worker, and with `speech-privacy` the panel off while it speaks.
    private func startSpeech() -> Speech {
        let worker = Speech()
        speech = worker
        speechToken = SpeechPrivacy.watch(worker, loop: loop, display: display, enabled: config.speechPrivacy) {
            [unowned self] in self.redrawAll()
        }
        return worker
    }

    private func noteGestures(_ frame: TouchFrame) {
        for c in frame.contacts {
            switch c.phase {
            case .began:
                if contactsDown.isEmpty { stats.gestureBegan() }
                contactsDown.insert(c.id)
            case .moved: contactsDown.insert(c.id)
            case .ended, .cancelled: contactsDown.remove(c.id)
            }
        }
    }

    /// The display is ready for a frame for instant `t`: draw what changed and present it.
    private func drawFrame(at t: Instant) {
        let began = MonotonicClock.now()
        let cpuBegan = RunStats.threadCPUMilliseconds()
        let base =
            hours?.isClosed == true
            ? OpeningHours.closedScene(
                text: primaryDeck.localized(to: languages.current).schedule?.closedText ?? "",
                screen: surface.metrics.size)
            : InactivityWarning.overlay(
                composed(accessControl.overlay(scanned(deck.scene(at: t), at: t))), session.warning(at: t),
                text: shownDeck.warningText)
        let scene = staffOverlay(base)
        let damage = surface.renderer.render(scene, into: surface.frame)
        unshownDamage = unshownDamage.union(damage)
        if unshownDamage.isEmpty {
            // Nothing on screen changes: the input so far is shown (it changed nothing to see),
            // so the next frame's latency counts from the input that changes it.
            unshownInput = nil
        } else {
            if display.present(surface.frame, damage: unshownDamage) {
                unshownDamage = .empty
                inFlightInput = unshownInput.map {
                    InputTrace(input: $0.input, read: $0.read, drawBegan: began, issued: MonotonicClock.now())
                }
                unshownInput = nil
            }
            stats.frameDrawn(
                milliseconds: MonotonicClock.now().seconds(since: began) * 1000,
                cpuMilliseconds: RunStats.threadCPUMilliseconds() - cpuBegan)
        }
        collectDecisions()
        if scene.isAnimating || !unshownDamage.isEmpty {
            display.requestFrame()
        } else {
            scheduleWakeup()
            prepareNextCards(after: scene)
        }
    }

    /// While idle, draws what the deck says its next gesture will show into the renderer's
    /// cache (once per top card). Idle includes a finger resting on a list's row: its detail
    /// page is prepared then. When the deck lists nothing (that touch scrolled or swiped
    /// instead), what was prepared and never shown is discarded.
    private func prepareNextCards(after scene: Scene) {
        let elements = deck.elementsToPrepare(in: scene)
        guard let top = elements.first else {
            surface.renderer.discardPreparedAhead()
            preparedCardID = nil
            return
        }
        guard top.id != preparedCardID else { return }
        for e in elements { surface.renderer.prepare(e, background: scene.background) }
        preparedCardID = top.id
    }

    /// Nothing moves now; if the deck wants a frame later without input (the attract hint's
    /// next nudge), ask for one then. Otherwise nothing is scheduled and the loop sleeps.
    private func scheduleWakeup() {
        if let wakeupTimer { loop.cancelTimer(wakeupTimer) }
        wakeupTimer = nil
        let tick = session.warningTick(after: MonotonicClock.now())
        guard let at = [deck.nextWakeup, tick].compactMap({ $0 }).min() else { return }
        wakeupTimer = loop.schedule(at: at) { [unowned self] in
            self.wakeupTimer = nil
            self.display.requestFrame()
        }
    }

    /// Tells the deck whether the attract screen is up, when the session's phase changed.
    func syncAttract(at time: Instant) {
        let since = session.phase == .attract ? (session.attractSince ?? time) : nil
        guard since != attractShownSince else { return }
        attractShownSince = since
        deck.setAttract(since: since, at: time)
        display.requestFrame()
    }

    /// Stores decisions the deck completed; `method` is how they were given when the deck
    /// cannot tell (a key press reaches it through `perform`).
    func collectDecisions(method: InputMethod? = nil) {
        let decisions = deck.takeDecisions()
        guard !decisions.isEmpty else { return }
        let wall = WallClock.nowMilliseconds()
        let mono = MonotonicClock.now()
        for var d in decisions {
            if d.method == nil { d.method = method }
            session.noteActivity(at: d.time)
            recordVisits()
            visits.note(d)
            syncAttract(at: d.time)
            var record = DecisionRecord(
                d, kioskID: kioskID, sessionID: session.sessionID, deck: deckFile, wallNow: wall, monotonicNow: mono)
            record.tooFast = cooldown.isTooFast(d)
            record.language = languages.current
            record.accessibilityMode = visitUsedMode || config.accessibleMode
            let ticket = store.enqueue(record)
            Log.info(
                "decision: \(d.action.rawValue) card '\(d.cardID)' after \(jsonNumber(d.dwellSeconds, decimals: 2)) s"
                    + (record.tooFast ? " (inside the cooldown, flagged)" : "")
                    + (ticket == nil ? " — NOT queued (store full)" : ""))
        }
        session.deckCompleted = deck.isCompleted
        rescheduleSession()
    }

    /// Hands the session's visit events (visit started, ended, attract shown) to the store.
    private func recordVisits() {
        let events = session.takeVisitEvents()
        guard !events.isEmpty else { return }
        let wall = WallClock.nowMilliseconds()
        let mono = MonotonicClock.now()
        for event in events {
            let items = visits.record(event) { t in wall - (mono.nanoseconds - t.nanoseconds) / 1_000_000 }
            for item in items {
                switch item {
                case .decision(let d): store.enqueue(d)
                case .visit(let v): store.enqueue(visit: v)
                case .event(let e): store.enqueue(event: e)
                }
            }
        }
    }

    // MARK: Visitor sessions

    func rescheduleSession() {
        if let sessionTimer { loop.cancelTimer(sessionTimer) }
        sessionTimer = nil
        guard let deadline = session.nextDeadline else { return }
        sessionTimer = loop.schedule(at: deadline) { [unowned self] in
            self.sessionTimer = nil
            let now = MonotonicClock.now()
            self.apply(self.session.advance(to: now), at: now)
            self.recordVisits()
            self.syncAttract(at: now)
            self.rescheduleSession()
        }
    }

    func apply(_ effects: [VisitorSession.Effect], at time: Instant) {
        for effect in effects {
            switch effect {
            case .reset(let id):
                Log.info("session: idle, resetting for the next visitor (session \(id))")
                let fleetNext = fleetDeckHold.visitEnded()  // a fleet deck that waited for this visit
                if let ready = readyDeck {
                    readyDeck = nil
                    Log.info("schedule: the visit ended, switching to \(ready.summary)")
                    show(ready)
                } else {
                    startVisit(at: time)
                }
                if let next = fleetNext { deckChanged(next) }
                checkSchedule()  // a closing or a deck switch that waited for this visit
            case .warningShown(let resetAt):
                Log.info(
                    "session: idle, countdown shown (\(jsonNumber(resetAt.seconds(since: time), decimals: 1)) s to the reset)"
                )
                display.requestFrame()
            case .warningExtended(let count):
                Log.info(
                    "session: countdown extended by a touch or key (\(count) time\(count == 1 ? "" : "s") this visit)")
                display.requestFrame()
            case .discardVisit(let id):
                Log.info("session: visit \(id) timed out; its decisions are marked discarded (partialVisit: discard)")
                collectDecisions()
                store.discardVisit(sessionID: id)
            case .blank:
                Log.info("session: idle, switching the panel off")
                display.setPower(on: false)
            case .wake:
                Log.info("session: touch, switching the panel on")
                display.setPower(on: true)
                redrawAll()
            }
        }
    }

    /// The next visitor's deck: a fresh card order and cooldown.
    func startVisit(at time: Instant) {
        visitOrder = KioskApp.visitOrder(deckFile)
        cooldown = DecisionCooldown(seconds: deckFile.cooldownSeconds)
        resetAccessibility()  // before a rebuild, which carries the control's modes over
        if resetLanguageForNextVisitor() {
            rebuildDeck(at: time)
        } else {
            deck.reset(cards: visitOrder.map { $0.localized(to: languages.current) }, at: time)
        }
        display.requestFrame()
    }

    // MARK: Changes

    /// A changed deck file: a fleet deck waits while a visitor is mid-visit (the visit ends on
    /// the deck it began with, like a closing time); a local edit applies at once.
    func deckArrived(_ file: DeckFile) {
        guard fleet != nil else { return deckChanged(file) }
        let active = session.phase == .active
        if let now = fleetDeckHold.arrived(file, onScreen: primaryDeck, visitActive: active) {
            deckChanged(now)
        } else if active && fleetDeckHold.held == file {
            Log.info("deck: \(file.summary) arrived from the fleet; it replaces the deck when this visit ends")
        }
    }

    /// The primary deck file changed (hot reload, the staff menu's reload): its schedule may
    /// want another deck now; without a window deck on screen it is shown at once.
    func deckChanged(_ file: DeckFile) {
        Log.info("deck: reloaded \(file.summary)")
        primaryDeck = file
        if rotation.shown == nil {
            show(file)
        } else {
            checkSchedule()
        }
    }

    /// Puts `file` on screen: the visit in progress ends, the next one sees the new deck.
    func show(_ file: DeckFile) {
        let now = MonotonicClock.now()
        collectDecisions()
        session.endVisit(reason: .reset, at: now)
        recordVisits()
        visits.deckID = file.id
        visits.deckVersion = file.version
        visits.deckCardCount = file.cards.count
        visitOrder = KioskApp.visitOrder(file)
        cooldown = DecisionCooldown(seconds: file.cooldownSeconds)
        deckFile = file
        languages = KioskApp.languageChoice(file, config: config)
        accessControl = AccessibilityControl(
            screen: surface.metrics.size, pointsPerMillimetre: surface.metrics.pointsPerMillimetre,
            trailing: deckFile.layout == .list)
        rebuildDeck(at: now)
        attractShownSince = nil
        syncAttract(at: now)
        resetAccessibility()  // also the session policy for the new deck
        health.update { $0.deckApplied = "\(file.id)@\(file.version)" }
        rescheduleSession()
        checkSchedule()
        display.requestFrame()
    }

    /// The heartbeat's proof that frames reach the screen: the last flip's wall time and the
    /// frame rate, noted at most once a second (a lock and a clock read, nothing more).
    private func noteFlipForHeartbeat(at t: Instant) {
        guard fleet != nil else { return }
        if let last = lastFlipNoted, t.seconds(since: last) < 1 { return }
        lastFlipNoted = t
        let wall = WallClock.nowMilliseconds()
        let fps = Double(stats.framesPerSecond(at: t))
        health.update {
            $0.lastFlipMs = wall
            $0.framesPerSecond = fps
        }
    }

    private func noteTouchForHeartbeat(at t: Instant) {
        guard fleet != nil else { return }
        if let last = lastTouchNoted, t.seconds(since: last) < 1 { return }
        lastTouchNoted = t
        let wall = WallClock.nowMilliseconds()
        health.update { $0.lastTouchMs = wall }
    }

    private func displayResized() {
        collectDecisions()
        session.endVisit(reason: .reset, at: MonotonicClock.now())
        recordVisits()
        surface = KioskApp.makeSurface(display: display, scale: config.scale)
        staffEntry.screen = surface.metrics.size
        preparedCardID = nil
        watchImages()
        accessControl = AccessibilityControl(
            screen: surface.metrics.size, pointsPerMillimetre: surface.metrics.pointsPerMillimetre,
            trailing: deckFile.layout == .list)
        rebuildDeck(at: MonotonicClock.now())
        resetAccessibility()
        attractShownSince = nil
        syncAttract(at: MonotonicClock.now())
        input?.setDisplay(panel: panelPoints(), rotation: display.rotation)
        redrawAll()
    }

    func redrawAll() {
        surface.renderer.invalidate()
        unshownDamage = surface.frame.bounds
        display.requestFrame()
    }

    // MARK: Diagnostics

    /// SIGUSR1: the current frame as a PNG in the data directory, written off the loop thread.
    func saveScreenshot() {
        let copy = PixelBuffer(width: surface.frame.width, height: surface.frame.height)
        copy.pixels.copyMemory(from: surface.frame.pixels, byteCount: copy.stride * copy.height)
        let path = "\(config.dataDirectory)/screenshot-\(WallClock.nowMilliseconds()).png"
        BackgroundWork.run("screenshot", UncheckedBox(copy)) { box in
            do {
                try box.value.writePNG(to: path)
                Log.info("screenshot: saved \(path)")
            } catch {
                Log.error("screenshot: \(error) — is \(path) writable?")
            }
        }
    }

    private func writeText(_ text: String, to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            Log.error("stats: cannot write \(path): \(Errno.current) — check the directory exists and is writable")
            return
        }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        do { try FileIO.writeAll(fd: fd, bytes: bytes, detail: path) } catch { Log.error("stats: \(error)") }
    }
}
