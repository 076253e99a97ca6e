import CDrm

/// The pixel format of the scanout buffers. The pipeline always draws XRGB8888 in ordinary
/// memory; `ScanoutCopy` converts once, while copying the damage into the buffer the panel reads.
///
/// RGB565 halves what the copy writes and what the display engine reads every refresh (on a Pi
/// the memory bus, not the core, limits full-frame work), dithered so gradients do not band.
package enum PixelFormat: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case xrgb8888
    case rgb565

    /// "xrgb8888, rgb565 or auto": what `pixel-format` accepts.
    package static let acceptedValues = "xrgb8888, rgb565 or auto"

    /// `xrgb8888`, `rgb565` (any case); nil for anything else (`auto` is the caller's nil).
    package init?(optionValue text: String) {
        self.init(rawValue: text.lowercased())
    }

    package var bytesPerPixel: Int { self == .rgb565 ? 2 : 4 }

    /// As the kernel and the log spell it.
    package var description: String { self == .rgb565 ? "RGB565" : "XRGB8888" }

    /// The DRM fourcc (`drm_fourcc.h`).
    var fourcc: UInt32 { self == .rgb565 ? CDrmFormatRGB565() : CDrmFormatXRGB8888() }

    /// The format a driver asks for when the operator chose none: RGB565 where it says 16 bits
    /// is its preferred depth (`DRM_CAP_DUMB_PREFERRED_DEPTH`: small SPI panels, whose bus
    /// carries 16 bits a pixel), else XRGB8888. vc4 on the Pi says 24, so a Pi HDMI or DSI
    /// panel takes RGB565 only when the operator sets it.
    static func preferred(depth: Int) -> PixelFormat { depth == 16 ? .rgb565 : .xrgb8888 }
}

extension PixelFormat {
    /// An RGB565 pixel as XRGB8888, each channel's top bits repeated into its low bits (as pixman
    /// and so QEMU's screendump widen it): what a panel shows, for headless pictures of it.
    package static func xrgb8888(fromRGB565 p: UInt16) -> UInt32 {
        let r = UInt32(p >> 11) & 31
        let g = UInt32(p >> 5) & 63
        let b = UInt32(p) & 31
        return 0xff00_0000 | ((r << 3 | r >> 2) << 16) | ((g << 2 | g >> 4) << 8) | (b << 3 | b >> 2)
    }
}
