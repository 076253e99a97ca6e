import KioskSystem

/// What the operator asked of the display: `--drm PATH`, `--connector NAME`,
/// `--mode WxH[@Hz]`, `--rotation 0|90|180|270`, `--fbdev PATH`.
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

    package init(
        drmPath: String? = nil, connector: String? = nil, mode: ModeRequest? = nil,
        rotation: Rotation? = nil, fbdevPath: String? = nil
    ) {
        self.drmPath = drmPath
        self.connector = connector
        self.mode = mode
        self.rotation = rotation
        self.fbdevPath = fbdevPath
    }

    /// The flags this type reads, for usage text.
    package static let usage = """
          --drm PATH            DRM device (default: the first with a connected display)
          --connector NAME      connector, e.g. HDMI-A-1, DSI-1 (default: the first connected)
          --mode WxH[@Hz]       display mode (default: the connector's preferred mode)
          --rotation DEG        0, 90, 180 or 270 clockwise (default: the panel orientation)
          --fbdev PATH          draw on this framebuffer device instead of DRM (default when
                                there is no DRM device: /dev/fb0)
        """

    /// Takes the display flags out of `arguments`, leaving the others in order.
    package static func parse(_ arguments: inout [String]) throws(DisplayOptionError) -> DisplayOptions {
        var options = DisplayOptions()
        var rest: [String] = []
        var i = 0
        func value(_ flag: String) throws(DisplayOptionError) -> String {
            guard i + 1 < arguments.count else { throw .missingValue(flag: flag) }
            i += 1
            return arguments[i]
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--drm": options.drmPath = try value(arg)
            case "--connector": options.connector = try value(arg)
            case "--fbdev": options.fbdevPath = try value(arg)
            case "--mode":
                let text = try value(arg)
                guard let mode = ModeRequest(text) else { throw .badMode(text) }
                options.mode = mode
            case "--rotation":
                let text = try value(arg)
                guard let degrees = Int(text), degrees % 90 == 0, let rotation = Rotation(degrees: degrees) else {
                    throw .badRotation(text)
                }
                options.rotation = rotation
            default: rest.append(arg)
            }
            i += 1
        }
        arguments = rest
        return options
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

/// A display flag the program cannot use; says the accepted form.
package enum DisplayOptionError: Error, Hashable, CustomStringConvertible {
    case missingValue(flag: String)
    case badMode(String)
    case badRotation(String)

    package var description: String {
        switch self {
        case .missingValue(let flag): "\(flag) needs a value (see 'KioskCards --help')"
        case .badMode(let text):
            "--mode '\(text)' is not a mode; write WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 800x480@60"
        case .badRotation(let text): "--rotation '\(text)' is not a rotation; use 0, 90, 180 or 270"
        }
    }
}
