import CardModel
import Glibc
import KioskSystem

/// Turns CardModel scenes into pixels, redrawing only what changed.
///
/// Three caches make a drag frame cheap:
/// - every element is drawn once (cairo + pango, shadow pre-blurred) into an image kept in a
///   bounded LRU (`SurfaceCache`);
/// - the still part of the screen — background and the elements below the lowest moving one —
///   is kept as a layer;
/// - a frame restores the damaged rectangle from that layer and places the moving elements'
///   images over it (bilinear when turned), in one pass over the memory.
///
/// Usage from the app loop: call `render(_:into:)` with each new scene and the same buffer;
/// copy the returned rectangle to the scanout buffer. `.empty` means nothing changed: no
/// pixel was touched, nothing needs copying or flipping.
package final class SceneRenderer {
    /// Counters for tests and the benchmark.
    package struct Stats: Equatable {
        var frames = 0
        /// Frames that wrote pixels.
        var drawnFrames = 0
        var layerRebuilds = 0
        var surfaceRenders = 0
        /// Pixels inside the damaged rectangles written.
        var pixelsWritten = 0
        /// Frames that showed a stand-in for an element the preparation thread was still drawing.
        package var placeholderFrames = 0
        /// Frames in which a moving element left pixels undrawn that one drawn later covers
        /// opaquely (`Compositor.Hidden`).
        var framesWithHidden = 0
    }

    /// What a frame did beyond restoring the layer and placing cached images: the bench names
    /// its worst frames by it (`bench --worst`).
    package struct FrameWork: OptionSet, Sendable, Hashable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// Images the preparation thread finished replaced stand-ins the screen showed.
        package static let adoptedPrepared = FrameWork(rawValue: 1 << 0)
        /// The whole screen was drawn (a first frame, another buffer, or after `invalidate`).
        package static let wholeScreen = FrameWork(rawValue: 1 << 1)
        /// The still layer was drawn again.
        package static let layerRebuilt = FrameWork(rawValue: 1 << 2)
        /// An element's image was drawn with cairo in the frame (not a stand-in).
        package static let imageDrawn = FrameWork(rawValue: 1 << 3)
        /// A stand-in was drawn with cairo in the frame (a card's colour without text).
        package static let standInDrawn = FrameWork(rawValue: 1 << 4)
        /// A stand-in already cached was shown.
        package static let standInShown = FrameWork(rawValue: 1 << 5)
        /// Nothing changed: no pixel written.
        package static let unchanged = FrameWork(rawValue: 1 << 6)
        /// A detail page not yet prepared was shown as a flat fill of its colour (no image).
        package static let flatStandIn = FrameWork(rawValue: 1 << 7)
        /// A swipe stamp not yet drawn by the preparation thread was left out while faint
        /// (`leavesOutStamp`).
        package static let stampLeftOut = FrameWork(rawValue: 1 << 8)

        /// Each kind with its name, most costly first (`bench --worst` prints these).
        package static let names: [(FrameWork, String)] = [
            (.adoptedPrepared, "prepared images arrived"), (.wholeScreen, "whole screen"),
            (.layerRebuilt, "still layer rebuilt"), (.imageDrawn, "image drawn in the frame"),
            (.standInDrawn, "stand-in drawn"), (.standInShown, "stand-in shown"), (.flatStandIn, "flat stand-in"),
            (.stampLeftOut, "stamp left out"), (.unchanged, "unchanged"),
        ]

        /// "still layer rebuilt, stand-in drawn"; "composed" when the frame only restored the
        /// layer and placed cached images.
        package var description: String {
            let parts = Self.names.filter { contains($0.0) }.map(\.1)
            return parts.isEmpty ? "composed" : parts.joined(separator: ", ")
        }
    }

    let pixelWidth: Int
    let pixelHeight: Int
    /// Pixels per point.
    let scale: Double
    package let images: ImageCache?
    /// Where cards and detail pages are drawn when there is one: off the frame loop.
    package let preparer: ElementPreparer?
    package internal(set) var stats = Stats()
    /// What the last `render` call did, and the pixels it wrote.
    package internal(set) var lastFrame = FrameWork()
    package private(set) var lastFramePixels = 0
    /// The compositor's pixel loops (SIMD or scalar: identical pixels; tests compare them).
    package var kernel = Compositor.Kernel.standard
    /// Keep the still layer as a whole screen, as before it held only the box of still
    /// elements (the same pixels; tests compare the two).
    var wholeScreenLayer = false
    /// Images the preparation thread is drawing for which a frame showed a stand-in.
    var standInsShown: Set<SurfaceCache.Key> = []
    var frameUsedStandIn = false
    /// Where elements that showed stand-ins get their prepared images: damaged in the next frame.
    private var adoptedDamage = PixelRect.empty
    /// Images that replaced a stand-in were taken in since the last frame (`takeInPrepared`).
    private var adoptedSinceFrame = false
    /// Images `prepare` asked the preparation thread for that no frame has shown yet: what
    /// `discardPreparedAhead` drops (a list's detail page once the touch became a swipe).
    private var preparedAhead: Set<SurfaceCache.Key> = []
    /// Discarded while the thread was drawing them: dropped when they arrive.
    var discardedInFlight: Set<SurfaceCache.Key> = []
    /// The swipe stamps asked for and the one the screen shows (`SceneRenderer+Stamps`).
    var stamps = StampMemory()

    var surfaces: SurfaceCache
    /// The bounds for a stack and for a list; nil when the caller fixed one (`cacheBytes`).
    package let budgets: (stack: Int, list: Int)?
    let layer: StillLayer
    /// The current scene's elements above the still layer, bottom first (`takeIn`).
    var moving: [MovingElement] = []
    /// When the current scene was taken in (images placed since are kept through its composes).
    private var currentFrameStart = 0
    /// The band buffer `compose(_:bandRows:_:)` draws into, and its size in pixels.
    var band: UnsafeMutablePointer<UInt32>?
    var bandCapacity = 0
    /// What each moving element was last placed with, by id: kept while it moves.
    var shownPlacements: [String: (SceneElement, [SceneRenderer.Moving])] = [:]
    /// Turned images' sample bounds, measured once per scene taken in (`sampleBounds(of:at:)`).
    var measuredBounds: [ObjectIdentifier: Compositor.SampleBounds] = [:]
    /// The stamp blended into its card's image (`fuseStamps`), applied while a drag shows it;
    /// nil without one.
    var stampedCard: StampedCard?
    /// Fill the band buffer with garbage before each band (tests: a pixel a compose leaves
    /// unwritten shows).
    var poisonsBands = false
    /// The elements (bottom of the z-order) baked into `layer` on `layerBackground`; nil: none.
    private var layerElements: [SceneElement]?
    private var layerBackground: Color?
    private var previous: Scene?
    private var lastTarget: UInt64?
    private var imageGeneration = -1

    /// - Parameters:
    ///   - pixelWidth, pixelHeight: the buffer size frames are drawn into.
    ///   - scale: pixels per point (see `RenderScale`).
    ///   - images: where card photos come from; nil draws placeholders.
    ///   - cacheBytes: bound on the element images kept (the LRU evicts beyond it); nil: what
    ///     the panel can show at once of the deck shown, a stack or a list
    ///     (`SurfaceCache.budget`, chosen by `showsList`).
    ///   - preparer: draws cards and detail pages off this thread; a frame that needs one not
    ///     yet drawn shows a stand-in (the same card at another shadow or scale, else its
    ///     colour without text) and the frame after the image arrives shows it. nil: drawn here.
    package init(
        pixelWidth: Int, pixelHeight: Int, scale: Double, images: ImageCache? = nil, cacheBytes: Int? = nil,
        preparer: ElementPreparer? = nil
    ) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
        self.images = images
        self.preparer = preparer
        let budgets = SurfaceCache.budget(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale)
        self.budgets = cacheBytes == nil ? budgets : nil
        // Until a scene says which deck it shows, the larger.
        self.surfaces = SurfaceCache(maxBytes: cacheBytes ?? max(budgets.stack, budgets.list), maxCount: 16)
        self.layer = StillLayer(width: pixelWidth, height: pixelHeight)
    }

    deinit { band?.deallocate() }

    /// The bound on `cachedBytes` now: the budget of the deck last shown.
    package var cacheBudget: Int { surfaces.maxBytes }
    /// Bytes held by cached element images now.
    package var cachedBytes: Int { surfaces.bytes }
    /// The most bytes cached element images ever held at once.
    package var cachedBytesPeak: Int { surfaces.peakBytes }
    /// Bytes of the still layer's pixels (its box of still elements and one background row).
    package var layerBytes: Int { layer.bytes }
    /// Bytes of the blurred shadow masks kept for reuse (shared by every renderer).
    package static var shadowMaskBytes: Int { ShadowMasks.shared.bytes }
    var cachedSurfaces: Int { surfaces.count }
    /// The kinds of the cached element images (a bare card has no title).
    var cachedKinds: [ElementKind] { surfaces.entries.keys.map(\.kind) }
    /// How many cached images are kept framed (a covered card without what the card above hides).
    var cachedFramed: Int { surfaces.entries.values.filter { $0.framed != nil }.count }
    /// The cached element images, least recently used first: key, bytes, whether kept framed
    /// and the use counter of their last use (compare with `cacheClock`).
    var cacheContents: [(key: SurfaceCache.Key, bytes: Int, framed: Bool, lastUse: Int)] {
        surfaces.entries.map { ($0.key, $0.value.byteCount, $0.value.framed != nil, $0.value.lastUse) }.sorted {
            $0.3 < $1.3
        }
    }
    /// The cache's use counter now.
    var cacheClock: Int { surfaces.now }

    /// Draws `element`'s image into the cache now, if it is not there, so a later frame that
    /// shows it costs only its placement. Call it when idle, e.g. with the top card as it
    /// will look once dragged (shadow 18), so the first drag frame does not draw a card.
    /// With a preparer this only queues the image (ahead of need, after what frames need now).
    package func prepare(_ element: SceneElement, background: Color) {
        framePendingCovered()
        self.background = background
        if let preparer, Self.drawnAhead(element.kind) || Self.preparedOffTheLoop(element.kind) {
            let (key, k) = cacheKey(element)
            discardedInFlight.remove(key)
            if !surfaces.contains(key), preparer.request(key, pixelsPerPoint: k, images: images, urgent: false) {
                // Forgotten (not dropped) beyond a bound: the cache's LRU still bounds the bytes.
                if preparedAhead.count >= 64 { preparedAhead.removeAll() }
                preparedAhead.insert(key)
            }
            return
        }
        _ = placed(element, frameStart: surfaces.now)
    }

    /// Drops what `prepare` asked for that no frame has shown since: queued images are not
    /// drawn, finished ones leave the cache, one being drawn is dropped when it arrives. The
    /// app calls it when the deck no longer lists anything to prepare (a list whose touch
    /// scrolled or swiped instead of tapping the row whose detail page was prepared).
    package func discardPreparedAhead() {
        guard !preparedAhead.isEmpty else { return }
        for key in preparedAhead {
            if surfaces.remove(key) { continue }
            // Being drawn, or finished and not yet taken in.
            if let preparer, !preparer.cancel(key) { discardedInFlight.insert(key) }
        }
        preparedAhead.removeAll()
    }

    /// Whether `element`'s image is cached (drawn or prepared) as a frame would show it now.
    package func isCached(_ element: SceneElement, background: Color) -> Bool {
        let saved = self.background
        self.background = background
        defer { self.background = saved }
        return surfaces.contains(cacheKey(element).0)
    }

    /// Kinds worth drawing on the preparation thread: whole cards and pages (text, gradient,
    /// photo, a large shadow) and the card-sized stamps of a drag (their text layout cost a
    /// drag frame 35–50 ms in the emulated VM). Rows, bars and labels are cheap and drawn in
    /// the frame.
    static func drawnAhead(_ kind: ElementKind) -> Bool {
        switch kind.unmirrored {
        case .card, .detailPage, .stamp, .linkCode: true
        default: false
        }
    }

    /// Kinds drawn in the frame when a frame needs them first, but on the preparation thread
    /// when prepared ahead: the controls with text a detail page opens with (their layout
    /// was most of the frame that opens a prepared page).
    static func preparedOffTheLoop(_ kind: ElementKind) -> Bool {
        switch kind.unmirrored {
        case .button, .wordButton: true
        default: false
        }
    }

    /// Whether the screen shows a stand-in for an image the preparation thread is drawing: when
    /// it finishes, the next frame changes (the app asks for one only then).
    package var isShowingStandIns: Bool { !standInsShown.isEmpty }

    /// Takes in what the preparation thread finished. Where the previous frame showed a
    /// stand-in for one of them, the element is drawn again — only its rectangle
    /// (`adoptedDamage`), and the still layer only if the element is baked in it: the rest of
    /// the screen is what it was. (Drawing the whole screen again, as before, was the costliest
    /// frame of a stack visit's close-up after a swipe, `bench --worst`.)
    @discardableResult
    private func adoptPrepared(_ preparer: ElementPreparer) -> Bool {
        var replaced: Set<SurfaceCache.Key> = []
        for done in preparer.takeFinished() {
            if discardedInFlight.remove(done.key) != nil { continue }
            guard let image = done.image else { continue }
            surfaces.insert(image, for: done.key, imagePending: done.imagePending, protectedSince: surfaces.now)
            dropBare(of: done.key)
            if standInsShown.remove(done.key) != nil { replaced.insert(done.key) }
        }
        guard !replaced.isEmpty else { return false }
        adoptedSinceFrame = true
        guard let previous else { return true }
        for e in previous.elements where shows(e, oneOf: replaced) {
            adoptedDamage = adoptedDamage.union(pixels(e.bounds))
        }
        if let baked = layerElements, baked.contains(where: { shows($0, oneOf: replaced) }) {
            layerElements = nil
        }
        return true
    }

    /// Takes in what the preparation thread finished, between frames: the app's loop calls it
    /// when the thread signals. Each image goes into the cache as it arrives, which evicts down
    /// to its budget, rather than waiting beside the cache for the next frame: a resting stack
    /// prepares about six card images at once (13 MB at 1920×1080), and a kiosk can rest for
    /// hours. Returns whether one replaced a stand-in the screen shows (the next frame differs).
    @discardableResult
    package func takeInPrepared() -> Bool {
        guard let preparer else { return false }
        return adoptPrepared(preparer)
    }

    /// Blocks until the preparation thread has nothing queued or being drawn, taking each image
    /// in as it finishes, as the app's loop does (tests, the bench's idle moments), at most
    /// `seconds`; whether it got there.
    @discardableResult
    package func waitForPrepared(seconds: Double = 30) -> Bool {
        guard let preparer else { return true }
        let idle = preparer.waitUntilIdle(seconds: seconds) { self.takeInPrepared() }
        takeInPrepared()
        return idle
    }

    /// Whether `element`'s image, whole or bare, is one of `keys`.
    private func shows(_ element: SceneElement, oneOf keys: Set<SurfaceCache.Key>) -> Bool {
        let key = cacheKey(element).0
        return keys.contains(key) || Self.bareKey(key).map { keys.contains($0) } == true
    }

    /// Forgets what the target holds: the next frame is drawn whole.
    package func invalidate() {
        previous = nil
        layerElements = nil
    }

    /// Draws `scene` into `target`, which must hold the previous frame this renderer drew
    /// (another buffer, or a first call, draws the whole screen): `takeIn`, then `compose` of
    /// the damage into `target`. Returns the pixels written, `.empty` when nothing changed.
    @discardableResult
    package func render(_ scene: Scene, into target: PixelBuffer) -> PixelRect {
        precondition(target.width == pixelWidth && target.height == pixelHeight, "buffer size differs from renderer")
        let damage = takeIn(scene, whole: lastTarget != target.identity)
        lastTarget = target.identity
        if !damage.isEmpty { compose(damage, into: target) }
        return damage
    }

    /// Takes `scene` in as the current scene: what changed since the last one (the damage),
    /// the still layer rebuilt if it must be, and which image goes where. Nothing is drawn
    /// into a frame: `compose` draws any region of the current scene where it is wanted (the
    /// app: band by band, straight into the scanout buffer). Returns the pixels that differ
    /// from the previous scene's (everything for a first scene or after `invalidate`),
    /// `.empty` when nothing changed.
    @discardableResult
    package func takeIn(_ scene: Scene) -> PixelRect {
        lastTarget = nil
        return takeIn(scene, whole: false)
    }

    /// Whether `scene` shows a list (true) or a stack (false); nil when it shows neither (the
    /// attract screen, the staff menu), which keeps the budget of the deck before.
    static func showsList(_ scene: Scene) -> Bool? {
        for e in scene.elements {
            switch e.kind.unmirrored {
            case .card: return false
            case .row, .detailPage, .titleBar, .deleteArea: return true
            default: continue
            }
        }
        return nil
    }

    private func takeIn(_ scene: Scene, whole wanted: Bool) -> PixelRect {
        stats.frames += 1
        lastFrame = []
        lastFramePixels = 0
        if let budgets, let list = Self.showsList(scene) {
            let bound = list ? budgets.list : budgets.stack
            if bound != surfaces.maxBytes { surfaces.setMaxBytes(bound) }
        }
        if let preparer { adoptPrepared(preparer) }
        if adoptedSinceFrame {
            lastFrame.insert(.adoptedPrepared)
            adoptedSinceFrame = false
        }
        if let images {
            let g = images.generation
            if g != imageGeneration {
                imageGeneration = g
                if surfaces.dropPlaceholders(images.isSettled) { invalidate() }
            }
        }
        let prior = previous
        let whole = prior == nil || wanted
        let damage =
            whole ? screen : pixels(scene.damage(since: prior)).union(adoptedDamage).intersection(screen)
        adoptedDamage = .empty
        previous = scene
        guard !damage.isEmpty else {
            lastFrame.insert(.unchanged)
            return .empty
        }
        if whole { lastFrame.insert(.wholeScreen) }
        stats.drawnFrames += 1
        stats.pixelsWritten += damage.width * damage.height
        lastFramePixels = damage.width * damage.height

        let frameStart = surfaces.now
        frameUsedStandIn = false
        defer { if frameUsedStandIn { stats.placeholderFrames += 1 } }
        let elements = scene.elements
        background = scene.background
        noteStamps(in: scene)
        let (still, reuse) = stillCount(scene, prior: prior)
        if !reuse {
            // The layer draws the card's own image, not the stamp blended into it.
            stampedCard?.restore()
            rebuildLayer(scene, count: still, frameStart: frameStart)
        }
        moving = []
        measuredBounds.removeAll(keepingCapacity: true)
        currentFrameStart = frameStart
        var ids: Set<String> = []
        for element in elements[still...] {
            let box = pixels(element.bounds).intersection(screen)
            guard !box.isEmpty, element.opacity > 0 else { continue }
            ids.insert(element.id)
            if box.intersects(damage) {
                moving.append(place(element, box: box))
            } else if let (e, m) = shownPlacements[element.id], e == element {
                // Unchanged outside the damage: the image it was last placed with, which the
                // screen shows (the cache may hold another by now, or none).
                moving.append(.placed(element, m))
            } else {
                // Placed when a compose first reaches it.
                moving.append(.unplaced(element, box: box))
            }
        }
        if shownPlacements.count > ids.count { shownPlacements = shownPlacements.filter { ids.contains($0.key) } }
        fuseStamps()
        return damage
    }

    /// The screen's pixels.
    package var screen: PixelRect { PixelRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight) }

    /// `element` of the current scene as it is drawn over the layer: its cached image (drawn
    /// now if missing, or a stand-in) and placement, a flat stand-in, or nothing.
    func place(_ element: SceneElement, box: PixelRect) -> MovingElement {
        let layers: [Moving]
        if let fill = flatStandIn(element) {
            guard !fill.rect.isEmpty else { return .none }
            layers = [Moving(fill: fill.colour, box: fill.rect)]
        } else {
            guard let shown = placed(element, frameStart: currentFrameStart) else { return .none }
            // A framed image (a covered card kept as the strips that can show) is one layer a strip.
            layers = shown.layers.map {
                Moving(image: $0.image, placement: $0.placement, opacity: element.opacity, box: box)
            }
        }
        shownPlacements[element.id] = (element, layers)
        return .placed(element, layers)
    }

    /// Leave pixels that a moving element drawn later covers opaquely undrawn (the same pixels;
    /// tests compare the renderer with and without it).
    var skipsHidden = true

    /// Blend a stamp into its card's image and draw the two as one (`fuseStamps`); off, each is
    /// sampled apart (tests compare the two).
    var fusesStamps = true

    /// Draw a still card whose contents a card above covers bare, when its whole image is not
    /// cached (the same pixels; tests compare the renderer with and without it).
    var skipsCoveredContents = true

    /// Keep a covered card's bare image framed, only what can show of it (`FramedImage`: the
    /// same pixels; tests compare the renderer with and without it).
    var keepsCoveredFramed = true
    /// Covered cards' images to keep framed, where they were placed and what the card above
    /// them covers: framed when the app is idle (`prepare`), not in the frame that rebuilt the
    /// layer.
    var pendingFrames: [(key: SurfaceCache.Key, image: ElementImage, at: (x: Int, y: Int), cover: Compositor.Hidden)] =
        []

    /// A detail page whose image the preparation thread has not finished (a tap quicker than
    /// it, the page prepared at touch-down): its colour filled over its rectangle, the image
    /// asked for first. The plain stand-in it replaces was a whole-screen image drawn with
    /// cairo and measured in the frame (29.6 M instructions at 1920×1080, `bench --worst`);
    /// the fill writes the pixels a placed image would. nil for anything else, or when an
    /// image (the page's own, or another stand-in) is cached.
    private func flatStandIn(_ element: SceneElement) -> (colour: UInt32, rect: PixelRect)? {
        guard case .detailPage(let card, _, _, _) = element.kind.unmirrored, let preparer, element.opacity >= 1,
            element.transform.rotation == 0, element.transform.scale == 1
        else { return nil }
        let (key, k) = cacheKey(element)
        if surfaces.contains(key) { return nil }
        if !preparedAhead.isEmpty { preparedAhead.remove(key) }
        if !discardedInFlight.isEmpty { discardedInFlight.remove(key) }
        guard surfaces.closest(to: key) == nil, preparer.request(key, pixelsPerPoint: k, images: images, urgent: true)
        else { return nil }
        standInsShown.insert(key)
        frameUsedStandIn = true
        lastFrame.insert(.flatStandIn)
        let f = element.frame
        let t = element.transform.translation
        let x0 = Int(((f.minX + t.x) * scale).rounded())
        let y0 = Int(((f.minY + t.y) * scale).rounded())
        let x1 = Int(((f.maxX + t.x) * scale).rounded())
        let y1 = Int(((f.maxY + t.y) * scale).rounded())
        let rect = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0).intersection(
            PixelRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight))
        return (Self.xrgb(card.color), rect)
    }

    /// How many elements at the bottom stay in the layer: those already baked in it while
    /// they are unchanged; otherwise the unchanged ones since the previous frame.
    private func stillCount(_ scene: Scene, prior: Scene?) -> (count: Int, layerIsValid: Bool) {
        let elements = scene.elements
        if let baked = layerElements, layerBackground == scene.background, baked.count <= elements.count,
            zip(baked, elements).allSatisfy({ $0 == $1 })
        {
            return (baked.count, true)
        }
        // Unchanged since the previous frame: the longest bottom run equal to its counterpart.
        guard let prior, prior.background == scene.background else { return (elements.count, false) }
        var n = 0
        while n < elements.count, n < prior.elements.count, elements[n] == prior.elements[n] { n += 1 }
        return (n, false)
    }

    /// The background of the scene being drawn (empty states and labels draw on it).
    var background = Color.white

    private func rebuildLayer(_ scene: Scene, count: Int, frameStart: Int) {
        stats.layerRebuilds += 1
        lastFrame.insert(.layerRebuilt)
        // Pixels only where still elements can draw (each within its image's footprint).
        var parts: [StillPart] = []
        var box = PixelRect.empty
        let elements = Array(scene.elements[..<count])
        for (i, element) in elements.enumerated() where element.opacity > 0 {
            let covered =
                skipsCoveredContents
                && Self.contentsCovered(elements, at: i, scale: scale, background: scene.background)
            if covered, let part = framedPart(element) {
                parts.append(part)
                box = box.union(part.shown.footprint)
                continue
            }
            let bareKey = covered ? coveredKey(element) : nil
            // Drawn here and now, a covered card leaves out what the card above covers.
            let hole = covered && preparer == nil && keepsCoveredFramed ? coveredHole(elements, at: i) : .empty
            guard let shown = placed(element, frameStart: frameStart, contentsCovered: covered, hole: hole)
            else { continue }
            parts.append(StillPart(element: element, shown: shown, bareKey: bareKey))
            box = box.union(shown.footprint)
        }
        if wholeScreenLayer { box = layer.bounds }
        parts = keepFramedWhereHidden(parts, box: box, frameStart: frameStart)
        layer.reset(box: box, colour: Self.xrgb(scene.background))
        if let rows = layer.rows {
            for part in parts {
                for (image, placement) in part.shown.layers {
                    Compositor.draw(
                        image, at: placement, opacity: part.element.opacity, into: rows, base: nil, clip: layer.box,
                        kernel: kernel)
                }
            }
        }
        let top = scene.elements.last(where: { if case .card = $0.kind.unmirrored { true } else { false } })
        frameCoveredImages(parts, box: box, under: top)
        layerElements = Array(scene.elements[..<count])
        layerBackground = scene.background
    }

    /// The cache key of `element` as it is shown now, and the pixels per point it is drawn at.
    func cacheKey(_ element: SceneElement) -> (SurfaceCache.Key, Double) {
        let k = scale * Self.contentScale(element.transform.scale)
        let key = SurfaceCache.Key(
            kind: element.kind, size: element.frame.size, pixelsPerPoint: Int((k * 1000).rounded()),
            shadowRadius: Int(element.shadowRadius.rounded()), background: background)
        return (key, k)
    }

    /// The element's cached image (drawn now if missing, or a stand-in while the preparation
    /// thread draws it) and where it goes on screen. `contentsCovered`: a card above hides
    /// the element's contents (`contentsCovered(_:at:scale:background:)`), so unless its whole
    /// image is cached its bare one is shown (drawn, or prepared, with no text to lay out).
    /// `hole`: what the card above covers of a bare image drawn here, left out of it (framed).
    func placed(
        _ element: SceneElement, frameStart: Int, contentsCovered: Bool = false, hole: PixelRect = .empty
    ) -> Shown? {
        let (whole, k) = cacheKey(element)
        var key = whole

        var image: ElementImage?
        var framed: FramedImage?
        if !preparedAhead.isEmpty { preparedAhead.remove(key) }
        if !discardedInFlight.isEmpty { discardedInFlight.remove(key) }
        if contentsCovered, !surfaces.contains(key), let bare = Self.bareKey(key) { key = bare }
        // Only a bare image leaves a hole.
        let hole = key == whole ? PixelRect.empty : hole
        var drawnAt = key
        if let cached = surfaces.lookup(key) {
            image = cached
        } else if leavesOutStamp(element, key: key, pixelsPerPoint: k) {
            return nil
        } else if let preparer, Self.drawnAhead(element.kind),
            preparer.request(key, pixelsPerPoint: k, images: images, urgent: true),
            let (standIn, standInKey) = standIn(for: key, frameStart: frameStart)
        {
            standInsShown.insert(key)
            frameUsedStandIn = true
            lastFrame.insert(.standInShown)
            (image, framed) = (standIn.image, standIn.framed)
            drawnAt = standInKey
        } else if !hole.isEmpty {
            guard let drawn = drawFramed(key, pixelsPerPoint: k, frameStart: frameStart, hole: hole) else {
                Log.warning("render: cannot allocate an image for '\(element.id)'; skipped")
                return nil
            }
            framed = drawn
        } else {
            guard let drawn = draw(key, pixelsPerPoint: k, frameStart: frameStart) else {
                Log.warning("render: cannot allocate an image for '\(element.id)'; skipped")
                return nil
            }
            image = drawn
        }
        // The image's own density: a stand-in may be drawn at another scale than asked for.
        let contentScale =
            drawnAt.pixelsPerPoint == key.pixelsPerPoint
            ? Self.contentScale(element.transform.scale) : Double(drawnAt.pixelsPerPoint) / 1000 / scale
        let c = element.frame.center
        let t = element.transform
        let anchor = image.map { ($0.anchorX, $0.anchorY) } ?? framed.map { ($0.anchorX, $0.anchorY) } ?? (0, 0)
        let placement = Placement(
            anchorX: anchor.0, anchorY: anchor.1, centerX: (c.x + t.translation.x) * scale,
            centerY: (c.y + t.translation.y) * scale, rotation: t.rotation, scale: t.scale / contentScale)
        return Shown(image: image, framed: framed, placement: placement)
    }

    /// Draws `key`'s image here and now and caches it; `work` says what for (`lastFrame`).
    func draw(
        _ key: SurfaceCache.Key, pixelsPerPoint k: Double, frameStart: Int, as work: FrameWork = .imageDrawn
    ) -> ElementImage? {
        // Decided before drawing: a photo that arrives mid-draw only costs one more redraw.
        var pending: String?
        if case .card(let card) = key.kind.unmirrored, let path = card.imagePath, let images,
            images.image(at: path) == nil, !images.isSettled(path)
        {
            pending = path
        }
        let painter = ElementPainter(background: background, images: images)
        guard
            let drawn = ElementSurface.render(
                key.kind, size: key.size, shadowRadius: Double(key.shadowRadius), pixelsPerPoint: k, painter: painter)
        else { return nil }
        stats.surfaceRenders += 1
        lastFrame.insert(work)
        surfaces.insert(drawn, for: key, imagePending: pending, protectedSince: frameStart)
        dropBare(of: key)
        return drawn
    }

    /// `draw` for a covered card's bare image with `hole` left out: kept framed (`FramedImage`).
    private func drawFramed(
        _ key: SurfaceCache.Key, pixelsPerPoint k: Double, frameStart: Int, hole: PixelRect
    ) -> FramedImage? {
        let painter = ElementPainter(background: background, images: images)
        guard
            let drawn = ElementSurface.renderFramed(
                key.kind, size: key.size, shadowRadius: Double(key.shadowRadius), pixelsPerPoint: k, painter: painter,
                hole: hole)
        else { return nil }
        stats.surfaceRenders += 1
        lastFrame.insert(.imageDrawn)
        surfaces.insert(framed: drawn, for: key, imagePending: nil, protectedSince: frameStart)
        return drawn
    }

    /// Drops the bare image of an element whose whole image is now cached: it serves every
    /// place the bare one did.
    private func dropBare(of key: SurfaceCache.Key) {
        if let bare = Self.bareKey(key) { _ = surfaces.remove(bare) }
    }

    /// What to show while `key` is drawn elsewhere: the same element already cached at another
    /// shadow or scale, else its colour without text or photo and without a shadow (a
    /// rounded rectangle: cheap), drawn here and cached.
    private func standIn(
        for key: SurfaceCache.Key, frameStart: Int
    ) -> ((image: ElementImage?, framed: FramedImage?), SurfaceCache.Key)? {
        if let (other, image) = surfaces.closest(to: key) { return ((image, nil), other) }
        // A bare image of it (drawn while a card above hid its contents): its shadow and
        // colour, as the plain stand-in below but already drawn; framed, where a card above it
        // hides its middle in the close-up after a swipe too (`FramedImage`).
        if let bare = Self.bareKey(key) {
            if let (other, image) = surfaces.closest(to: bare) { return ((image, nil), other) }
            if let (other, framed) = surfaces.closestFramed(to: bare) { return ((nil, framed), other) }
        }
        var plain = key
        plain.shadowRadius = 0
        let isMirrored = key.kind != key.kind.unmirrored
        switch key.kind.unmirrored {
        case .card(let card):
            plain.kind = .card(Self.bare(card))
        case .detailPage(let card, _, let bar, let back):
            plain.kind = .detailPage(Self.bare(card), backTitle: "", barHeight: bar, back: back)
        case .linkCode(_, let side):
            // Nothing until the code is drawn: its encoding and caption stay off the loop.
            plain.kind = .linkCode(link: "", side: side)
        default: return nil
        }
        if isMirrored { plain.kind = plain.kind.mirrored }
        if let cached = surfaces.lookup(plain) { return ((cached, nil), plain) }
        guard
            let drawn = draw(
                plain, pixelsPerPoint: Double(key.pixelsPerPoint) / 1000, frameStart: frameStart, as: .standInDrawn)
        else { return nil }
        return ((drawn, nil), plain)
    }

    /// The scale an element's image is drawn at, for an element shown at `scale`.
    ///
    /// Below 1 it is `scale` rounded *up* to the stack's depth grid (1 − 0.04·i): a card at
    /// rest at depth i ≥ 2 is drawn at exactly its scale (sharp), and a card moving up the
    /// stack from depth i + 1 is placed from its image at depth i, slightly reduced by the
    /// bilinear sampler, so the close-up animation draws no new images. Depth 1 (0.96) is drawn
    /// at 1: the card beneath the top one is placed from the image it will have on top, reduced
    /// by 4 %, so one image serves both levels (at rest the top card hides all of it but a strip
    /// along its edge; a drag uncovers it). Other scales round to 1/50.
    static func contentScale(_ scale: Double) -> Double {
        guard scale > 0.02 else { return 0.02 }
        if scale <= 1 {
            let step = 0.04
            let level = 1 - step * ((1 - scale) / step + 1e-6).rounded(.down)
            if level > 1 - 1.5 * step { return 1 }
            if level >= 0.5 { return level }
        }
        return max(0.02, (scale * 50).rounded() / 50)
    }

    /// Points to whole pixels, rounded outwards, one pixel wider for bilinear spread.
    private func pixels(_ r: Rect) -> PixelRect {
        guard !r.isEmpty else { return .empty }
        let x0 = Int((r.minX * scale).rounded(.down)) - 1
        let y0 = Int((r.minY * scale).rounded(.down)) - 1
        let x1 = Int((r.maxX * scale).rounded(.up)) + 1
        let y1 = Int((r.maxY * scale).rounded(.up)) + 1
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    static func xrgb(_ c: Color) -> UInt32 {
        func byte(_ v: Double) -> UInt32 { UInt32((max(0, min(1, v)) * 255).rounded()) }
        return 0xFF00_0000 | byte(c.red) << 16 | byte(c.green) << 8 | byte(c.blue)
    }
}
