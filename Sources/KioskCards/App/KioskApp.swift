import CardModel
import Glibc
import KioskDeckFiles
import KioskDisplay
import KioskInput
import KioskRender
import KioskSpeech
import KioskStore
import KioskSystem

/// The running kiosk: the shell around `Kiosk`, the kiosk's rules. One `poll()` loop feeds it
/// touches, keys, time and deck files; `perform` carries out what it decides (store a
/// decision, switch the panel, speak, read a deck, check a PIN); one timer wakes it at its
/// deadline. A frame draws its scene (`Kiosk.scene`) where the display asks for one.
///
/// Flow per frame: `Display.onFrame(t)` → `kiosk.scene(at: t)` → `SceneRenderer.takeIn` (the
/// damage) → `Display.present` (the renderer composes the region the back buffer needs band by
/// band in ordinary memory, each band copied into it; page flip) → the flip event
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
    let kioskID: String
    /// The kiosk's rules: the visit, the deck, the layers on screen.
    private(set) var kiosk: Kiosk
    private var visits: VisitRecorder
    private(set) var surface: KioskSurface
    private(set) var input: InputManager?
    /// Off-loop work whose answers come back on the loop: deck files read, PINs checked.
    private var workers: Workers?
    /// The one timer, at `kiosk.nextDeadline`.
    private var timer: Int?
    /// The earliest input not yet in a presented frame, and the one in the flip in flight.
    private var unshownInput: InputTrace?
    private var inFlightInput: InputTrace?
    /// The staff menu's calibration on the raw device frames.
    private var calibration: StaffCalibration?
    /// The speech worker, started by the first text to read (its own thread).
    private var speech: Speech?
    private(set) var stats: RunStats
    /// The signal that ended the run, if any.
    private(set) var stopSignal: Int32?
    /// What the loop holds for the kiosk: signals, the deck watcher, tokens, clock steps, notes.
    private var held = Held()

    struct Workers {
        var decks: LoopDelivery<(path: String?, result: Result<DeckFile, DeckProblems>)>
        var pins: LoopDelivery<Bool>
    }

    struct Held {
        var signals: TerminationSignals?
        var watcher: DeckWatcher?
        var clockSteps: WallClockSteps?
        var tokens: [Int] = []
        var preparedCardID: String?
        /// The deck file the kiosk started with (the watcher reports only a change from it).
        var startDeck: DeckFile?
    }

    init(config: KioskConfig, deck deckFile: DeckFile, display: Display, loop: EventLoop, processStart: Instant) {
        self.config = config
        self.loop = loop
        self.display = display
        kioskID = config.kioskID ?? KioskConfig.hostName()
        held.startDeck = deckFile
        stats = RunStats(processStart: processStart)
        surface = KioskSurface(display: display, scale: config.scale)
        kiosk = Kiosk(
            deck: config.kioskDeck(deckFile), metrics: surface.metrics, settings: config.kioskSettings,
            seed: RandomID.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, at: MonotonicClock.now(),
            newSessionID: RandomID.uuid)
        visits = VisitRecorder(
            kioskID: kioskID, deckID: deckFile.id, deckVersion: deckFile.version, deckCardCount: deckFile.cards.count)
        let health = health
        let fleet = FleetSettings(config: config).map {
            FleetSyncWorker(settings: $0, dataDirectory: config.dataDirectory, screenshots: true) { health.heartbeat() }
        }
        self.fleet = fleet
        // A commit pokes the sync so new decisions go up at once (the writer never waits for it).
        store = DecisionStore(dataDirectory: config.dataDirectory, onStored: { _ in fleet?.poke() })
        let store = store
        health.storageFailing = { store.currentStatus.failing }
        health.update { $0.deckApplied = "\(deckFile.id)@\(deckFile.version)" }
        config.logStart(deck: deckFile, display: display, scale: surface.scale, kioskID: kioskID)
    }

    /// Starts input, hot reload, signals and the first frame. Failures of optional parts
    /// (no input device yet, no inotify) are logged; the kiosk still shows its deck.
    func start() throws(SystemCallError) {
        held.signals = try TerminationSignals(loop: loop, signals: [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2]) {
            [unowned self] signal in self.handleSignal(signal)
        }
        workers = Workers(
            decks: LoopDelivery(loop: loop, what: "deck read") { [unowned self] done in self.deckRead(done) },
            pins: LoopDelivery(loop: loop, what: "staff PIN") { [unowned self] correct in
                self.feed(.pinChecked(correct: correct))
            })
        PanelScreenshots.attach(self)
        fleet?.start()
        let inputConfig = config.inputConfiguration(
            panel: panelPoints(), rotation: display.rotation, recorderWindow: KioskApp.flightRecorderWindow)
        FatalSignalRecorder.install(directory: config.dataDirectory)
        let manager = InputManager(loop: loop, configuration: inputConfig) { [unowned self] output in
            self.handleInput(output)
        }
        manager.onChord = { [unowned self] _ in self.feed(.staffKeys) }
        do {
            try manager.start()
            input = manager
        } catch {
            Log.error("input: \(error) — touch and keys are off until restart")
        }
        watchDeck()
        display.onFrame = { [unowned self] t in self.drawFrame(at: t) }
        display.onFlip = { [unowned self] t in self.flipped(at: t) }
        display.onResize = { [unowned self] _ in self.displayResized() }
        display.onConnection = { [unowned self] connected in
            Log.info("display: \(connected ? "connected again, redrawing" : "disconnected, waiting for it")")
            if connected { self.redrawAll() }
        }
        let notifier = SystemdNotifier.fromEnvironment()
        notifier.watch(display, on: loop) { [unowned self] in
            self.saveFlightRecordings(reason: "fatal: display stuck, the watchdog restarts the kiosk")
        }
        watchImages()
        held.clockSteps = ScheduleClock.watchSteps(loop: loop) { [unowned self] in self.lookAtSchedule() }
        feed(.tick)
        lookAtSchedule()
        _ = notifier.ready(status: kiosk.onScreen.summary)
    }

    // MARK: The core

    /// Gives `input` to the kiosk's rules now and performs what they decide.
    func feed(_ input: KioskInput, at time: Instant = MonotonicClock.now()) {
        perform(kiosk.handle(input, at: time))
        rescheduleTimer()
        display.requestFrame()
    }

    func handleInput(_ output: InputManager.Output) {
        switch output {
        case .touch(let frame):
            if fleet != nil { health.noteTouch(at: frame.time) }
            feed(.touch(frame), at: frame.time)
        case .key(let key, let time): feed(.key(AccessKey(rawValue: key.rawValue) ?? .help), at: time)
        case .switchKey(let pressed, let time): feed(.switchKey(pressed: pressed), at: time)
        }
    }

    /// Carries out the rules' effects, in order.
    private func perform(_ effects: [KioskEffect]) {
        for effect in effects {
            switch effect {
            case .log(.info, let text): Log.info(text)
            case .log(.warning, let text): Log.warning(text)
            case .log(.error, let text): Log.error(text)
            case .decision(let d): storeDecision(d)
            case .visit(let event):
                let wall = WallClock.nowMilliseconds()
                let mono = MonotonicClock.now()
                for item in visits.record(event, wallMs: { wall - (mono.nanoseconds - $0.nanoseconds) / 1_000_000 }) {
                    store.enqueue(item: item)
                }
            case .discardVisit(let id): store.discardVisit(sessionID: id)
            case .deckShown(let deck):
                (visits.deckID, visits.deckVersion, visits.deckCardCount) = (deck.id, deck.version, deck.cards.count)
                health.update { $0.deckApplied = deck.reference }
            case .power(let on): display.setPower(on: on)
            case .redrawAll: redrawAll()
            case .inputShown(let time):
                if unshownInput == nil { unshownInput = InputTrace(input: time, read: MonotonicClock.now()) }
            case .gestureBegan: stats.gestureBegan()
            case .speak(let text, let language): say(text, in: language)
            case .checkPIN(let pin):
                // crypt(3) with yescrypt takes tens of ms: off the loop.
                guard let hash = config.staffPinHash, let pins = workers?.pins else {
                    perform(kiosk.handle(.pinChecked(correct: false), at: MonotonicClock.now()))
                    continue
                }
                pins.run("staff-pin") { StaffPin.matches(pin, storedHash: hash) }
            case .lookAtSchedule: lookAtSchedule()
            case .loadDeck(let path): readDeck(path)
            case .reloadDecks(let window):
                readDeck(nil)
                if let window {
                    Log.info("schedule: reading the window's deck \(window) again")
                    readDeck(window)
                }
            case .screenshot: surface.saveScreenshot(in: config.dataDirectory)
            case .calibration(true): startCalibration()
            case .calibration(false): calibration?.stop()
            }
        }
    }

    /// One timer, at the rules' next deadline.
    private func rescheduleTimer() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        guard let at = kiosk.nextDeadline(after: MonotonicClock.now()) else { return }
        timer = loop.schedule(at: at) { [unowned self] in
            self.timer = nil
            self.feed(.tick)
        }
    }

    private func storeDecision(_ k: KioskDecision) {
        let d = k.decision
        visits.note(d)
        let record = DecisionRecord(
            k, kioskID: kioskID, wallNow: WallClock.nowMilliseconds(), monotonicNow: MonotonicClock.now())
        let ticket = store.enqueue(record)
        Log.info(
            "decision: \(d.action.rawValue) card '\(d.cardID)' after \(jsonNumber(d.dwellSeconds, decimals: 2)) s"
                + (record.tooFast ? " (inside the cooldown, flagged)" : "")
                + (ticket == nil ? " — NOT queued (store full)" : ""))
    }

    // MARK: Frames

    /// The display is ready for a frame for instant `t`: draw what changed and present it (tests call it too).
    func drawFrame(at t: Instant) {
        let began = MonotonicClock.now()
        let cpuBegan = RunStats.threadCPUMilliseconds()
        let scene = kiosk.scene(at: t, staffInfo: kiosk.showsStaffInfo ? staffInfo() : [])
        let damage = surface.renderer.takeIn(scene)
        if damage.isEmpty && display.unshownDamage.isEmpty {
            // Nothing on screen changes: the input so far is shown (it changed nothing to see),
            // so the next frame's latency counts from the input that changes it.
            unshownInput = nil
        } else {
            if display.present(damage: damage, compose: surface.compose) {
                inFlightInput = unshownInput.map {
                    InputTrace(input: $0.input, read: $0.read, drawBegan: began, issued: MonotonicClock.now())
                }
                unshownInput = nil
            }
            stats.frameDrawn(
                milliseconds: MonotonicClock.now().seconds(since: began) * 1000,
                cpuMilliseconds: RunStats.threadCPUMilliseconds() - cpuBegan)
        }
        if scene.isAnimating || !display.unshownDamage.isEmpty {
            display.requestFrame()
        } else {
            rescheduleTimer()
            prepareNextCards(after: scene)
        }
    }

    private func flipped(at t: Instant) {
        stats.flipCompleted(at: t, input: inFlightInput)
        if fleet != nil { health.noteFlip(at: t, input: inFlightInput?.input) { Double(stats.framesPerSecond(at: t)) } }
        inFlightInput = nil
    }

    /// While idle, draws what the deck says its next gesture will show into the renderer's
    /// cache (once per top card). What was prepared and never shown is discarded when the deck
    /// lists nothing (that touch scrolled or swiped instead).
    private func prepareNextCards(after scene: Scene) {
        let elements = kiosk.deck.elementsToPrepare(in: scene)
        guard let top = elements.first else {
            surface.renderer.discardPreparedAhead()
            held.preparedCardID = nil
            return
        }
        guard top.id != held.preparedCardID else { return }
        for e in elements { surface.renderer.prepare(e, background: scene.background) }
        held.preparedCardID = top.id
    }

    func redrawAll() {
        surface.renderer.invalidate()
        display.damageAll()
        display.requestFrame()
    }

    private func displayResized() {
        surface = KioskSurface(display: display, scale: config.scale)
        held.preparedCardID = nil
        watchImages()
        feed(.resize(surface.metrics))
        input?.setDisplay(panel: panelPoints(), rotation: display.rotation)
        redrawAll()
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
        PanelScreenshots.detach(self)  // a screenshot from afar waiting for the loop is refused now
        perform(kiosk.handle(.shutdown, at: MonotonicClock.now()))
        input?.stop()
        held.watcher?.stop()
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
        held.signals = nil
    }

    private func handleSignal(_ signal: Int32) {
        switch signal {
        case SIGUSR1: surface.saveScreenshot(in: config.dataDirectory)
        case SIGUSR2:
            reportStats()
            saveFlightRecordings(reason: "SIGUSR2")
        default:
            Log.info("kiosk: \(TerminationSignals.name(signal)), exiting")
            stopSignal = signal
            loop.stop()
        }
    }
}

// MARK: What the loop watches

extension KioskApp {
    /// Seconds of input kept per touch device (bounded by `FlightRecorder`'s default capacity).
    static let flightRecorderWindow = 180.0

    /// The deck file on disk: reloaded when it changes. With a fleet the deck on screen is the
    /// fleet's: its `current` (the worker replaces it by rename when a verified deck arrived).
    private func watchDeck() {
        var path = kiosk.primary.path
        if fleet != nil {
            let managed = ManagedDecks(dataDirectory: config.dataDirectory)
            _ = mkdir(managed.root, 0o755)
            path = managed.deckPath
        }
        do {
            held.watcher = try DeckWatcher(path: path, current: held.startDeck, loop: loop) { [unowned self] file in
                self.feed(.deckArrived(self.config.kioskDeck(file), fromFleet: self.fleet != nil))
            }
        } catch {
            Log.warning("deck: cannot watch \(path) for changes (\(error)); restart to reload it")
        }
    }

    /// Reads a deck file off the loop: a window's (`path`), or the kiosk's own (nil).
    private func readDeck(_ path: String?) {
        let file = path ?? kiosk.primary.path
        workers?.decks.run("deck-load") { (path, DeckLoader.load(path: file)) }
    }

    private func deckRead(_ done: (path: String?, result: Result<DeckFile, DeckProblems>)) {
        switch (done.path, done.result) {
        case (nil, .success(let file)): feed(.primaryDeckChanged(config.kioskDeck(file)))
        case (let path?, .success(let file)): feed(.windowDeckLoaded(path: path, deck: config.kioskDeck(file)))
        case (nil, .failure(let problems)):
            Log.error("staff: the deck file has problems, kept the old one\n\(problems)")
        case (_?, .failure(let problems)):
            Log.error("schedule: the window's deck cannot be shown, kept \(kiosk.onScreen.summary)\n\(problems)")
        }
    }

    /// The opening hours and the deck's window now (`ScheduleClock`), for the rules.
    func lookAtSchedule() {
        let now = MonotonicClock.now()
        perform(kiosk.handle(ScheduleClock.look(at: kiosk.primary.schedule, now: now), at: now))
        if fleet != nil {
            let closed = ScheduleClock.closedUntil(kiosk.primary.schedule)
            health.noteSchedule(closed: closed.closed, opensAtMs: closed.opensAtMs)
        }
        rescheduleTimer()
        display.requestFrame()
    }

    private func watchImages() {
        for token in held.tokens { loop.remove(token) }
        held.tokens = surface.watch(on: loop) { [unowned self] in self.display.requestFrame() }
    }

    /// Hands `text` to the speech worker (queued; the loop never waits), on the config's ALSA
    /// device; with `speech-privacy` the panel is off while it speaks.
    private func say(_ text: String, in language: String) {
        let worker =
            speech
            ?? SpeechPrivacy.startWorker(loop: loop, display: display, enabled: config.speechPrivacy) {
                [unowned self] in self.redrawAll()
            }
        speech = worker
        worker.say(text, language: language, to: .alsa(device: config.speechDevice))
        Log.info("speech: reading \"\(text)\" (\(language)) on '\(config.speechDevice)'")
    }

    private func staffInfo() -> [String] {
        StaffFacts.lines(
            kioskID: kioskID, deck: kiosk.onScreen, store: store.currentStatus,
            uptimeSeconds: Int(MonotonicClock.now().seconds(since: stats.processStart)),
            fleet: fleet.map { ($0.currentState, $0.sent) }, language: kiosk.staffMenu.language)
    }
}

// MARK: Staff calibration and diagnostics

extension KioskApp {
    /// The calibration from the staff menu (`StaffCalibration`), its progress fed to the rules.
    private func startCalibration() {
        guard let input else { return Log.warning("staff: calibration needs a touchscreen; input is off") }
        let run = StaffCalibration(
            input: input, screen: surface.metrics.size, configPath: config.configPath,
            language: kiosk.staffMenu.language
        ) {
            [unowned self] progress, time in
            if self.kiosk.staffMenu.page != .calibrate {
                self.calibration?.stop()  // the menu closed (idle, Escape) in the middle
            } else {
                self.feed(progress, at: time)
            }
        }
        calibration = run
        run.start(at: MonotonicClock.now())
    }

    /// SIGUSR2 and a stuck display: the input flight recorder's last minutes as evemu files.
    @discardableResult
    func saveFlightRecordings(reason: String) -> [String] {
        Diagnostics.saveFlightRecordings(
            input, reason: reason, config: config, kioskID: kioskID, display: display, scale: surface.scale,
            deckPath: kiosk.onScreen.path)
    }

    private func reportStats() { Diagnostics.reportStats(stats, display: display, to: config.statsPath) }
}
