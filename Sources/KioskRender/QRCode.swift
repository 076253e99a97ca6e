import CQRencode
import CardModel
import Glibc
import KioskSystem

/// libqrencode's functions, looked up in libqrencode.so.4 when the first QR code is encoded: a
/// kiosk whose decks link nothing never maps the library. `CQRencode` links nothing; each
/// field's type is the one Swift imports from qrencode.h.
package struct QRencodeFunctions: Sendable {
    let encodeString8bit: @convention(c) (UnsafePointer<CChar>?, Int32, QRecLevel) -> UnsafeMutablePointer<QRcode>?
    let free: @convention(c) (UnsafeMutablePointer<QRcode>?) -> Void

    init(_ lib: DynamicLibrary) throws(DynamicLibraryError) {
        encodeString8bit = try lib.function("QRcode_encodeString8bit")
        free = try lib.function("QRcode_free")
    }

    /// The process's one table (Debian's libqrencode4, bookworm and trixie).
    package static let shared = LibraryFunctions<QRencodeFunctions> {
        do throws(DynamicLibraryError) {
            return .success(try QRencodeFunctions(DynamicLibrary("libqrencode.so.4", debianPackage: "libqrencode4")))
        } catch {
            return .failure(error)
        }
    }
}

/// A QR code's modules, encoded by libqrencode (`QRcode_encodeString8bit`, error correction
/// level M) and copied out at once, so drawing works on a value.
package struct QRCode: Hashable, Sendable {
    /// Modules per side (21 for version 1, 4 more per version).
    package let size: Int
    /// Row by row, true for a dark module.
    package let dark: [Bool]
    /// The light margin a reader needs around the code, in modules (ISO/IEC 18004).
    package static let quietZone = 4

    /// The code for `text` as bytes (UTF-8); nil when it is empty or longer than a QR code
    /// holds (2331 bytes at level M) or libqrencode fails or cannot be loaded (logged; check-deck
    /// names the package: `QRencodeFunctions.shared.get()`'s error).
    package init?(_ text: String) {
        guard !text.isEmpty else { return nil }
        let lib: QRencodeFunctions
        do { lib = try QRencodeFunctions.shared.get() } catch {
            Log.error("QR code: \(error)")
            return nil
        }
        guard let code = lib.encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { lib.free(code) }
        let n = Int(code.pointee.width)
        guard n > 0, let data = code.pointee.data else { return nil }
        size = n
        // Bit 0 of each byte is the module's colour (1 = dark); the others say what it is.
        dark = (0..<(n * n)).map { data[$0] & 1 == 1 }
    }

    /// Modules per side with the quiet zone on both sides.
    package var sideWithQuietZone: Int { size + 2 * Self.quietZone }

    /// Whole pixels per module so the code with its quiet zone is at least `millimetres` wide
    /// at `pixelsPerMillimetre` (never under 2, so a camera still resolves a module).
    package func pixelsPerModule(millimetres: Double, pixelsPerMillimetre: Double) -> Int {
        max(2, Int((millimetres * pixelsPerMillimetre / Double(sideWithQuietZone)).rounded(.up)))
    }

    /// Paints the code, its quiet zone light, with its top-left corner at `x`, `y` (pixels) in
    /// `buffer`, `module` pixels per module: near-black on white in every theme.
    package func paint(into buffer: PixelBuffer, x: Int, y: Int, module: Int) {
        let side = sideWithQuietZone * module
        let light: UInt32 = 0xFFFF_FFFF
        let ink: UInt32 = 0xFF1C_1C1E
        for row in 0..<side where y + row >= 0 && y + row < buffer.height {
            let line = (buffer.pixels + (y + row) * buffer.stride).assumingMemoryBound(to: UInt32.self)
            let my = row / module - Self.quietZone
            for col in 0..<side where x + col >= 0 && x + col < buffer.width {
                let mx = col / module - Self.quietZone
                let isDark = my >= 0 && my < size && mx >= 0 && mx < size && dark[my * size + mx]
                line[x + col] = isDark ? ink : light
            }
        }
    }
}
