import CTurboJPEG

/// libjpeg-turbo's TurboJPEG functions, looked up in libturbojpeg.so.0 when a deck first has a
/// JPEG photo (its size read by the deck loader, its pixels by the renderer's decoder): a kiosk
/// whose decks have none never maps the library. `CTurboJPEG` links nothing; it gives the types
/// and constants, and every call goes through this table. Each field's type is the one Swift
/// imports from turbojpeg.h (libjpeg-turbo 2.1, Debian bookworm and trixie).
package struct TurboJPEGFunctions: Sendable {
    package let initDecompress: @convention(c) () -> tjhandle?
    package let destroy: @convention(c) (tjhandle?) -> Int32
    package let decompressHeader3:
        @convention(c) (
            tjhandle?, UnsafePointer<UInt8>?, UInt, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
            UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?
        ) -> Int32
    package let decompress2:
        @convention(c) (
            tjhandle?, UnsafePointer<UInt8>?, UInt, UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32, Int32, Int32
        )
            -> Int32
    package let getErrorStr2: @convention(c) (tjhandle?) -> UnsafeMutablePointer<CChar>?

    init(_ lib: DynamicLibrary) throws(DynamicLibraryError) {
        initDecompress = try lib.function("tjInitDecompress")
        destroy = try lib.function("tjDestroy")
        decompressHeader3 = try lib.function("tjDecompressHeader3")
        decompress2 = try lib.function("tjDecompress2")
        getErrorStr2 = try lib.function("tjGetErrorStr2")
    }

    /// The process's one table, loaded by the first JPEG read (on the thread that reads it).
    package static let shared = LibraryFunctions<TurboJPEGFunctions> {
        do throws(DynamicLibraryError) {
            return .success(try TurboJPEGFunctions(DynamicLibrary("libturbojpeg.so.0", debianPackage: "libturbojpeg0")))
        } catch {
            return .failure(error)
        }
    }

    /// The decoder's last error, or libjpeg-turbo's words for the last one without a decoder.
    package func errorText(_ handle: tjhandle?) -> String {
        getErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
    }
}
