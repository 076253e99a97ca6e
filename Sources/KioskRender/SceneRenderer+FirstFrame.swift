import CardModel
import KioskSystem

/// A whole first frame drawn on two threads: the images the first `render` of a scene would
/// draw one after another are drawn ahead, the covered cards' bare images (fills and shadows,
/// no text: `SceneRenderer+Covered.swift`) on a thread of their own while this thread draws
/// the rest (the top card, its text and photo), then cached, so that `render` only composes.
/// On a resting 1920×1080 stack the three covered cards were about half the first render's
/// instructions, and their page faults (each new image is fresh memory) the same share of its
/// time.
extension SceneRenderer {
    /// One image `render(scene)` would draw: its key, scale and hole, as `rebuildLayer` and
    /// `placed` choose them.
    struct AheadImage {
        var key: SurfaceCache.Key
        var pixelsPerPoint: Double
        var hole: PixelRect
        /// A covered card's bare image: no text, so it may be drawn on another thread.
        var bare: Bool
    }

    /// Draws the images `render(scene)` would draw into the cache, the covered cards' on a
    /// second thread, and returns how many it drew. For a renderer without a preparation thread
    /// (the bench's probe, `render`), before the scene's first frame: the frame then draws the
    /// same pixels (`RenderFirstFrameTests`). With a preparation thread it does nothing: the app
    /// shows stand-ins until that thread has drawn the cards.
    @discardableResult
    package func drawImagesAhead(of scene: Scene) -> Int {
        guard preparer == nil else { return 0 }
        background = scene.background
        let wanted = imagesAhead(of: scene)
        let bare = wanted.filter(\.bare)
        let painter = ElementPainter(background: scene.background, images: images)
        let helper = bare.isEmpty ? nil : OtherThread { Self.drawBare(bare, painter: painter) }
        let frameStart = surfaces.now
        var drawn = 0
        for w in wanted where !w.bare {
            if draw(w.key, pixelsPerPoint: w.pixelsPerPoint, frameStart: frameStart) != nil { drawn += 1 }
        }
        let drawnBare = helper?.join() ?? []
        for (w, result) in zip(bare, drawnBare) {
            switch result {
            case .whole(let image): surfaces.insert(image, for: w.key, imagePending: nil, protectedSince: frameStart)
            case .framed(let framed):
                surfaces.insert(framed: framed, for: w.key, imagePending: nil, protectedSince: frameStart)
            case nil: continue
            }
            drawn += 1
        }
        return drawn
    }

    /// The images `rebuildLayer` would draw for the still elements of a first frame of `scene`
    /// (every element is still in a first frame), bottom to top, leaving out cached ones.
    func imagesAhead(of scene: Scene) -> [AheadImage] {
        let elements = scene.elements
        var wanted: [AheadImage] = []
        var seen: Set<SurfaceCache.Key> = []
        for (i, element) in elements.enumerated() where element.opacity > 0 {
            let covered =
                skipsCoveredContents
                && Self.contentsCovered(elements, at: i, scale: scale, background: scene.background)
            let (whole, k) = cacheKey(element)
            var ahead = AheadImage(key: whole, pixelsPerPoint: k, hole: .empty, bare: false)
            if covered, !surfaces.contains(whole), let bare = Self.bareKey(whole) {
                // Drawn without a preparation thread, a covered card is kept framed
                // (`rebuildLayer`): the hole the card above covers is left out.
                let hole = keepsCoveredFramed ? coveredHole(elements, at: i) : .empty
                ahead = AheadImage(key: bare, pixelsPerPoint: k, hole: hole, bare: true)
            }
            guard !surfaces.contains(ahead.key), seen.insert(ahead.key).inserted else { continue }
            wanted.append(ahead)
        }
        return wanted
    }

    /// A bare image drawn ahead: whole, or framed around its hole.
    enum AheadResult {
        case whole(ElementImage)
        case framed(FramedImage)
    }

    /// Bare images (no text, no photo), drawn on any thread, framed where they have a hole;
    /// nil where one cannot be allocated.
    private static func drawBare(_ wanted: [AheadImage], painter: ElementPainter) -> [AheadResult?] {
        wanted.map { w in
            let (kind, size, radius) = (w.key.kind, w.key.size, Double(w.key.shadowRadius))
            if !w.hole.isEmpty {
                return ElementSurface.renderFramed(
                    kind, size: size, shadowRadius: radius, pixelsPerPoint: w.pixelsPerPoint, painter: painter,
                    hole: w.hole
                ).map(AheadResult.framed)
            }
            return ElementSurface.render(
                kind, size: size, shadowRadius: radius, pixelsPerPoint: w.pixelsPerPoint, painter: painter
            ).map(AheadResult.whole)
        }
    }
}

/// Work on a thread of its own whose result is waited for (`join`); done by `join` itself
/// when no thread can be started.
private final class OtherThread: @unchecked Sendable {
    private let body: () -> [SceneRenderer.AheadResult?]
    private var result: [SceneRenderer.AheadResult?]?
    private var thread: HelperThread?

    init(_ body: @escaping () -> [SceneRenderer.AheadResult?]) {
        self.body = body
        thread = try? HelperThread { [self] in result = self.body() }
    }

    /// The result, once the thread has finished.
    func join() -> [SceneRenderer.AheadResult?] {
        thread.take()?.join()
        if let result { return result }
        let r = body()
        result = r
        return r
    }
}
