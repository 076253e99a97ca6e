import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskRender

/// QR codes drawn at their size on the glass and read back by zbar (`zbarimg`, Debian's
/// zbar-tools): the decoder is not the encoder, so a code that scans is a code that scans.
@Suite struct QRCodeTests {
    static let link = "https://example.org/kiosk/visit?id=lobby-1&step=done"

    @Test(TestRequirement.zbarimg.trait, arguments: ["pi-7inch", "touch-display-2-7"])
    func aCodeDrawnAtTwentyFiveMillimetresDecodesToItsLink(panelName: String) throws {
        let panel = try #require(PanelPreset.named(panelName))
        let pixels = panel.logicalPixels
        let mm = panel.logicalMillimetres
        let perMM = Double(pixels.width) / mm.width
        let code = try #require(QRCode(Self.link))
        let module = code.pixelsPerModule(millimetres: 25, pixelsPerMillimetre: perMM)
        let side = code.sideWithQuietZone * module
        #expect(Double(side) / perMM >= 25, "\(panelName): \(Double(side) / perMM) mm")
        #expect(side <= min(pixels.width, pixels.height), "\(panelName): the code does not fit")
        // On a dark screen, as the darkest theme draws around it.
        let buffer = PixelBuffer(width: pixels.width, height: pixels.height)
        code.paint(into: buffer, x: (pixels.width - side) / 2, y: (pixels.height - side) / 2, module: module)
        let dir = DeckFixtures.temporaryDirectory("qr")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/\(panelName).png"
        try buffer.writePNG(to: path)
        let (status, out) = try TestProcess.run("/usr/bin/zbarimg", ["--raw", "-q", path])
        #expect(status == 0, "\(panelName): zbarimg: \(out)")
        // zbarimg may add a line about D-Bus on stderr (merged here); the decoded text is a line.
        #expect(out.split(separator: "\n").contains { $0 == Self.link }, "\(panelName): \(out)")
    }

    @Test func emptyAndOversizedTextsHaveNoCode() {
        #expect(QRCode("") == nil)
        #expect(QRCode(String(repeating: "a", count: 3000)) == nil)
        #expect(QRCode("https://example.org")?.size == 25)
    }
}
