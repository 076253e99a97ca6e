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

    /// The configuration `kiosk_fontconfig_init` loads (FcInit's, less the template folder's
    /// descriptions) matches fonts as fontconfig's own `fc-match` does: Latin, bold, Arabic,
    /// Japanese, Chinese, emoji, the kiosk's family list.
    @Test(TestRequirement.fcMatch.trait) func fontconfigMatchesAsFcMatchDoes() throws {
        kiosk_fontconfig_init()
        let fontconfig = try #require(dlopen("libfontconfig.so.1", RTLD_NOW | RTLD_NOLOAD))
        typealias Parse = @convention(c) (UnsafePointer<UInt8>?) -> OpaquePointer?
        typealias Substitute = @convention(c) (OpaquePointer?, OpaquePointer?, Int32) -> Int32
        typealias Default = @convention(c) (OpaquePointer?) -> Void
        typealias Match =
            @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutablePointer<Int32>?) -> OpaquePointer?
        typealias GetString =
            @convention(c) (
                OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
            )
            -> Int32
        typealias Destroy = @convention(c) (OpaquePointer?) -> Void
        func function<T>(_ name: String, _: T.Type) throws -> T {
            unsafeBitCast(try #require(dlsym(fontconfig, name), "no \(name)"), to: T.self)
        }
        let parse = try function("FcNameParse", Parse.self)
        let substitute = try function("FcConfigSubstitute", Substitute.self)
        let defaults = try function("FcDefaultSubstitute", Default.self)
        let match = try function("FcFontMatch", Match.self)
        let getString = try function("FcPatternGetString", GetString.self)
        let destroy = try function("FcPatternDestroy", Destroy.self)
        for name in [
            "sans-serif", "Noto Sans:weight=bold", "sans-serif:lang=ar", "sans-serif:lang=ja", "sans-serif:lang=zh-cn",
            "emoji", "Noto Sans,Noto Sans Arabic,DejaVu Sans,sans-serif:lang=en",
        ] {
            let pattern = try #require(name.withCString { $0.withMemoryRebound(to: UInt8.self, capacity: 1, parse) })
            defer { destroy(pattern) }
            _ = substitute(nil, pattern, 0)  // FcMatchPattern
            defaults(pattern)
            var result: Int32 = 0
            let font = try #require(match(nil, pattern, &result), "no font for \(name)")
            defer { destroy(font) }
            var file: UnsafeMutablePointer<UInt8>?
            try #require(getString(font, "file", 0, &file) == 0)
            let ours = String(cString: try #require(file))
            let (status, theirs) = try TestProcess.run("/usr/bin/fc-match", ["-f", "%{file}", name])
            #expect(status == 0)
            #expect(ours == theirs, "\(name)")
        }
    }
}
