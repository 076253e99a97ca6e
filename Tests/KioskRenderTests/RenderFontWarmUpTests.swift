import CPangoCairo
import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskRender
@testable import KioskSystem

/// Fonts prepared on a thread of their own (`FontWarmUp`): a thread that takes the warmed font
/// map draws every card as a thread with a font map of its own does, byte for byte, in every
/// script the tests cover (Latin, Arabic mirrored, Japanese and Chinese with colour emoji), and
/// only one thread takes it.
@Suite struct RenderFontWarmUpTests {
    static let size = Size(width: 320, height: 440)

    static let cards: [(ElementKind, String)] =
        BuiltInCards.stack.map { (ElementKind.card($0), $0.id) } + [
            (
                ElementKind.card(
                    Card(
                        id: "ar", title: "مرحبا بكم في المعرض", subtitle: "اسحب إلى اليمين للمتابعة، 3 بطاقات",
                        color: Color(rgb: 0x20406A))
                ).mirrored, "ar"
            ),
            (
                .card(
                    Card(
                        id: "cjk", title: RenderFixtures.cjkEmoji.title, subtitle: RenderFixtures.cjkEmoji.subtitle,
                        color: Color(rgb: 0x5E2750))), "cjk"
            ),
        ]

    /// Runs `body` on a new thread, which starts with no pango font map of its own, and waits for it.
    static func onNewThread<T>(_ body: @escaping () -> T) -> T {
        let box = NewThreadJob { body() as Any }
        do {
            let thread = try HelperThread { box.result = box.body() }
            thread.join()
        } catch {
            preconditionFailure("\(error)")
        }
        return box.result as! T
    }

    /// Each card drawn at `k` pixels per point with this thread's font map, as bytes.
    static func drawAll(k: Double) -> [[UInt32]] {
        cards.map { kind, _ in
            guard
                let e = ElementSurface.render(
                    kind, size: size, shadowRadius: 8, pixelsPerPoint: k, painter: ElementPainter(background: .white),
                    masks: ShadowMasks(capacity: 1))
            else { return [] }
            let image = e.image
            var pixels: [UInt32] = []
            for y in 0..<image.height {
                let row = image.data.advanced(by: y * image.stride).assumingMemoryBound(to: UInt32.self)
                pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: image.width))
            }
            return pixels
        }
    }

    @Test(arguments: [1.8, 0.8])
    func aThreadThatTakesTheWarmedFontsDrawsTheSamePixels(k: Double) throws {
        let expected = Self.onNewThread { Self.drawAll(k: k) }
        let warmUp = FontWarmUp()
        warmUp.start(pixelsPerPoint: k)
        let (took, got) = Self.onNewThread { (warmUp.adopt(), Self.drawAll(k: k)) }
        #expect(took)
        for (i, (_, id)) in Self.cards.enumerated() {
            #expect(!got[i].isEmpty && got[i] == expected[i], "\(id) at \(k) px/pt")
        }
    }

    @Test func onlyTheFirstThreadTakesTheFontMap() {
        let warmUp = FontWarmUp()
        #expect(!warmUp.adopt(), "nothing to take before start")
        warmUp.start(pixelsPerPoint: nil)
        warmUp.start(pixelsPerPoint: 2)
        #expect(Self.onNewThread { warmUp.adopt() })
        #expect(!Self.onNewThread { warmUp.adopt() })
        #expect(!warmUp.adopt())
    }
}

/// `RenderFontWarmUpTests.onNewThread`'s work and its result.
private final class NewThreadJob: @unchecked Sendable {
    let body: () -> Any
    var result: Any?
    init(_ body: @escaping () -> Any) { self.body = body }
}
