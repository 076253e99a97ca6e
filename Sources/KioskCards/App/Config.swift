import CardModel
import Glibc
import KioskDeckFiles
import KioskDisplay
import KioskInput
import KioskSystem

/// Everything the operator can set for a kiosk: from `/etc/kioskcards/kiosk.conf`, then
/// command-line flags (flags win). Made by `KioskConfig.parse(arguments:readFile:)`; every key
/// is documented in `deploy/kiosk.conf.example`.
struct KioskConfig: Hashable, Sendable {
    static let defaultPath = "/etc/kioskcards/kiosk.conf"

    /// The config file that was read (nil: none; the default path may be absent).
    var configPath: String?
    /// The deck file (JSON); reloaded when it changes.
    var deckPath = "/etc/kioskcards/deck.json"
    /// Where decisions are stored (`decisions.sqlite3`), screenshots and recordings go.
    var dataDirectory = "/var/lib/kioskcards"
    /// Stored with every decision; nil: the host name.
    var kioskID: String?
    /// The language every visit starts in (docs/LANGUAGES.md); nil: the deck's `language`.
    var language: String?
    /// How the panel is turned (picture and touch together).
    /// nil: the connector's "panel orientation" property, else upright. An explicit 0
    /// overrides a panel orientation.
    var rotation: Rotation?
    /// libinput-style calibration matrix for the touchscreen (`KioskInput/TouchMapping.swift`);
    /// nil: udev's LIBINPUT_CALIBRATION_MATRIX when present, else identity.
    var touchMatrix: TouchMatrix?
    /// The panel named by `panel` (`PanelPreset`); it set `rotation` and `panelMillimetres`.
    var panel: PanelPreset?
    /// The panel's active area in millimetres as it scans out (unturned), overriding what its
    /// connector reports (many report nothing); nil: the connector's.
    var panelMillimetres: Size?
    /// Input device paths (`/dev/input/eventN` or `/dev/input/by-path/…`); empty: every
    /// touchscreen found.
    var inputs: [String] = []
    /// DRM device (`/dev/dri/card0`); nil: the first with a connected display.
    var drmDevice: String?
    /// Framebuffer device (`/dev/fb0`) to draw on instead of DRM; nil: DRM (fbdev only when
    /// there is no DRM device at all).
    var fbdevDevice: String?
    /// Connector name (`HDMI-A-1`, `DSI-1`); nil: the first connected one.
    var connector: String?
    /// Display mode; nil: the connector's preferred mode.
    var mode: ModeRequest?
    /// The scanout's pixel format; nil: the driver's preferred depth (XRGB8888 on a Pi).
    var pixelFormat: PixelFormat?
    /// Seconds without a touch before the deck resets for the next visitor; nil: the deck's
    /// `idleTimeout`, else 60.
    var idleTimeout: Double?
    /// Seconds without a touch before the panel is switched off; nil: never.
    var blankTimeout: Double?
    /// Points-to-pixels factor; nil: from the panel's physical size.
    var scale: Double?
    /// On-screen buttons for the accessible actions (remove card, undo).
    var buttons = true
    /// A kiosk the public uses (the default). There the stack's ✗ / ✓ / undo buttons are
    /// always shown, whatever `buttons` says (never swipe-only in public; WCAG 2.5.7).
    var publicMode = true
    /// The ALSA PCM device speech plays on ("default": the system's default output).
    var speechDevice = "default"
    /// Privacy (EN 301 549 5.1.3.9): the panel is switched off while speech plays.
    var speechPrivacy = false
    /// Whether the stack shows its buttons: always in public mode.
    var showsButtons: Bool { buttons || publicMode }
    /// Where the run figures go as JSON on SIGUSR2 and at exit (the stats line goes to the log); nil: off.
    var statsPath: String?

    /// The fleet's central PostgreSQL (a `postgresql://` URL or conninfo; docs/FLEET.md);
    /// nil: no fleet, the kiosk runs on its own.
    var fleetURL: String?
    /// A file (mode 0600) holding the kiosk role's password, from `fleet add-kiosk --credentials`.
    var fleetCredentials: String?
    /// Seconds between heartbeats to the fleet server.
    var fleetHeartbeat = 60.0
    /// Seconds between looks at the fleet's deck assignment (jittered; LISTEN/NOTIFY is sooner).
    var fleetDeckPoll = 60.0
    /// `fleet-tls = insecure`: the kiosk may talk to a fleet server it does not verify.
    var fleetTLSInsecure = false
    /// `fleet-screenshot`: whether the kiosk answers `fleet screenshot` (default on: what the
    /// panel shows is public, no PIN pad is ever in it, and the fleet has every decision already).
    var fleetScreenshot = true
    /// `fleet-screenshot-interval`: the least time between two screenshots from afar.
    var fleetScreenshotInterval = 10.0
    /// Seconds of countdown before the idle reset; nil: the deck's `warning`, else 10 s.
    var warningSeconds: Double?
    /// The staff menu's PIN, hashed (`KioskCards set-pin`); nil: the staff menu is off.
    var staffPinHash: String?
    /// The hidden corner gesture into the staff menu (`staff-corner`, `staff-taps`, `staff-hold`).
    var staffGesture = StaffEntry.Rule()
    /// The key combination into the staff menu on any keyboard (`staff-keys`); nil: off.
    var staffKeys: KeyChord? = KioskConfig.defaultStaffKeys
    static let defaultStaffKeys = try? KeyChord.parse("ctrl+alt+s").get()
    /// The one-switch scanning key (`switch-key`); nil: off (the default).
    var switchKey: SwitchKey?
    /// Seconds the switch is held to select (`switch-hold`); a shorter press steps.
    var switchHold = 0.8
    /// The accessible mode (the accessibility issue's switch): a warning of at least 20 s.
    var accessibleMode = false

    static let defaultIdleTimeout = 60.0
    static let defaultWarningSeconds = 10.0

    /// The visitor-session policy in effect for `deck`.
    func sessionPolicy(deck: DeckFile) -> VisitorSession.Policy {
        let policy = VisitorSession.Policy(
            idleTimeout: effectiveIdleTimeout(deck: deck), blankTimeout: blankTimeout,
            warningSeconds: warningSeconds ?? deck.warningSeconds ?? Self.defaultWarningSeconds,
            partialVisit: deck.partialVisit)
        return accessibleMode ? policy.accessible() : policy
    }

    /// The idle timeout in effect for `deck`: the config's, else the deck's, else 60 s.
    func effectiveIdleTimeout(deck: DeckFile?) -> Double {
        idleTimeout ?? deck?.idleTimeoutSeconds ?? Self.defaultIdleTimeout
    }
}

/// A bad config key, flag or value: where it came from, what is wrong, what is accepted.
struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// "kiosk.conf:12" or "--rotation".
    var source: String
    var message: String

    var description: String { "\(source): \(message)" }
}

extension KioskConfig {
    /// What the configuration says about the kiosk's rules (`Kiosk`).
    var kioskSettings: Kiosk.Settings {
        Kiosk.Settings(
            showsButtons: showsButtons, scansSwitch: switchKey != nil, switchHold: switchHold,
            staffEnabled: staffPinHash != nil, staffGesture: staffGesture, accessibleMode: accessibleMode,
            configuredLanguage: language, fleetDecks: fleetURL != nil)
    }

    /// `file` as the kiosk's rules take it, with this configuration's session policy.
    func kioskDeck(_ file: DeckFile) -> KioskDeck { file.kioskDeck(policy: sessionPolicy(deck: file)) }
}

extension KioskConfig {
    /// The host's name: the kiosk id when kiosk.conf names none.
    static func hostName() -> String {
        var buf = [CChar](repeating: 0, count: 256)
        guard gethostname(&buf, buf.count) == 0 else { return "kiosk" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The input's configuration for a panel of `panel` points turned by `rotation`: the
    /// configured devices, calibration, staff keys (with a PIN) and switch.
    func inputConfiguration(panel: Size, rotation: Rotation, recorderWindow: Double) -> InputManager.Configuration {
        var c = InputManager.Configuration(panel: panel)
        c.explicitPaths = inputs
        c.rotation = rotation
        c.calibration = touchMatrix
        c.recorderWindow = recorderWindow
        if staffPinHash != nil { c.chord = staffKeys }
        c.switchKey = switchKey
        return c
    }

    /// The start's log lines: what runs where, and the settings that change what a visitor can do.
    func logStart(deck: DeckFile, display: Display, scale: Double, kioskID: String) {
        let millimetres: String =
            display.physicalSizeMM.map { "panel \(Int($0.width.rounded()))x\(Int($0.height.rounded())) mm, " } ?? ""
        Log.info(
            "kiosk: \(deck.summary) on \(display.outputName) (\(display.driverName)) "
                + "\(display.pixelWidth)x\(display.pixelHeight) px, \(jsonNumber(scale, decimals: 3)) px/pt, "
                + millimetres
                + "rotation \(display.rotation.rawValue), data in \(dataDirectory), kiosk id '\(kioskID)'")
        if !buttons && publicMode {
            Log.warning(
                "config: 'buttons = off' ignored: a public kiosk always shows the stack's ✗ / ✓ / undo buttons "
                    + "(WCAG 2.5.7); set 'public = off' for a staff-only kiosk")
        }
        if let key = switchKey {
            Log.info("switch: \(key) steps through the choices, held \(jsonNumber(switchHold, decimals: 1)) s selects")
        }
        if let keys = staffKeys, staffPinHash != nil { Log.info("staff: \(keys) on a keyboard opens the menu") }
    }
}
