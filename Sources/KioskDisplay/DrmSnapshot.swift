import KioskSystem

/// Value snapshots of a DRM device's mode-setting resources.
///
/// libdrm hands out `drmModeGet*` pointers that must be freed; the device copies each result
/// into these values and frees it at once (`DrmDevice.snapshot`), so choosing a connector,
/// mode and CRTC is pure and tested over recorded snapshots (libdrm `tests/modetest`'s
/// `struct resources`, without its pointer lifetimes).

/// A DRM object id (connector, encoder, CRTC, framebuffer, property). Owns nothing.
package typealias DrmObjectID = UInt32

/// A display mode (timings as in `drmModeModeInfo`; pixels, kHz).
package struct DrmMode: Hashable, Sendable, CustomStringConvertible {
    var name: String
    var clockKHz: UInt32
    var hdisplay: UInt16
    var hsyncStart: UInt16
    var hsyncEnd: UInt16
    var htotal: UInt16
    var hskew: UInt16
    var vdisplay: UInt16
    var vsyncStart: UInt16
    var vsyncEnd: UInt16
    var vtotal: UInt16
    var vscan: UInt16
    /// The kernel's rounded refresh rate in Hz.
    var vrefresh: UInt32
    /// `DRM_MODE_FLAG_*` (interlace, double scan, sync polarities).
    var flags: UInt32
    /// `DRM_MODE_TYPE_*` (preferred, driver, user).
    var type: UInt32

    static let typePreferred: UInt32 = 1 << 3
    static let flagInterlace: UInt32 = 1 << 4
    static let flagDoubleScan: UInt32 = 1 << 5

    var width: Int { Int(hdisplay) }
    var height: Int { Int(vdisplay) }
    var isPreferred: Bool { type & Self.typePreferred != 0 }

    /// The refresh rate in Hz from the timings (kernel `drm_mode_vrefresh`), or `vrefresh`
    /// when the timings are incomplete.
    var refreshHz: Double {
        guard htotal > 0, vtotal > 0, clockKHz > 0 else { return Double(vrefresh) }
        var hz = Double(clockKHz) * 1000 / (Double(htotal) * Double(vtotal))
        if flags & Self.flagInterlace != 0 { hz *= 2 }
        if flags & Self.flagDoubleScan != 0 { hz /= 2 }
        if vscan > 1 { hz /= Double(vscan) }
        return hz
    }

    /// One refresh period in nanoseconds (16.7 ms for 60 Hz; 60 Hz when unknown).
    var periodNanoseconds: Int64 {
        let hz = refreshHz
        return Int64((1e9 / (hz > 1 ? hz : 60)).rounded())
    }

    package var description: String {
        "\(width)x\(height)@\(jsonNumber(refreshHz, decimals: 2))\(isPreferred ? " (preferred)" : "")"
    }

    /// A mode from its visible size and refresh with CVT-like blanking; for tests and fixtures.
    static func synthetic(width: Int, height: Int, hz: Int, preferred: Bool = false) -> DrmMode {
        let htotal = width + 160
        let vtotal = height + 23
        let clock = UInt32((Double(htotal * vtotal * hz) / 1000).rounded())
        return DrmMode(
            name: "\(width)x\(height)", clockKHz: clock,
            hdisplay: UInt16(width), hsyncStart: UInt16(width + 48), hsyncEnd: UInt16(width + 80),
            htotal: UInt16(htotal), hskew: 0,
            vdisplay: UInt16(height), vsyncStart: UInt16(height + 3), vsyncEnd: UInt16(height + 10),
            vtotal: UInt16(vtotal), vscan: 0, vrefresh: UInt32(hz), flags: 0,
            type: preferred ? typePreferred | (1 << 6) : 1 << 6)
    }
}

/// Whether a sink is attached to a connector (`drmModeConnection`).
package enum DrmConnection: String, Hashable, Sendable {
    case connected
    case disconnected
    case unknown

    init(raw: UInt32) {
        switch raw {
        case 1: self = .connected
        case 2: self = .disconnected
        default: self = .unknown
        }
    }
}

/// How a panel is mounted, from a connector's "panel orientation" property.
package enum PanelOrientation: String, Hashable, Sendable {
    case normal = "Normal"
    case upsideDown = "Upside Down"
    case leftSideUp = "Left Side Up"
    case rightSideUp = "Right Side Up"

    /// The rotation (clockwise) that shows an upright picture on a panel mounted this way.
    /// "Left Side Up": the panel's left edge is at the top, so the picture turns 270° clockwise
    /// (weston maps it to the counter-clockwise `WL_OUTPUT_TRANSFORM_90`).
    package var rotation: Rotation {
        switch self {
        case .normal: .deg0
        case .upsideDown: .deg180
        case .leftSideUp: .deg270
        case .rightSideUp: .deg90
        }
    }
}

/// A connector (a port or an attached panel).
package struct DrmConnector: Hashable, Sendable {
    package var id: DrmObjectID
    /// `DRM_MODE_CONNECTOR_*`.
    var type: UInt32
    /// The n-th connector of its type, from 1.
    var typeIndex: UInt32
    package var connection: DrmConnection
    package var widthMM: Int
    package var heightMM: Int
    /// In the kernel's order (the preferred mode usually first).
    package var modes: [DrmMode]
    package var encoderIDs: [DrmObjectID]
    /// The encoder driving it now, 0 if none.
    var currentEncoderID: DrmObjectID
    package var panelOrientation: PanelOrientation?
    /// The id of its "DPMS" property, when it has one.
    package var dpmsPropertyID: DrmObjectID?

    /// The kernel's name, as in `/sys/class/drm/card0-HDMI-A-1`: `HDMI-A-1`, `DSI-1`, `Virtual-1`.
    package var name: String { "\(Self.typeName(type))-\(typeIndex)" }

    /// The kernel's connector type names (`drm_connector_enum_list`).
    static func typeName(_ type: UInt32) -> String {
        let names = [
            "Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS", "Component",
            "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI", "DPI", "Writeback", "SPI", "USB",
        ]
        return Int(type) < names.count ? names[Int(type)] : "Type\(type)"
    }

    /// The connector type for a kernel name (`HDMI-A` → 11); nil if unknown.
    static func type(named name: String) -> UInt32? {
        (0..<32).first { typeName(UInt32($0)).lowercased() == name.lowercased() }.map(UInt32.init)
    }
}

/// An encoder: which CRTCs can feed it.
package struct DrmEncoder: Hashable, Sendable {
    var id: DrmObjectID
    /// The CRTC feeding it now, 0 if none.
    var crtcID: DrmObjectID
    /// Bit i set: the i-th CRTC in the resources' list can feed it.
    package var possibleCRTCs: UInt32
}

/// A CRTC (scanout engine) and what it shows now.
package struct DrmCRTC: Hashable, Sendable {
    package var id: DrmObjectID
    /// The framebuffer it scans out, 0 when off.
    package var bufferID: DrmObjectID
    var x: Int
    var y: Int
    /// The mode it runs, nil when off.
    package var mode: DrmMode?
}

/// Everything mode setting needs from one device, copied out of libdrm.
package struct DrmResources: Hashable, Sendable {
    package var connectors: [DrmConnector]
    var encoders: [DrmEncoder]
    /// In the kernel's order: an encoder's `possibleCRTCs` bit i means `crtcs[i]`.
    package var crtcs: [DrmCRTC]
    var maxWidth: Int
    var maxHeight: Int

    package func encoder(_ id: DrmObjectID) -> DrmEncoder? { encoders.first { $0.id == id } }
    func crtc(_ id: DrmObjectID) -> DrmCRTC? { crtcs.first { $0.id == id } }
    func crtcIndex(_ id: DrmObjectID) -> Int? { crtcs.firstIndex { $0.id == id } }
}

/// One DRM device: its node, driver and capabilities, and its resources.
package struct DrmDeviceSnapshot: Hashable, Sendable {
    /// `/dev/dri/card0`.
    package var path: String
    /// The kernel driver, e.g. `virtio_gpu`, `bochs-drm`, `vc4`.
    package var driver: String
    /// `DRM_CAP_DUMB_BUFFER`.
    package var supportsDumbBuffers: Bool
    /// `DRM_CAP_TIMESTAMP_MONOTONIC`: flip timestamps are on CLOCK_MONOTONIC.
    package var monotonicTimestamps: Bool
    package var resources: DrmResources
    /// `DRM_CAP_DUMB_PREFERRED_DEPTH` (24 on most drivers, 16 on small SPI panels; 0 unknown).
    package var preferredDepth = 0
}
