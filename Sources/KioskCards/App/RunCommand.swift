import CardModel
import Glibc
import KioskDeckFiles
import KioskDisplay
import KioskRender
import KioskSystem

/// `KioskCards run [flags]`: the kiosk itself (see `KioskConfig.helpText` for the flags).
/// Exit status: 0 after SIGTERM/SIGINT, 1 when the display cannot be used, 2 for bad
/// configuration or an invalid deck file.
func runKioskCommand(arguments: [String], processStart: Instant) -> Int32 {
    // Before any thread starts: one malloc arena, card images returned to the system when evicted.
    ProcessMemory.setUpForKiosk()
    let config: KioskConfig
    switch KioskConfig.resolve(arguments: arguments) {
    case .success(let c): config = c
    case .failure(let status): return status.code
    }
    // fontconfig loads its configuration on a thread of its own while the deck is read and the
    // panel opened; the first thread to draw text takes the fonts (`FontWarmUp`).
    FontWarmUp.start(pixelsPerPoint: nil)
    let deck: DeckFile
    switch config.bootDeck() {
    case .success(let d): deck = d
    case .failure(let problems):
        Log.error("KioskCards: the deck file \(config.deckPath) cannot be used:\n\(problems)")
        Log.error("Fix the problems above (KioskCards check-deck \(config.deckPath) lists them) and start again.")
        return 2
    }
    let loop = EventLoop()
    var stop: Int32?
    let display: Display
    do {
        // Until the app's own handlers are installed, a SIGTERM while waiting for a panel ends the wait.
        let early = try TerminationSignals(loop: loop) { stop = $0 }
        guard
            let d = try Display.waitingForConnection(
                options: config.displayOptions, loop: loop, keepWaiting: { stop == nil })
        else {
            Log.info("kiosk: \(TerminationSignals.name(stop ?? SIGTERM)) while waiting for a display, exiting")
            return 0
        }
        display = d
        _ = early
    } catch let error as DisplayError {
        Log.error("display: \(error)")
        return 1
    } catch {
        Log.error("kiosk: \(error)")
        return 1
    }
    let app = KioskApp(config: config, deck: deck, display: display, loop: loop, processStart: processStart)
    do {
        try app.start()
    } catch {
        Log.error("kiosk: \(error)")
        display.shutdown()
        return 1
    }
    app.run()
    return 0
}

extension KioskConfig {
    /// The deck the kiosk boots with, read from local files only (it never waits for the
    /// network): with a fleet-url, the fleet's last good deck (`ManagedDecks.current`) when
    /// there is one and it loads; otherwise the configured `deck`.
    func bootDeck() -> Result<DeckFile, DeckProblems> {
        if fleetURL != nil {
            let managed = ManagedDecks(dataDirectory: dataDirectory)
            if let local = managed.bootDeck() {
                Log.info("deck: booting the fleet's last good deck \(managed.deckPath): \(local.summary)")
                return .success(local)
            }
            if let current = managed.current() {
                Log.warning("deck: the fleet deck \(current) in \(managed.root) does not load; booting \(deckPath)")
            }
        }
        return DeckLoader.load(path: deckPath)
    }

    /// The display flags of this configuration.
    var displayOptions: DisplayOptions {
        DisplayOptions(
            drmPath: drmDevice, connector: connector,
            mode: mode,
            rotation: rotation, fbdevPath: fbdevDevice, physicalSizeMM: panelMillimetres, pixelFormat: pixelFormat)
    }
}
