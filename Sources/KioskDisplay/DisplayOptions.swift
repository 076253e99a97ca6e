import CardModel
import KioskSystem

/// What the operator asked of the display (`run`'s `--drm`, `--connector`, `--mode`,
/// `--rotation`, `--fbdev`, `--pixel-format`, parsed by the config's option table).
package struct DisplayOptions: Hashable, Sendable {
    /// A DRM card node; nil: the first device with a connected connector.
    var drmPath: String?
    /// A connector name as the kernel spells it (`HDMI-A-1`, `DSI-1`); nil: the first connected.
    var connector: String?
    /// nil: the connector's preferred mode.
    var mode: ModeRequest?
    /// nil: from the connector's "panel orientation" property, else upright.
    var rotation: Rotation?
    /// A framebuffer device to draw on instead of DRM; nil: `/dev/fb0` only when there is no DRM device.
    var fbdevPath: String?
    /// The panel's millimetres as it scans out (config `panel`); nil: what the connector reports.
    var physicalSizeMM: Size?
    /// The scanout buffers' format; nil: the driver's preferred depth (`PixelFormat.preferred`).
    var pixelFormat: PixelFormat?

    package init(
        drmPath: String? = nil, connector: String? = nil, mode: ModeRequest? = nil,
        rotation: Rotation? = nil, fbdevPath: String? = nil, physicalSizeMM: Size? = nil,
        pixelFormat: PixelFormat? = nil
    ) {
        self.pixelFormat = pixelFormat
        self.drmPath = drmPath
        self.connector = connector
        self.mode = mode
        self.rotation = rotation
        self.fbdevPath = fbdevPath
        self.physicalSizeMM = physicalSizeMM
    }
}

/// A requested mode: `800x480` or `1920x1080@60` (refresh in Hz, decimals allowed).
package struct ModeRequest: Hashable, Sendable, CustomStringConvertible {
    var width: Int
    var height: Int
    var refreshHz: Double?

    init(width: Int, height: Int, refreshHz: Double? = nil) {
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
    }

    package init?(_ text: String) {
        let parts = text.lowercased().split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]), (1...16384).contains(w),
            (1...16384).contains(h)
        else { return nil }
        width = w
        height = h
        if parts.count == 2 {
            guard let hz = Double(parts[1]), hz > 0, hz <= 1000 else { return nil }
            refreshHz = hz
        }
    }

    /// Whether `mode` has this size and (when given) a refresh within half a hertz.
    func matches(_ mode: DrmMode) -> Bool {
        guard mode.width == width, mode.height == height else { return false }
        guard let refreshHz else { return true }
        return abs(mode.refreshHz - refreshHz) < 0.5
    }

    package var description: String {
        "\(width)x\(height)" + (refreshHz.map { "@\($0 == $0.rounded() ? String(Int($0)) : String($0))" } ?? "")
    }
}
