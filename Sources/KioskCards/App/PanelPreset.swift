import CardModel
import KioskSystem

/// A panel kiosks are built with, named once (`panel = …` in kiosk.conf, `render --panel`,
/// `scripts/run.sh --panel`): its pixels and millimetres as it scans out (unturned, as its
/// EDID or datasheet gives them) and how it is mounted. The rotation turns the picture and the
/// touches together (`InputManager` maps the touchscreen's own axes through it), so a
/// portrait panel mounted landscape needs no calibration matrix.
struct PanelPreset: Hashable, Sendable {
    /// The name in kiosk.conf: `touch-display-2-7-landscape`.
    var name: String
    /// What it is, for `--help` and the docs.
    var summary: String
    /// The panel's native pixel size (its mode before any turn).
    var pixelWidth: Int
    var pixelHeight: Int
    /// The active area in millimetres, in the same (native) orientation.
    var millimetres: Size
    /// How the panel is mounted: the picture and the touches turn together.
    var rotation: Rotation
    /// What Raspberry Pi OS needs in /boot/firmware/config.txt for it (docs/OPERATIONS.md).
    var configTxt: String

    /// The panel as the visitor sees it: pixels and millimetres turned by `rotation`.
    var logicalPixels: (width: Int, height: Int) {
        rotation == .deg90 || rotation == .deg270 ? (pixelHeight, pixelWidth) : (pixelWidth, pixelHeight)
    }
    var logicalMillimetres: Size { rotation.logicalSize(physical: millimetres) }

    /// The same panel mounted the other way (portrait ↔ landscape): a quarter turn more.
    var otherOrientation: PanelPreset {
        var p = self
        p.rotation = Rotation(degrees: rotation.rawValue + 90) ?? .deg0
        return p
    }

    /// Every preset, a native and a turned mounting of each panel.
    static let all: [PanelPreset] = {
        let td2 = "dtoverlay=vc4-kms-dsi-ili9881-"
        let td2Note = " (found by display_auto_detect=1; no rotation= on the overlay: KioskCards turns it)"
        let panels: [(String, String, Int, Int, Size, String, String)] = [
            (
                "touch-display-2-7", "Raspberry Pi Touch Display 2, 7\" (DSI)", 720, 1280,
                Size(width: 88, height: 155), td2 + "7inch" + td2Note, "portrait"
            ),
            (
                "touch-display-2-5", "Raspberry Pi Touch Display 2, 5\" (DSI)", 720, 1280,
                Size(width: 62, height: 110), td2 + "5inch" + td2Note, "portrait"
            ),
            (
                "pi-7inch", "Raspberry Pi Touch Display, the original 7\" (DSI)", 800, 480,
                Size(width: 154.08, height: 85.92), "dtoverlay=vc4-kms-dsi-7inch (found by display_auto_detect=1)",
                "landscape"
            ),
            (
                "hdmi-10inch", "10.1\" HDMI panel with USB touch", 1280, 800, Size(width: 216.96, height: 135.6),
                "dtoverlay=vc4-kms-v3d (the default); the mode comes from the panel's EDID", "landscape"
            ),
            (
                "hdmi-15inch", "15.6\" HDMI panel with USB touch", 1920, 1080, Size(width: 344.16, height: 193.59),
                "dtoverlay=vc4-kms-v3d (the default); the mode comes from the panel's EDID", "landscape"
            ),
        ]
        var presets: [PanelPreset] = []
        for (name, summary, w, h, mm, txt, native) in panels {
            let upright = PanelPreset(
                name: name, summary: summary + ", " + native, pixelWidth: w, pixelHeight: h, millimetres: mm,
                rotation: .deg0, configTxt: txt)
            let other = native == "portrait" ? "landscape" : "portrait"
            var turned = upright.otherOrientation
            turned.name = name + "-" + other
            turned.summary = summary + ", mounted " + other + " (turned 90°)"
            presets += [upright, turned]
        }
        return presets
    }()

    /// The preset called `name`, or nil.
    static func named(_ name: String) -> PanelPreset? { all.first { $0.name == name } }

    /// For error messages: every name.
    static var acceptedNames: String { all.map(\.name).joined(separator: ", ") }

    /// What an unknown name gets: the closest known one when there is one, and every name.
    static func unknown(_ name: String) -> String {
        let names = all.map(\.name)
        let hint = ClosestMatch.suggestion(for: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        return "a panel name" + hint + ": " + acceptedNames
    }
}
