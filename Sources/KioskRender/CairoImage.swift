import CPangoCairo
import CardModel
import Glibc
import KioskSystem

/// A cairo image surface this code owns (`cairo_image_surface_create`), destroyed with it.
///
/// ARGB32 surfaces hold premultiplied alpha, one `UInt32` per pixel (0xAARRGGBB in native
/// order); A8 surfaces hold one byte per pixel. Immutable once drawn, so it may be handed
/// from the image decoder's thread to the frame thread.
package final class CairoImage: @unchecked Sendable {
    package let surface: OpaquePointer
    let width: Int
    let height: Int

    /// A cleared surface; nil when cairo cannot allocate it.
    package init?(width: Int, height: Int, format: cairo_format_t = CAIRO_FORMAT_ARGB32) {
        guard width > 0, height > 0 else { return nil }
        let s = cairo_image_surface_create(format, Int32(width), Int32(height))!
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(s)
            return nil
        }
        self.surface = s
        self.width = width
        self.height = height
    }

    /// Takes ownership of `surface` (one reference), which must be an image surface.
    init?(adopting surface: OpaquePointer) {
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return nil
        }
        self.surface = surface
        self.width = Int(cairo_image_surface_get_width(surface))
        self.height = Int(cairo_image_surface_get_height(surface))
    }

    deinit { cairo_surface_destroy(surface) }

    /// Bytes from one row to the next.
    var stride: Int { Int(cairo_image_surface_get_stride(surface)) }

    /// The pixel memory; call `markDirty()` after writing it behind cairo's back.
    var data: UnsafeMutableRawPointer {
        cairo_surface_flush(surface)
        return UnsafeMutableRawPointer(cairo_image_surface_get_data(surface)!)
    }

    var byteCount: Int { stride * height }

    func markDirty() { cairo_surface_mark_dirty(surface) }

    /// Runs `body` with a fresh cairo context on this surface.
    package func draw<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        return try body(cr)
    }
}

extension PixelBuffer {
    /// Runs `body` with a cairo RGB24 surface over this buffer's memory (XRGB8888 is
    /// cairo's RGB24), so cairo can draw straight into the frame.
    package func withCairoSurface<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        let s = cairo_image_surface_create_for_data(
            pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24, Int32(width), Int32(height),
            Int32(stride))!
        defer {
            cairo_surface_flush(s)
            cairo_surface_destroy(s)
        }
        return try body(s)
    }

    /// Writes the buffer as a PNG file.
    package func writePNG(to path: String) throws(RenderError) {
        let status = withCairoSurface { cairo_surface_write_to_png($0, path) }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderError.io("cannot write PNG '\(path)': \(String(cString: cairo_status_to_string(status)))")
        }
    }

    /// The buffer as PNG bytes in memory (`cairo_surface_write_to_png_stream`): the same
    /// encoder as `writePNG`, for a screenshot that goes over the network instead of to a file.
    package func pngBytes() throws(RenderError) -> [UInt8] {
        final class Sink {
            var bytes: [UInt8] = []
        }
        let sink = Sink()
        let status = withCairoSurface { surface in
            cairo_surface_write_to_png_stream(
                surface,
                { closure, data, length in
                    guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                    let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
                    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                    return CAIRO_STATUS_SUCCESS
                }, Unmanaged.passUnretained(sink).toOpaque())
        }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderError.io("cannot encode a PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        return sink.bytes
    }
}

/// What rendering can fail with: bad input or files that cannot be read or written.
package enum RenderError: Error, Equatable, CustomStringConvertible {
    case io(String)
    case usage(String)

    package var description: String {
        switch self {
        case .io(let s), .usage(let s): s
        }
    }
}

/// Small drawing helpers over a cairo context (`cairo_t *`).
package enum Draw {
    package static func setColor(_ cr: OpaquePointer, _ c: Color, alpha: Double = 1) {
        cairo_set_source_rgba(cr, c.red, c.green, c.blue, c.alpha * alpha)
    }

    /// Adds a rounded-rectangle path (radius clamped to half the shorter side).
    static func roundedRect(
        _ cr: OpaquePointer, x: Double, y: Double, width w: Double, height h: Double, radius: Double
    ) {
        let r = max(0, min(radius, w / 2, h / 2))
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + w - r, y + r, r, -Double.pi / 2, 0)
        cairo_arc(cr, x + w - r, y + h - r, r, 0, Double.pi / 2)
        cairo_arc(cr, x + r, y + h - r, r, Double.pi / 2, Double.pi)
        cairo_arc(cr, x + r, y + r, r, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(cr)
    }

    /// Near-black or white, whichever reads on `background` (`Color.readableText`).
    static func foreground(on background: Color) -> Color {
        Color.readableText(on: background, dark: Color(rgb: 0x1C1C1E))
    }

    /// `c` mixed with `other` by `t` (0 = c).
    static func mix(_ c: Color, _ other: Color, _ t: Double) -> Color {
        Color(
            red: c.red + (other.red - c.red) * t, green: c.green + (other.green - c.green) * t,
            blue: c.blue + (other.blue - c.blue) * t, alpha: c.alpha)
    }
}

extension PixelBuffer {
    /// Reads a PNG file (any format cairo reads; alpha is dropped) into a new buffer.
    static func readPNG(_ path: String) throws(RenderError) -> PixelBuffer {
        guard let s = cairo_image_surface_create_from_png(path), let image = CairoImage(adopting: s) else {
            throw .io("cannot read PNG '\(path)'")
        }
        let buffer = PixelBuffer(width: image.width, height: image.height)
        buffer.withCairoSurface { target in
            let cr = cairo_create(target)!
            defer { cairo_destroy(cr) }
            cairo_set_source_rgb(cr, 0, 0, 0)
            cairo_paint(cr)
            cairo_set_source_surface(cr, image.surface, 0, 0)
            cairo_paint(cr)
        }
        return buffer
    }
}
