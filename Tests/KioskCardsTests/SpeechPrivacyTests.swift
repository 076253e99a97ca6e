import Foundation
import Glibc
import Testing

@testable import CardModel
@testable import KioskCards
@testable import KioskDisplay
@testable import KioskSpeech
@testable import KioskSystem

/// `speech-privacy` through the parts the kiosk uses: the real speech worker plays through real
/// ALSA (the `file` plugin) into a named pipe the test holds, so playback lasts exactly as long
/// as the test does not read — the worker blocks in ALSA's write like a real device paces it.
/// The panel is `Display` over an in-memory framebuffer (`FbdevScanout`).
@Suite(.serialized) struct SpeechPrivacyTests {
    static func pixels(_ scanout: FbdevScanout, width: Int, height: Int) -> [UInt32] {
        scanout.withTarget { bytes, stride in
            (0..<height).flatMap { y in
                (0..<width).map { x in bytes.load(fromByteOffset: y * stride + x * 4, as: UInt32.self) }
            }
        }
    }

    /// Runs `loop` until `done` or `seconds` pass; whether `done` came.
    static func run(_ loop: EventLoop, seconds: Double, until done: () -> Bool) -> Bool {
        let end = MonotonicClock.now().advanced(bySeconds: seconds)
        while !done() {
            if MonotonicClock.now() >= end { return false }
            loop.runOnce(maxWait: 0.02)
        }
        return true
    }

    /// Reads the pipe until ALSA has opened it, written into it and closed it again (EOF after
    /// data), running `loop` meanwhile; the bytes read.
    static func listen(_ reader: Int32, _ loop: EventLoop, seconds: Double) -> Int {
        var heard = 0
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let end = MonotonicClock.now().advanced(bySeconds: seconds)
        while MonotonicClock.now() < end {
            let n = read(reader, &chunk, chunk.count)
            if n > 0 {
                heard += n
            } else if n == 0 && heard > 0 {
                break  // EOF: ALSA closed the file
            } else {
                loop.runOnce(maxWait: 0.01)  // empty, or no writer yet
            }
        }
        return heard
    }

    @Test func thePanelIsBlankWhileSpeechPlaysAndComesBackAfter() throws {
        let loop = EventLoop()
        let speech = Speech()
        defer { speech.stop() }
        let fifo = NSTemporaryDirectory() + "kiosk-privacy-\(getpid()).raw"
        unlink(fifo)
        try #require(mkfifo(fifo, 0o600) == 0, "mkfifo \(fifo)")
        defer { unlink(fifo) }
        // Open for reading first (non-blocking), so ALSA's open for writing finds a reader.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        var drained = false
        defer {
            // Whatever failed, let the worker finish (it blocks on the full pipe) before `stop`.
            if !drained { _ = Self.listen(reader, loop, seconds: 30) }
            close(reader)
        }

        let (w, h) = (8, 4)
        let scanout = FbdevScanout(memoryWidth: w, height: h, stride: w * 4, format: .xrgb8888)
        let display = try Display(scanout: scanout, rotation: nil, loop: loop, takeTerminal: false)
        defer { display.shutdown() }
        let frame = PixelBuffer(width: w, height: h)
        for y in 0..<h { for x in 0..<w { frame.setPixel(x: x, y: y, 0x0040_8000 | UInt32(y << 4 | x)) } }
        #expect(display.present(frame, damage: frame.bounds))
        let shown = Self.pixels(scanout, width: w, height: h)
        #expect(shown.allSatisfy { $0 != 0 })

        var redraws = 0
        let token = SpeechPrivacy.watch(speech, loop: loop, display: display, enabled: true) { redraws += 1 }
        defer { loop.remove(token) }
        // About 4 s of audio (≈ 180 kB), far more than the pipe holds (64 KiB).
        let ticket = speech.say(
            "Karte eins. Erste Information. Dieser Satz ist lang genug, dass die Ausgabe einige Sekunden dauert. "
                + "Nein. Ja.", language: "de", to: .alsa(device: "file:FILE=\(fifo),FORMAT=raw"))

        let blanked = Self.run(loop, seconds: 60) { !display.isShowing }
        try #require(blanked, "the panel went off while speaking")
        #expect(speech.speaking, "the worker is still playing: nobody has read the pipe")
        #expect(Self.pixels(scanout, width: w, height: h).allSatisfy { $0 == 0 }, "the frame is black")
        #expect(redraws == 0)
        #expect(ticket.result == nil)

        // The listener takes the audio: playback runs to its end and the panel comes back.
        let heard = Self.listen(reader, loop, seconds: 60)
        drained = true
        let back = Self.run(loop, seconds: 30) { display.isShowing && redraws > 0 }
        try #require(back, "the panel came back after speaking")
        #expect(!speech.speaking)
        #expect(redraws == 1)
        #expect(Self.pixels(scanout, width: w, height: h) == shown, "the frame shows again")
        let audio = try #require(ticket.wait(seconds: 10)).get()
        #expect(heard == audio.samples.count * 2 && heard > 65_536)
    }
}
