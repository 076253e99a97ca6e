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
        var image: ElementImage
        var lastUse: Int
        /// Drawn while its photo was still decoding: redraw once it is there.
        var imagePending: String?
    }

    let maxBytes: Int
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

    /// The byte bound for a panel of `pixelWidth`×`pixelHeight` at `scale` pixels per point:
    /// what the screen can need at once, and no more.
    ///
    /// - A stack: the cards it shows (`StackLayout.visibleDepth` + 1, card i scaled by
    ///   1 − 0.04·i), the top card once more as dragged, the next two cards (drawn at the
    ///   deepest level) and the card under a returning undo, each a 320×440 pt card with the
    ///   drag shadow: `card · (2 + Σᵢ sᵢ² + 2·s_deepest²)`, 7.7 cards' bytes.
    /// - A list: a screenful of rows and a detail page, two frames' bytes.
    ///
    /// The larger of the two: at 1920×1080 (1.8 px/pt) 17.8 MB, at 800×480 (0.8 px/pt) 3.5 MB.
    /// On a portrait screen the card grows into the width (`StackLayout.fit` above 1), and its
    /// images with it: the cards are counted at the largest size the layout gives this screen
    /// (with buttons and nothing reserved, the most room a card can have).
    static func budget(pixelWidth: Int, pixelHeight: Int, scale: Double) -> Int {
        let points = Size(width: Double(pixelWidth) / scale, height: Double(pixelHeight) / scale)
        let grown = max(1, StackLayout(screen: points, showButtons: true).fit)
        let l = ElementSurface.layout(
            for: StackLayout.cardSize, shadowRadius: StackLayout.dragShadow, pixelsPerPoint: scale * grown)
        let card = Double(l.width * l.height * 4)
        let depths = (0...StackLayout.visibleDepth).map { 1 - StackLayout.depthScale * Double($0) }
        let deepest = depths.last ?? 1
        let stack = card * (2 + depths.reduce(0) { $0 + $1 * $1 } + 2 * deepest * deepest)
        let list = Double(2 * pixelWidth * pixelHeight * 4)
        return Int(max(stack, list).rounded(.up))
    }

    mutating func lookup(_ key: Key) -> ElementImage? {
        guard var e = entries[key] else { return nil }
        clock += 1
        e.lastUse = clock
        entries[key] = e
        return e.image
    }

    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// The cached image of the same element (kind, size, background) nearest to `key` in
    /// scale, at any shadow; marked used.
    mutating func closest(to key: Key) -> (Key, ElementImage)? {
        let near = entries.keys.filter {
            $0.kind == key.kind && $0.size == key.size && $0.background == key.background
        }.min { abs($0.pixelsPerPoint - key.pixelsPerPoint) < abs($1.pixelsPerPoint - key.pixelsPerPoint) }
        guard let near, let image = lookup(near) else { return nil }
        return (near, image)
    }

    /// Adds an image, first evicting least recently used ones until it fits the bounds — but
    /// none used since `protectedSince` (the current frame's), which the frame still needs; so
    /// the cache exceeds its bounds only when one frame needs more.
    mutating func insert(_ image: ElementImage, for key: Key, imagePending: String?, protectedSince: Int) {
        clock += 1
        if let old = entries.removeValue(forKey: key) { bytes -= old.image.image.byteCount }
        let adding = image.image.byteCount
        if bytes + adding > maxBytes || entries.count + 1 > maxCount {
            let candidates = entries.filter { $0.value.lastUse <= protectedSince }.sorted {
                $0.value.lastUse < $1.value.lastUse
            }
            for (k, e) in candidates {
                guard bytes + adding > maxBytes || entries.count + 1 > maxCount else { break }
                entries[k] = nil
                bytes -= e.image.image.byteCount
            }
        }
        entries[key] = Entry(image: image, lastUse: clock, imagePending: imagePending)
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
                bytes -= e.image.image.byteCount
                dropped = true
            }
        }
        return dropped
    }

    /// Drops `key`'s image; whether there was one.
    mutating func remove(_ key: Key) -> Bool {
        guard let e = entries.removeValue(forKey: key) else { return false }
        bytes -= e.image.image.byteCount
        return true
    }

    mutating func removeAll() {
        entries = [:]
        bytes = 0
    }
}
