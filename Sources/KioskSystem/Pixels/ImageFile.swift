/// Checks an image file's bytes before anything decodes them: which format it is, whether the
/// file is whole, and whether its pixel count is within a limit, so a truncated or corrupt file
/// is named at once and a decompression bomb (a small file with a huge header) is refused
/// before its pixels are allocated. Pure: bytes in, a size or a problem out. Shared by
/// `check-deck` (the deck loader) and the renderer's decoder.
package enum ImageFile {
    /// The most pixels an image may have (decimal megapixels, as cameras count them): a
    /// 16 MP ARGB image is 64 MB while it is decoded and reduced.
    package static let pixelLimit = 16_000_000

    package enum Format: String, Sendable {
        case png = "PNG"
        case jpeg = "JPEG"
    }

    /// What the header says.
    package struct Info: Hashable, Sendable {
        package var format: Format
        package var width: Int
        package var height: Int

        package init(format: Format, width: Int, height: Int) {
            self.format = format
            self.width = width
            self.height = height
        }
    }

    /// Why a file cannot be used: `reason` reads after the file's name ("photo.png is …") and
    /// ends with the fix.
    package struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        package enum Kind: Hashable, Sendable {
            /// Neither PNG nor JPEG.
            case unknownFormat
            /// Cut short, bad checksums or headers.
            case corrupt
            /// Over the pixel limit.
            case tooLarge
        }

        package var kind: Kind
        package var reason: String

        package init(_ kind: Kind, _ reason: String) {
            self.kind = kind
            self.reason = reason
        }

        package var description: String { reason }
    }

    /// What a C library said when it could not read a header.
    package struct LibraryError: Error, Sendable {
        package var message: String
        package init(_ message: String) { self.message = message }
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format by its first bytes, nil for anything else.
    package static func format(of bytes: [UInt8]) -> Format? {
        if bytes.starts(with: pngSignature) { return .png }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        return nil
    }

    /// Verifies `bytes` as a whole PNG or JPEG file within `pixelLimit`. JPEG frame headers are
    /// read by `jpegSize` (libjpeg-turbo's `tjDecompressHeader3` in the targets that link it),
    /// which answers the width and height or the library's reason.
    package static func check(
        _ bytes: [UInt8], pixelLimit: Int = pixelLimit,
        jpegSize: ([UInt8]) -> Result<(width: Int, height: Int), ImageFile.LibraryError>
    ) -> Result<Info, Problem> {
        switch format(of: bytes) {
        case .png: return checkPNG(bytes, pixelLimit: pixelLimit)
        case .jpeg: return checkJPEG(bytes, pixelLimit: pixelLimit, size: jpegSize)
        case nil:
            return .failure(Problem(.unknownFormat, "is neither PNG nor JPEG — convert it to PNG or JPEG"))
        }
    }

    /// The size limit, in the words `check-deck` and the renderer both use.
    package static func checkPixels(_ info: Info, pixelLimit: Int) -> Problem? {
        // Both sides are below 2^31 here, so the product cannot overflow.
        guard info.width * info.height > pixelLimit else { return nil }
        let mp = (info.width * info.height + 500_000) / 1_000_000
        return Problem(
            .tooLarge,
            "is \(info.width)×\(info.height) pixels (\(mp) MP); the limit is \(pixelLimit / 1_000_000) MP"
                + " — scale it down")
    }

    // MARK: - PNG

    /// Signature, IHDR first with a valid size, bit depth and colour type, the CRC-32 of every
    /// chunk, at least one IDAT, and IEND before the bytes run out (PNG spec, sections 5 and 11).
    static func checkPNG(_ bytes: [UInt8], pixelLimit: Int) -> Result<Info, Problem> {
        func corrupt(_ what: String) -> Result<Info, Problem> {
            .failure(Problem(.corrupt, "is not a valid PNG file: \(what) — export or copy it again"))
        }
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        var info: Info?
        var sawData = false
        var offset = pngSignature.count
        var index = 0
        while true {
            guard bytes.count - offset >= 8 else {
                return corrupt("it ends at byte \(bytes.count) with no IEND chunk (the file is cut short)")
            }
            let length = u32(offset)
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            let type = String(decoding: typeBytes.map { (0x21...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
            guard length <= 0x7FFF_FFFF else {
                return corrupt("chunk '\(type)' at byte \(offset) has length \(length)")
            }
            guard bytes.count - offset - 12 >= length else {
                return corrupt("it ends inside chunk '\(type)' at byte \(offset) (the file is cut short)")
            }
            let dataStart = offset + 8
            let stored = UInt32(u32(dataStart + length))
            let computed = CRC32.checksum(bytes[(offset + 4)..<(dataStart + length)])
            guard stored == computed else { return corrupt("chunk '\(type)' at byte \(offset) fails its CRC check") }
            if index == 0 {
                guard type == "IHDR", length == 13 else { return corrupt("the first chunk is '\(type)', not IHDR") }
                let width = u32(dataStart)
                let height = u32(dataStart + 4)
                let depth = bytes[dataStart + 8]
                let colour = bytes[dataStart + 9]
                guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
                    return corrupt("IHDR gives a size of \(width)×\(height)")
                }
                let depths: [UInt8: [UInt8]] = [
                    0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
                ]
                guard let allowed = depths[colour], allowed.contains(depth) else {
                    return corrupt("IHDR gives colour type \(colour) with bit depth \(depth)")
                }
                guard bytes[dataStart + 10] == 0, bytes[dataStart + 11] == 0, bytes[dataStart + 12] <= 1 else {
                    return corrupt("IHDR gives an unknown compression, filter or interlace method")
                }
                let header = Info(format: .png, width: width, height: height)
                if let tooLarge = checkPixels(header, pixelLimit: pixelLimit) { return .failure(tooLarge) }
                info = header
            } else if type == "IHDR" {
                return corrupt("a second IHDR chunk at byte \(offset)")
            }
            if type == "IDAT" { sawData = true }
            if type == "IEND" {
                guard sawData else { return corrupt("it has no image data (IDAT chunk)") }
                return .success(info!)
            }
            offset = dataStart + length + 4
            index += 1
        }
    }

    // MARK: - JPEG

    /// SOI first, a frame header (SOF) with the size, and EOI at the end (a cut file loses it).
    static func checkJPEG(
        _ bytes: [UInt8], pixelLimit: Int, size: ([UInt8]) -> Result<(width: Int, height: Int), ImageFile.LibraryError>
    ) -> Result<Info, Problem> {
        func corrupt(_ what: String) -> Result<Info, Problem> {
            .failure(Problem(.corrupt, "is not a valid JPEG file: \(what) — export or copy it again"))
        }
        let header: (width: Int, height: Int)
        switch size(bytes) {
        case .success(let s): header = s
        case .failure(let why): return corrupt("no readable frame header (SOF): \(why.message)")
        }
        guard header.width > 0, header.height > 0 else {
            return corrupt("no frame header (SOF) gives its size (\(header.width)×\(header.height))")
        }
        let info = Info(format: .jpeg, width: header.width, height: header.height)
        if let tooLarge = checkPixels(info, pixelLimit: pixelLimit) { return .failure(tooLarge) }
        // Encoders may pad after EOI; look for it in the file's last bytes.
        let tail = bytes.suffix(64)
        guard zip(tail, tail.dropFirst()).contains(where: { $0 == 0xFF && $1 == 0xD9 }) else {
            return corrupt("it has no end marker (EOI), so the file is cut short")
        }
        return .success(info)
    }
}

/// CRC-32 as PNG and zlib compute it (polynomial 0xEDB88320, reflected), table-driven.
package enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    package static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }
}
