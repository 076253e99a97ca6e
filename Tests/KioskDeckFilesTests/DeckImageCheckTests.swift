import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskDeckFiles
@testable import KioskRender
@testable import KioskSystem

/// Image files made in the test: a real PNG from cairo's writer, the fixture JPEG, and damaged
/// or hostile variants of them written byte by byte.
enum ImageBytes {
    /// A real PNG, written by cairo (libpng computes its CRCs).
    static func cairoPNG(width: Int = 32, height: Int = 24, in directory: String) throws -> [UInt8] {
        let path = directory + "/cairo.png"
        try PixelBuffer(width: width, height: height).writePNG(to: path)
        return try FileIO.readAll(path, limit: 1 << 20)
    }

    /// The fixture photo (240×160, written by an ordinary encoder).
    static func fixtureJPEG() throws -> [UInt8] {
        try FileIO.readAll(RenderFixtures.images + "/photo.jpg", limit: 1 << 20)
    }

    /// Where the chunk of `type` starts (its length field), walking the chunks.
    static func offset(of type: String, in png: [UInt8]) -> Int? {
        var at = 8
        while at + 8 <= png.count {
            if Array(png[(at + 4)..<(at + 8)]) == Array(type.utf8) { return at }
            let length = png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            at += 12 + length
        }
        return nil
    }

    /// One PNG chunk with its length and CRC-32.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32(data.count) + typeBytes + data + be32(Int(CRC32.checksum(typeBytes + data)))
    }

    static func be32(_ v: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8),
            UInt8(truncatingIfNeeded: v),
        ]
    }

    /// A well-formed PNG whose header claims `width`×`height` (8-bit grey) but whose IDAT is
    /// a few bytes: a decompression bomb's shape.
    static func bombPNG(width: Int, height: Int) -> [UInt8] {
        let ihdr = be32(width) + be32(height) + [8, 0, 0, 0, 0]
        return ImageFile.pngSignature + chunk("IHDR", ihdr)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
            + chunk("IEND", [])
    }

    /// SOI, a JFIF APP0 segment and EOI: markers but no frame header.
    static let jpegWithoutSOF: [UInt8] =
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [
            0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
        ]
        + [0xFF, 0xD9]
}

@Suite struct DeckImageCheckTests {
    static func check(_ bytes: [UInt8]) -> Result<ImageFile.Info, ImageFile.Problem> {
        ImageFile.check(bytes, jpegSize: ImageFile.jpegSize)
    }

    static func problem(_ bytes: [UInt8]) -> ImageFile.Problem? {
        if case .failure(let p) = check(bytes) { return p }
        return nil
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func validPNGAndJPEGPassWithTheirSizes() throws {
        let dir = DeckFixtures.temporaryDirectory("imagecheck")
        defer { DeckFixtures.removeTree(dir) }
        let png = try ImageBytes.cairoPNG(width: 32, height: 24, in: dir)
        #expect(try Self.check(png).get() == ImageFile.Info(format: .png, width: 32, height: 24))
        #expect(
            try Self.check(ImageBytes.fixtureJPEG()).get() == ImageFile.Info(format: .jpeg, width: 240, height: 160))
        let fixturePNG = try FileIO.readAll(RenderFixtures.images + "/photo.png", limit: 1 << 20)
        #expect(try Self.check(fixturePNG).get() == ImageFile.Info(format: .png, width: 240, height: 160))
    }

    @Test func truncatedPNGIsCutShort() throws {
        let dir = DeckFixtures.temporaryDirectory("imagecheck")
        defer { DeckFixtures.removeTree(dir) }
        let png = try ImageBytes.cairoPNG(in: dir)
        for cut in [png.count - 1, png.count - 12, png.count / 2, 20, 8] {
            let p = try #require(Self.problem(Array(png.prefix(cut))), "cut at \(cut) passed")
            #expect(p.kind == .corrupt)
            #expect(p.reason.contains("cut short"), "\(p.reason)")
        }
    }

    @Test func badCRCIsNamedWithItsChunk() throws {
        let dir = DeckFixtures.temporaryDirectory("imagecheck")
        defer { DeckFixtures.removeTree(dir) }
        var png = try ImageBytes.cairoPNG(in: dir)
        let idat = try #require(ImageBytes.offset(of: "IDAT", in: png))
        png[idat + 8 + 2] ^= 0x10  // one bit inside IDAT's data
        let p = try #require(Self.problem(png))
        #expect(p.kind == .corrupt)
        #expect(p.reason.contains("chunk 'IDAT' at byte \(idat) fails its CRC check"), "\(p.reason)")
        #expect(p.reason.contains("copy it again"))
    }

    @Test func headerRulesAreChecked() throws {
        let dir = DeckFixtures.temporaryDirectory("imagecheck")
        defer { DeckFixtures.removeTree(dir) }
        let png = try ImageBytes.cairoPNG(in: dir)
        let afterIHDR = Array(png[33...])
        let badDepth =
            ImageFile.pngSignature
            + ImageBytes.chunk("IHDR", ImageBytes.be32(4) + ImageBytes.be32(4) + [3, 2, 0, 0, 0]) + afterIHDR
        #expect(Self.problem(badDepth)?.reason.contains("colour type 2 with bit depth 3") == true)
        let zeroWide =
            ImageFile.pngSignature
            + ImageBytes.chunk("IHDR", ImageBytes.be32(0) + ImageBytes.be32(4) + [8, 2, 0, 0, 0]) + afterIHDR
        #expect(Self.problem(zeroWide)?.reason.contains("size of 0×4") == true)
        let noIHDR = ImageFile.pngSignature + Array(png[33...])
        #expect(Self.problem(noIHDR)?.reason.contains("not IHDR") == true)
    }

    @Test(arguments: [
        (12000, 12000, "12000×12000 pixels (144 MP)"), (100_000, 100_000, "100000×100000 pixels (10000 MP)"),
    ])
    func hugeHeaderIsRefusedWithItsSize(_ width: Int, _ height: Int, _ words: String) throws {
        let p = try #require(Self.problem(ImageBytes.bombPNG(width: width, height: height)))
        #expect(p.kind == .tooLarge)
        #expect(p.reason == "is \(words); the limit is 16 MP — scale it down")
    }

    @Test func jpegWithoutFrameHeaderOrEndIsRefused() throws {
        let noSOF = try #require(Self.problem(ImageBytes.jpegWithoutSOF))
        #expect(noSOF.kind == .corrupt)
        #expect(noSOF.reason.contains("frame header (SOF)"), "\(noSOF.reason)")
        let jpeg = try ImageBytes.fixtureJPEG()
        let cut = try #require(Self.problem(Array(jpeg.prefix(jpeg.count - 200))))
        #expect(cut.reason.contains("no end marker (EOI)"), "\(cut.reason)")
    }

    // MARK: - check-deck: each problem at the image field's line:column

    /// A one-card deck in a fresh folder whose card shows `image` with `bytes`.
    static func deck(image name: String, bytes: [UInt8], in dir: String) -> String {
        DeckFixtures.writeBytes(bytes, to: dir + "/" + name)
        let path = dir + "/deck.json"
        DeckFixtures.write(
            """
            {
              "id": "images",
              "version": 1,
              "title": "Images",
              "layout": "stack",
              "cards": [
                { "id": "a", "title": "A", "color": "#000000", "image": "\(name)" }
              ]
            }
            """, to: path)
        return path
    }

    @Test func checkDeckAcceptsJPEGAndPNG() throws {
        let dir = DeckFixtures.temporaryDirectory("imagedeck")
        defer { DeckFixtures.removeTree(dir) }
        let jpegDeck = Self.deck(image: "photo.jpg", bytes: try ImageBytes.fixtureJPEG(), in: dir)
        #expect(try DeckLoader.load(path: jpegDeck).get().cards[0].imagePath == dir + "/photo.jpg")
        let pngDeck = Self.deck(image: "photo.png", bytes: try ImageBytes.cairoPNG(in: dir), in: dir)
        #expect(try DeckLoader.load(path: pngDeck).get().cards[0].imagePath == dir + "/photo.png")
    }

    @Test func checkDeckNamesEachBadImageAtItsField() throws {
        let dir = DeckFixtures.temporaryDirectory("imagedeck")
        defer { DeckFixtures.removeTree(dir) }
        let png = try ImageBytes.cairoPNG(in: dir)
        var badCRC = png
        badCRC[try #require(ImageBytes.offset(of: "IDAT", in: png)) + 10] ^= 0x10
        let cases: [(String, [UInt8], DeckProblem.Kind, String)] = [
            ("cut.png", Array(png.prefix(png.count - 5)), .corruptImage, "cut short"),
            ("crc.png", badCRC, .corruptImage, "fails its CRC check"),
            (
                "photo.png", ImageBytes.bombPNG(width: 12000, height: 12000), .imageTooLarge,
                "photo.png (\(dir)/photo.png) is 12000×12000 pixels (144 MP); the limit is 16 MP — scale it down"
            ),
            ("nosof.jpg", ImageBytes.jpegWithoutSOF, .corruptImage, "frame header (SOF)"),
        ]
        for (name, bytes, kind, words) in cases {
            let path = Self.deck(image: name, bytes: bytes, in: dir)
            guard case .failure(let problems) = DeckLoader.load(path: path) else {
                Issue.record("\(name) was accepted")
                continue
            }
            let p = try #require(problems.problems.first)
            #expect(p.kind == kind, "\(name)")
            #expect(p.path == "cards[0].image")
            #expect(p.position == TextPosition(line: 7, column: 61), "\(name)")
            #expect(p.message.contains(words), "\(p.message)")
            #expect(p.formatted(file: "deck.json").hasPrefix("deck.json:7:61: error: cards[0].image: "))
        }
    }

    @Test func checkDeckRefusesAnImageFileOverTheByteLimitWithoutReadingIt() throws {
        let dir = DeckFixtures.temporaryDirectory("imagedeck")
        defer { DeckFixtures.removeTree(dir) }
        let path = Self.deck(image: "huge.png", bytes: ImageFile.pngSignature, in: dir)
        // A sparse file: 65 MB long, no disk used.
        #expect(truncate(dir + "/huge.png", 65 << 20) == 0)
        guard case .failure(let problems) = DeckLoader.load(path: path) else {
            Issue.record("a 65 MB image was accepted")
            return
        }
        let p = try #require(problems.problems.first)
        #expect(p.kind == .imageTooLarge)
        #expect(p.message.contains("is 65 MB; the limit is 64 MB"), "\(p.message)")
    }

    // MARK: - render: refused before decoding

    @Test func renderRefusesABombWithItsSizeBeforeDecoding() throws {
        let dir = DeckFixtures.temporaryDirectory("imagebomb")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/photo.png"
        DeckFixtures.writeBytes(ImageBytes.bombPNG(width: 12000, height: 12000), to: path)
        guard case .failure(let e) = ImageCache.decode(path: path, maxDimension: 1024) else {
            Issue.record("a 144 MP image was decoded")
            return
        }
        // Only the header check speaks in these words; a decode attempt would fail otherwise.
        #expect(e.description == "image '\(path)' is 12000×12000 pixels (144 MP); the limit is 16 MP — scale it down")
    }

    @Test func renderRefusesCorruptFilesAndStillDecodesGoodOnes() throws {
        let dir = DeckFixtures.temporaryDirectory("imagebomb")
        defer { DeckFixtures.removeTree(dir) }
        var png = try ImageBytes.cairoPNG(width: 40, height: 30, in: dir)
        let good = try ImageCache.decode(path: dir + "/cairo.png", maxDimension: 1024).get()
        #expect(good.width == 40 && good.height == 30)
        png[try #require(ImageBytes.offset(of: "IDAT", in: png)) + 10] ^= 0x10
        DeckFixtures.writeBytes(png, to: dir + "/crc.png")
        guard case .failure(let e) = ImageCache.decode(path: dir + "/crc.png", maxDimension: 1024) else {
            Issue.record("a PNG with a bad CRC was decoded")
            return
        }
        #expect(e.description.contains("fails its CRC check"), "\(e)")
    }
}
