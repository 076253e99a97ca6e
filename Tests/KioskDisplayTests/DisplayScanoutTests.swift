import CardModel
import Glibc
import Testing

@testable import KioskDisplay
@testable import KioskSystem

/// Which back end the options lead to, and `Display` driving a real `FbdevScanout` whose
/// framebuffer is ordinary memory (conversion, damage, rotation, power) through the `Scanout`
/// protocol, plus the two-buffer damage rule over a `MemoryScanout` whose flips complete when
/// the test says so.
@Suite struct DisplayScanoutTests {
    static let cards = ["/dev/dri/card0", "/dev/dri/card1"]

    // MARK: Which back end

    @Test func drmWhenThereIsACardNode() throws {
        let choice = try ScanoutBackEnd.choose(
            options: DisplayOptions(), cardPaths: Self.cards, fileExists: { _ in true })
        #expect(choice == .drm(cardPaths: Self.cards))
    }

    @Test func namedDrmDeviceIsTheOnlyCandidateAndTheCardListIsNotRead() throws {
        var listed = false
        func cards() -> [String] {
            listed = true
            return Self.cards
        }
        let options = DisplayOptions(drmPath: "/dev/dri/card7", fbdevPath: "/dev/fb1")
        let choice = try ScanoutBackEnd.choose(options: options, cardPaths: cards(), fileExists: { _ in true })
        #expect(choice == .drm(cardPaths: ["/dev/dri/card7"]), "--drm wins over --fbdev")
        #expect(!listed)
    }

    @Test func fbdevWhenAskedForOrWhenThereIsNoCard() throws {
        let asked = try ScanoutBackEnd.choose(
            options: DisplayOptions(fbdevPath: "/dev/fb1"), cardPaths: Self.cards, fileExists: { _ in false })
        #expect(asked == .fbdev(path: "/dev/fb1"), "--fbdev is taken even when DRM is there, and not checked first")
        let fallback = try ScanoutBackEnd.choose(
            options: DisplayOptions(), cardPaths: [], fileExists: { $0 == "/dev/fb0" })
        #expect(fallback == .fbdev(path: "/dev/fb0"))
    }

    @Test func neitherCardNorFramebufferSaysWhereItLooked() {
        #expect {
            try ScanoutBackEnd.choose(options: DisplayOptions(), cardPaths: [], fileExists: { _ in false })
        } throws: { error in
            guard case .noDevice(let searched) = error as? DisplayError else { return false }
            return searched == ["/dev/dri/card*", "/dev/fb0"]
        }
    }

    // MARK: fbdev through the protocol

    /// A frame with a distinct value per pixel.
    static func frame(width: Int, height: Int, base: UInt32 = 0) -> PixelBuffer {
        let f = PixelBuffer(width: width, height: height)
        for y in 0..<height { for x in 0..<width { f.setPixel(x: x, y: y, base | UInt32(y << 8 | x)) } }
        return f
    }

    /// The memory framebuffer's XRGB8888 pixel at (x, y).
    static func pixel(_ scanout: FbdevScanout, x: Int, y: Int) -> UInt32 {
        scanout.withTarget { bytes, stride in bytes.load(fromByteOffset: y * stride + x * 4, as: UInt32.self) }
    }

    static func display(_ scanout: FbdevScanout, rotation: Rotation? = nil) throws -> Display {
        try Display(scanout: scanout, rotation: rotation, loop: EventLoop(), takeTerminal: false)
    }

    /// Presents are paced to 60 Hz: wait out one period so the next present may go.
    static func waitOutThePeriod() { usleep(20_000) }

    @Test func fbdevShowsTheFrameTurnedAndCountsItAsAFlip() throws {
        // A 5x3 panel mounted at 90°: the frame is 3 wide, 5 tall; rows padded to 6 pixels.
        let scanout = FbdevScanout(memoryWidth: 5, height: 3, stride: 24, format: .xrgb8888)
        let display = try Self.display(scanout, rotation: .deg90)
        #expect(display.pixelWidth == 3 && display.pixelHeight == 5)
        #expect(display.refreshHz == 60 && !display.hasVblank && display.pacingKind == .immediate)
        var flips: [Instant] = []
        display.onFlip = { flips.append($0) }
        let frame = Self.frame(width: 3, height: 5)
        #expect(display.present(frame, damage: frame.bounds))
        #expect(display.flipCount == 1 && flips.count == 1, "a framebuffer shows at once: no flip event to wait for")
        for y in 0..<5 {
            for x in 0..<3 {
                // Logical (x, y) lands on (H-1-y, x) at 90°.
                #expect(Self.pixel(scanout, x: 4 - y, y: x) == frame.pixel(x: x, y: y), "logical \(x),\(y)")
            }
        }
        display.shutdown()
    }

    @Test func fbdevCopiesOnlyThisFramesDamage() throws {
        let scanout = FbdevScanout(memoryWidth: 4, height: 3, stride: 16, format: .xrgb8888)
        let display = try Self.display(scanout)
        let frame = Self.frame(width: 4, height: 3)
        #expect(display.present(frame, damage: PixelRect(x: 0, y: 0, width: 1, height: 1)), "the first is whole")
        #expect(Self.pixel(scanout, x: 3, y: 2) == frame.pixel(x: 3, y: 2))
        for y in 0..<3 { for x in 0..<4 { frame.setPixel(x: x, y: y, 0x00AB_CDEF) } }
        Self.waitOutThePeriod()
        #expect(display.present(frame, damage: PixelRect(x: 1, y: 1, width: 2, height: 1)))
        for y in 0..<3 {
            for x in 0..<4 {
                let damaged = y == 1 && (x == 1 || x == 2)
                let expected = damaged ? 0x00AB_CDEF : UInt32(y << 8 | x)
                #expect(Self.pixel(scanout, x: x, y: y) == expected, "pixel \(x),\(y)")
            }
        }
        display.shutdown()
    }

    @Test func fbdevConvertsToThePanelFormat() throws {
        let scanout = FbdevScanout(memoryWidth: 2, height: 1, stride: 4, format: .rgb565)
        let display = try Self.display(scanout)
        let frame = PixelBuffer(width: 2, height: 1)
        frame.setPixel(x: 0, y: 0, 0x00FF_0000)
        frame.setPixel(x: 1, y: 0, 0x0000_00FF)
        #expect(display.present(frame, damage: frame.bounds))
        let out = scanout.withTarget { bytes, _ in
            [bytes.load(as: UInt16.self), bytes.load(fromByteOffset: 2, as: UInt16.self)]
        }
        #expect(out == [0xF800, 0x001F])
        display.shutdown()
    }

    @Test func fbdevPowerOffIsBlackAndOnShowsTheLastFrameAgain() throws {
        let scanout = FbdevScanout(memoryWidth: 3, height: 2, stride: 12, format: .xrgb8888)
        let display = try Self.display(scanout)
        let frame = Self.frame(width: 3, height: 2, base: 0x0010_0000)
        #expect(display.present(frame, damage: frame.bounds))
        display.setPower(on: false)
        #expect(!display.isShowing)
        #expect((0..<2).allSatisfy { y in (0..<3).allSatisfy { Self.pixel(scanout, x: $0, y: y) == 0 } })
        Self.waitOutThePeriod()
        #expect(!display.present(frame, damage: frame.bounds), "nothing is shown while off")
        display.setPower(on: true)
        #expect(
            (0..<2).allSatisfy { y in
                (0..<3).allSatisfy { Self.pixel(scanout, x: $0, y: y) == frame.pixel(x: $0, y: y) }
            })
        display.shutdown()
    }

    // MARK: Two buffers

    /// A flip event does not draw the next frame from inside its handler: the frame comes from
    /// the loop after every descriptor poll() found ready with it, so touches that arrived
    /// together with the flip event are in that frame.
    @Test func theFrameAfterAFlipComesFromTheLoopNotFromTheFlipEvent() throws {
        let scanout = MemoryScanout(width: 4, height: 4, vblank: true)
        let loop = EventLoop()
        let display = try Display(scanout: scanout, rotation: nil, loop: loop, takeTerminal: false)
        let frame = PixelBuffer(width: 4, height: 4)
        var frames = 0
        display.onFrame = { _ in
            frames += 1
            display.present(frame, damage: frame.bounds)
        }
        #expect(display.present(frame, damage: frame.bounds))
        display.requestFrame()
        scanout.completeFlip()
        #expect(frames == 0, "drawn inside the flip event's handler")
        loop.runOnce(maxWait: 1)
        #expect(frames == 1)
        #expect(scanout.shown.count == 2)
        display.shutdown()
    }

    /// The display tells apart the frame callbacks that flipped, the presents it refused (a
    /// flip in flight) and the callbacks in which the app presented nothing (its scene changed
    /// no pixel): the vkms scenario checks the first two and reports the third.
    @Test func frameCallbacksThatPresentNothingAndRefusedPresentsAreCounted() throws {
        let scanout = MemoryScanout(width: 4, height: 4, vblank: true)
        let loop = EventLoop()
        let display = try Display(scanout: scanout, rotation: nil, loop: loop, takeTerminal: false)
        let frame = PixelBuffer(width: 4, height: 4)
        var presentInFrame = false
        display.onFrame = { _ in if presentInFrame { display.present(frame, damage: frame.bounds) } }

        display.requestFrame()
        loop.runOnce(maxWait: 1)
        #expect(display.framesDelivered == 1 && display.framesWithNothingToShow == 1 && display.presentsRefused == 0)

        presentInFrame = true
        display.requestFrame()
        loop.runOnce(maxWait: 1)
        #expect(display.framesDelivered == 2 && display.framesWithNothingToShow == 1, "this one presented")
        #expect(scanout.shown.count == 1)
        #expect(!display.present(frame, damage: frame.bounds), "a flip is in flight")
        #expect(display.presentsRefused == 1)
        scanout.completeFlip()
        #expect(display.flipCount == 1)
        display.shutdown()
    }

    /// While something moves, each frame asks pacing once, when it is scheduled: not again in
    /// its `present`, and not for the next frame requested while the flip is in flight. A
    /// `present` outside a delivered frame still asks (and a flip in flight refuses it).
    @Test func pacingIsAskedOncePerFrame() throws {
        let scanout = MemoryScanout(width: 4, height: 4, vblank: true)
        let loop = EventLoop()
        let display = try Display(scanout: scanout, rotation: nil, loop: loop, takeTerminal: false)
        let frame = PixelBuffer(width: 4, height: 4)
        display.onFrame = { _ in
            display.present(frame, damage: frame.bounds)
            display.requestFrame()  // still moving, as the app asks while a scene animates
        }
        display.requestFrame()
        for _ in 0..<5 {
            loop.runOnce(maxWait: 1)
            scanout.completeFlip()
        }
        #expect(display.framesDelivered == 5 && scanout.shown.count == 5 && display.presentsRefused == 0)
        #expect(display.pacingQuestions == 6, "one per frame, the sixth for the frame now scheduled")
        loop.runOnce(maxWait: 1)
        #expect(!display.present(frame, damage: frame.bounds), "outside a frame, with a flip in flight")
        #expect(display.pacingQuestions == 7 && display.presentsRefused == 1)
        display.shutdown()
    }

    @Test func eachBufferGetsTheDamageItMissedAndARefusedOneIsCopiedWhole() throws {
        let scanout = MemoryScanout(width: 4, height: 4, vblank: true)
        let display = try Display(scanout: scanout, rotation: nil, loop: EventLoop(), takeTerminal: false)
        let frame = PixelBuffer(width: 4, height: 4)
        let a = PixelRect(x: 0, y: 0, width: 1, height: 1)
        let b = PixelRect(x: 3, y: 3, width: 1, height: 1)
        let c = PixelRect(x: 2, y: 0, width: 1, height: 1)
        let full = frame.bounds

        #expect(display.present(frame, damage: a))
        #expect(!display.present(frame, damage: b), "one flip in flight at a time")
        scanout.completeFlip()
        #expect(display.present(frame, damage: b))
        scanout.completeFlip()
        #expect(display.present(frame, damage: c))
        scanout.completeFlip()
        #expect(scanout.shown.map(\.index) == [1, 0, 1])
        #expect(scanout.shown.map(\.damage) == [full, full, b.union(c)], "fresh buffers whole, then this ∪ previous")
        #expect(display.flipCount == 3)

        scanout.failure = Errno(EINVAL)
        #expect(!display.present(frame, damage: a))
        scanout.failure = nil
        #expect(display.present(frame, damage: a))
        #expect(
            scanout.shown.last?.index == 0 && scanout.shown.last?.damage == full, "a refused buffer is copied whole")
        display.shutdown()
    }
}
