import CardModel
import KioskSystem

/// Rendered element images, least recently used first out, bounded in bytes and count, so a
/// 10,000-card deck costs what the few cards on screen cost.
struct SurfaceCache {
    struct Key: Hashable, Sendable {
        var kind: ElementKind
        var size: Size
        /// Pixels per point, in thousandths.
        var pixelsPerPoint: Int
        /// Whole points.
        var shadowRadius: Int
        /// The scene background (empty states and labels draw on it).
        var background: Color
    }

    struct Entry {
        /// nil when the image is kept framed.
        var image: ElementImage?
        /// A covered card's image without the middle the cards above it hide (`FramedImage`).
        var framed: FramedImage?
        var lastUse: Int
        /// Drawn while its photo was still decoding: redraw once it is there.
        var imagePending: String?

        var byteCount: Int { image?.image.byteCount ?? framed?.byteCount ?? 0 }
    }

    /// The byte bound; lowering it (`setMaxBytes`) evicts down to it.
    private(set) var maxBytes: Int
    let maxCount: Int
    private(set) var entries: [Key: Entry] = [:]
    private(set) var bytes = 0
    /// The most `bytes` ever held (between an insert and its evictions included).
    private(set) var peakBytes = 0
    private var clock = 0

    init(maxBytes: Int, maxCount: Int) {
        self.maxBytes = maxBytes
        self.maxCount = maxCount
    }

    var count: Int { entries.count }

    /// What the screen of a panel `pixelWidth`×`pixelHeight` at `scale` pixels per point can
    /// need at once, and no more, for each kind of deck: the renderer holds to the one of the
    /// scene it shows (`SceneRenderer.showsList`), so a stack does not carry a list's bound.
    ///
    /// - A stack: `card · (2 + s₀² + s₁² + 2·s_deepest² + ¼·Σᵢ sᵢ²)` for i in 2…
    ///   `StackLayout.visibleDepth` (card i scaled by sᵢ = 1 − 0.04·i), each a 320×440 pt card
    ///   with the drag shadow: 5.9 cards' bytes. What it holds: the top card at rest and as
    ///   dragged, the card beneath (as it will look on top, which serves its level too:
    ///   `SceneRenderer.contentScale`), the card a swipe brings up to the bottom, the card-sized
    ///   swipe stamp of the drag's direction (both stamps for a moment when a drag turns back;
    ///   the other goes at the release), the card under a returning undo, and the cards deeper
    ///   than the one beneath, kept framed (`FramedImage`: drawn so in the frame, or framed when
    ///   idle; about 14 % of a card each, counted as a quarter).
    /// - A list: a screenful of rows and a detail page, each with its shadow margin, and the
    ///   bars: two frames' bytes and more. Its bound is the one under which the list scenarios
    ///   show no stand-ins: the larger of two frames' bytes and the stack's cards counted whole
    ///   (7.7 cards); at 800×480 a bound of 3.09 MB left VM scenario 52's prepared detail page
    ///   no room, and it showed the page's flat stand-in for good.
    ///
    /// At 1920×1080 (1.8 px/pt) 13.7 MB for a stack and 17.8 MB for a list, at 800×480
    /// (0.8 px/pt) 2.7 MB and 3.5 MB (MB of 2²⁰ bytes; `bench` prints the one of each scene).
    /// On a portrait screen the card grows into the width (`StackLayout.fit` above 1), and its
    /// images with it: the cards are counted at the largest size the layout gives this screen
    /// (with buttons and nothing reserved, the most room a card can have).
    static func budget(pixelWidth: Int, pixelHeight: Int, scale: Double) -> (stack: Int, list: Int) {
        let points = Size(width: Double(pixelWidth) / scale, height: Double(pixelHeight) / scale)
        let grown = max(1, StackLayout(screen: points, showButtons: true).fit)
        let l = ElementSurface.layout(
            for: StackLayout.cardSize, shadowRadius: StackLayout.dragShadow, pixelsPerPoint: scale * grown)
        let card = Double(l.width * l.height * 4)
        let depths = (0...StackLayout.visibleDepth).map { 1 - StackLayout.depthScale * Double($0) }
        let deepest = depths.last ?? 1
        let whole = depths.prefix(2).reduce(0) { $0 + $1 * $1 }
        let deeper = depths.dropFirst(2).reduce(0) { $0 + $1 * $1 }
        let stack = card * (2 + whole + 2 * deepest * deepest + deeper / 4)
        let list = max(Double(2 * pixelWidth * pixelHeight * 4), card * (2 + whole + 2 * deepest * deepest + deeper))
        return (Int(stack.rounded(.up)), Int(list.rounded(.up)))
    }

    /// Sets the byte bound; when lower than the bytes held, the least recently used entries go
    /// until they fit.
    mutating func setMaxBytes(_ bound: Int) {
        maxBytes = bound
        guard bytes > bound else { return }
        for (k, e) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard bytes > bound else { break }
            entries[k] = nil
            bytes -= e.byteCount
        }
    }

    /// `key`'s whole image, marked used; nil when there is none or it is kept framed.
    mutating func lookup(_ key: Key) -> ElementImage? {
        guard var e = entries[key], let image = e.image else { return nil }
        clock += 1
        e.lastUse = clock
        entries[key] = e
        return image
    }

    /// `key`'s framed image, marked used; nil when there is none or it is kept whole.
    mutating func lookupFramed(_ key: Key) -> FramedImage? {
        guard var e = entries[key], let framed = e.framed else { return nil }
        clock += 1
        e.lastUse = clock
        entries[key] = e
        return framed
    }

    /// Keeps `key`'s whole image as `framed` instead (fewer bytes, the same pixels where they
    /// show), as recently used as it was.
    mutating func frame(_ key: Key, as framed: FramedImage) {
        guard var e = entries[key], let image = e.image else { return }
        bytes += framed.byteCount - image.image.byteCount
        e.image = nil
        e.framed = framed
        entries[key] = e
    }

    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// The cached image of the same element (kind, size, background) nearest to `key` in
    /// scale, at any shadow; marked used.
    mutating func closest(to key: Key) -> (Key, ElementImage)? {
        let near = entries.filter {
            $0.key.kind == key.kind && $0.key.size == key.size && $0.key.background == key.background
                && $0.value.image != nil
        }.keys.min { abs($0.pixelsPerPoint - key.pixelsPerPoint) < abs($1.pixelsPerPoint - key.pixelsPerPoint) }
        guard let near, let image = lookup(near) else { return nil }
        return (near, image)
    }

    /// The framed image (`FramedImage`) of the same element nearest to `key` in scale, at any
    /// shadow; marked used.
    mutating func closestFramed(to key: Key) -> (Key, FramedImage)? {
        let near = entries.filter {
            $0.key.kind == key.kind && $0.key.size == key.size && $0.key.background == key.background
                && $0.value.framed != nil
        }.keys.min { abs($0.pixelsPerPoint - key.pixelsPerPoint) < abs($1.pixelsPerPoint - key.pixelsPerPoint) }
        guard let near, let framed = lookupFramed(near) else { return nil }
        return (near, framed)
    }

    /// Adds an image, first evicting least recently used ones until it fits the bounds — but
    /// none used since `protectedSince` (the current frame's), which the frame still needs; so
    /// the cache exceeds its bounds only when one frame needs more.
    mutating func insert(_ image: ElementImage, for key: Key, imagePending: String?, protectedSince: Int) {
        add(Entry(image: image, framed: nil, lastUse: 0, imagePending: imagePending), for: key, protectedSince)
    }

    /// Adds a covered card's framed image (drawn with its hole left out), as `insert` does.
    mutating func insert(framed: FramedImage, for key: Key, imagePending: String?, protectedSince: Int) {
        add(Entry(image: nil, framed: framed, lastUse: 0, imagePending: imagePending), for: key, protectedSince)
    }

    private mutating func add(_ entry: Entry, for key: Key, _ protectedSince: Int) {
        clock += 1
        if let old = entries.removeValue(forKey: key) { bytes -= old.byteCount }
        let adding = entry.byteCount
        if bytes + adding > maxBytes || entries.count + 1 > maxCount {
            let candidates = entries.filter { $0.value.lastUse <= protectedSince }.sorted {
                $0.value.lastUse < $1.value.lastUse
            }
            for (k, e) in candidates {
                guard bytes + adding > maxBytes || entries.count + 1 > maxCount else { break }
                entries[k] = nil
                bytes -= e.byteCount
            }
        }
        var entry = entry
        entry.lastUse = clock
        entries[key] = entry
        bytes += adding
        peakBytes = max(peakBytes, bytes)
    }

    /// The current use counter: entries used after this moment belong to the frame in progress.
    var now: Int { clock }

    /// Drops entries drawn with a placeholder for a photo `isSettled` now says is there.
    mutating func dropPlaceholders(_ isSettled: (String) -> Bool) -> Bool {
        var dropped = false
        for (k, e) in entries {
            if let path = e.imagePending, isSettled(path) {
                entries[k] = nil
                bytes -= e.byteCount
                dropped = true
            }
        }
        return dropped
    }

    /// Drops `key`'s image; whether there was one.
    mutating func remove(_ key: Key) -> Bool {
        guard let e = entries.removeValue(forKey: key) else { return false }
        bytes -= e.byteCount
        return true
    }

    mutating func removeAll() {
        entries = [:]
        bytes = 0
    }
}
