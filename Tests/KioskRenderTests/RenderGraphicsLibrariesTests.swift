import CGraphics
import CPangoCairo
import Glibc
import KioskTestSupport
import Testing

/// cairo and pango reached through CGraphics: loaded with dlopen, each function forwarded to the
/// library's own.
@Suite struct RenderGraphicsLibrariesTests {
    @Test func theLibrariesLoad() {
        let error = kiosk_graphics_load().map { String(cString: $0) }
        #expect(error == nil, "\(error ?? "")")
        // Again: at once, and the same answer.
        #expect(kiosk_graphics_load() == nil)
    }

    /// The forwarded functions answer as the libraries' own do, looked up here with dlsym on
    /// each library (the oracle: the library itself, not the forwarding table).
    @Test func forwardedFunctionsAreTheLibrariesOwn() throws {
        typealias VersionString = @convention(c) () -> UnsafePointer<CChar>?
        for (library, symbol, forwarded) in [
            ("libcairo.so.2", "cairo_version_string", String(cString: cairo_version_string())),
            ("libpango-1.0.so.0", "pango_version_string", String(cString: pango_version_string())),
        ] {
            let handle = try #require(dlopen(library, RTLD_NOW | RTLD_NOLOAD), "\(library) is not loaded")
            let address = try #require(dlsym(handle, symbol), "\(library) has no \(symbol)")
            let own = try #require(unsafeBitCast(address, to: VersionString.self)())
            #expect(forwarded == String(cString: own), "\(symbol)")
        }
        // A forwarded call that draws: one opaque pixel through cairo_create, cairo_paint.
        let surface = try #require(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1))
        defer { cairo_surface_destroy(surface) }
        let cr = try #require(cairo_create(surface))
        cairo_set_source_rgb(cr, 1, 0, 0)
        cairo_paint(cr)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        let data = try #require(cairo_image_surface_get_data(surface))
        let pixel = UnsafeRawPointer(data).load(as: UInt32.self)
        #expect(pixel == 0xFFFF_0000)
    }
}
