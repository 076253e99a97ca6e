import CPangoCairo
import CTurboJPEG
import Dispatch
import Glibc
import KioskSystem
import Synchronization

/// Product photos (PNG or JPEG), decoded once on a background queue and kept, never decoded
/// on the frame path: `image(at:)` answers at once with the image or nil (not ready yet, or
/// unreadable) and starts the decode the first time it is asked.
///
/// When decodes finish, `readyFD` (a pipe's read end) becomes readable so the app's poll loop can
/// ask for a frame; the renderer notices via `generation` and redraws the cards concerned.
package final class ImageCache: Sendable {
    private struct State {
        var images: [String: CairoImage] = [:]
        var failed: Set<String> = []
        var pending: Set<String> = []
        var generation = 0
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "KioskCards.ImageCache", qos: .utility)
    /// Longest side photos are reduced to on decode (pixels); bounds memory per image.
    let maxDimension: Int
    /// Readable after one or more decodes finished; `drainReady()` empties it.
    package var readyFD: Int32 { ready.fd }
    private let ready = ReadySignal(what: "image")

    package init(maxDimension: Int = 1024) {
        self.maxDimension = maxDimension
    }

    /// Bumped whenever a decode finishes (successfully or not).
    var generation: Int { state.withLock { $0.generation } }

    /// The decoded image, or nil while it decodes (or when it could not be read; that is
    /// logged once).
    func image(at path: String) -> CairoImage? {
        let startDecode: Bool = state.withLock { s in
            if s.images[path] != nil || s.failed.contains(path) || s.pending.contains(path) { return false }
            s.pending.insert(path)
            return true
        }
        if startDecode {
            queue.async { self.decodeAndStore(path) }
            return nil
        }
        return state.withLock { $0.images[path] }
    }

    /// Whether `path` is decoded (or failed): a card showing it no longer needs a placeholder.
    func isSettled(_ path: String) -> Bool {
        state.withLock { $0.images[path] != nil || $0.failed.contains(path) }
    }

    /// Blocks until every requested decode has finished (tests, headless renders).
    package func waitUntilIdle() {
        queue.sync {}
    }

    /// Resets `readyFD` after the poll loop saw it readable.
    package func drainReady() { ready.drain() }

    private func decodeAndStore(_ path: String) {
        let result = Self.decode(path: path, maxDimension: maxDimension)
        state.withLock { s in
            s.pending.remove(path)
            switch result {
            case .success(let image): s.images[path] = image
            case .failure(let error):
                s.failed.insert(path)
                Log.warning("image: \(error)")
            }
            s.generation += 1
        }
        ready.notify()
    }

    /// The largest image file read (a 4K JPEG is a few MB).
    static let maxFileBytes = 64 << 20

    /// Decodes a PNG (cairo) or JPEG (libjpeg-turbo) file by its first bytes. The file is
    /// checked first (`ImageFile.check`: whole, uncorrupted, at most `pixelLimit` pixels), so
    /// a bomb is refused with its size before any pixel memory is allocated.
    static func decode(
        path: String, maxDimension: Int, pixelLimit: Int = ImageFile.pixelLimit
    ) -> Result<CairoImage, RenderError> {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readAll(path, limit: maxFileBytes + 1)
        } catch {
            return .failure(.io("cannot open image '\(path)': \(error.reason) — check the deck's image path"))
        }
        guard bytes.count <= maxFileBytes else {
            return .failure(.io("image '\(path)' is over \(maxFileBytes >> 20) MB — make it smaller"))
        }
        let info: ImageFile.Info
        switch ImageFile.check(bytes, pixelLimit: pixelLimit, jpegSize: ImageFile.jpegSize) {
        case .success(let i): info = i
        case .failure(let problem): return .failure(.io("image '\(path)' \(problem.reason)"))
        }
        switch info.format {
        case .png:
            // From the checked bytes, not the path again: the file may be replaced meanwhile.
            guard let image = decodePNG(bytes) else { return .failure(.io("cannot decode PNG '\(path)'")) }
            return .success(reduced(inARGB32(image), maxDimension: maxDimension))
        case .jpeg:
            return decodeJPEG(bytes, path: path, maxDimension: maxDimension)
        }
    }

    /// cairo's PNG reader over bytes in memory (`cairo_image_surface_create_from_png_stream`).
    static func decodePNG(_ bytes: [UInt8]) -> CairoImage? {
        bytes.withUnsafeBufferPointer { buffer -> CairoImage? in
            var cursor = PNGStreamCursor(bytes: buffer, offset: 0)
            let surface = withUnsafeMutablePointer(to: &cursor) { context in
                cairo_image_surface_create_from_png_stream(
                    { closure, data, length in
                        let c = closure!.assumingMemoryBound(to: PNGStreamCursor.self)
                        let n = Int(length)
                        guard let data, c.pointee.bytes.count - c.pointee.offset >= n else {
                            return CAIRO_STATUS_READ_ERROR
                        }
                        data.update(from: c.pointee.bytes.baseAddress! + c.pointee.offset, count: n)
                        c.pointee.offset += n
                        return CAIRO_STATUS_SUCCESS
                    }, context)
            }
            return surface.flatMap { CairoImage(adopting: $0) }
        }
    }

    private struct PNGStreamCursor {
        var bytes: UnsafeBufferPointer<UInt8>
        var offset: Int
    }

    /// `image` as ARGB32, the 4-byte pixels everything after the decoder reads. cairo 1.16
    /// (Debian 12) loads every PNG so; cairo ≥ 1.17.2 (Debian 13, Raspberry Pi OS trixie)
    /// loads 16-bit PNGs as RGBA128F or RGB96F and 8-bit opaque ones as RGB24.
    static func inARGB32(_ image: CairoImage) -> CairoImage {
        guard cairo_image_surface_get_format(image.surface) != CAIRO_FORMAT_ARGB32,
            let converted = CairoImage(width: image.width, height: image.height)
        else { return image }
        converted.draw { cr in
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
            cairo_set_source_surface(cr, image.surface, 0, 0)
            cairo_paint(cr)
        }
        return converted
    }

    /// `image` scaled down (cairo's GOOD filter) so its longer side is at most `maxDimension`.
    static func reduced(_ image: CairoImage, maxDimension: Int) -> CairoImage {
        let longer = max(image.width, image.height)
        guard longer > maxDimension else { return image }
        let k = Double(maxDimension) / Double(longer)
        let w = max(1, Int((Double(image.width) * k).rounded()))
        let h = max(1, Int((Double(image.height) * k).rounded()))
        guard let small = CairoImage(width: w, height: h) else { return image }
        small.draw { cr in
            cairo_scale(cr, Double(w) / Double(image.width), Double(h) / Double(image.height))
            cairo_set_source_surface(cr, image.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_paint(cr)
        }
        return small
    }

    /// `tjDecompress2` straight into cairo's ARGB32 layout (BGRX in memory on little-endian),
    /// using libjpeg-turbo's DCT scaling to skip detail larger than `maxDimension`.
    static func decodeJPEG(_ bytes: [UInt8], path: String, maxDimension: Int) -> Result<CairoImage, RenderError> {
        let tj: TurboJPEGFunctions
        do { tj = try TurboJPEGFunctions.shared.get() } catch {
            return .failure(.io("cannot decode JPEG '\(path)': \(error)"))
        }
        guard let handle = tj.initDecompress() else { return .failure(.io("libjpeg-turbo: cannot start a decoder")) }
        defer { _ = tj.destroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsamp: Int32 = 0
        var colorspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tj.decompressHeader3(handle, $0.baseAddress, UInt(bytes.count), &width, &height, &subsamp, &colorspace)
        }
        guard header == 0, width > 0, height > 0 else {
            return .failure(.io("cannot decode JPEG '\(path)': \(tj.errorText(handle))"))
        }
        // The smallest libjpeg-turbo scaling factor (n/8) that keeps the longer side ≥ maxDimension.
        var scaledW = Int(width)
        var scaledH = Int(height)
        for num in 1...8 {
            let w = (Int(width) * num + 7) / 8
            let h = (Int(height) * num + 7) / 8
            if max(w, h) >= min(maxDimension, max(Int(width), Int(height))) {
                (scaledW, scaledH) = (w, h)
                break
            }
        }
        guard let image = CairoImage(width: scaledW, height: scaledH, format: CAIRO_FORMAT_RGB24) else {
            return .failure(.io("image '\(path)' is too large (\(width)×\(height))"))
        }
        let rc = bytes.withUnsafeBufferPointer {
            tj.decompress2(
                handle, $0.baseAddress, UInt(bytes.count), image.data.assumingMemoryBound(to: UInt8.self),
                Int32(scaledW), Int32(image.stride), Int32(scaledH), Int32(TJPF_BGRX.rawValue), 0)
        }
        image.markDirty()
        guard rc == 0 else {
            return .failure(.io("cannot decode JPEG '\(path)': \(tj.errorText(handle))"))
        }
        return .success(image)
    }
}
