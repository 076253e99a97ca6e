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
    private var clock = 0

    init(maxBytes: Int, maxCount: Int) {
        self.maxBytes = maxBytes
        self.maxCount = maxCount
    }

    var count: Int { entries.count }

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

    /// Adds an image, then evicts least recently used ones over the bounds — but none used
    /// since `protectedSince` (the current frame's), which the frame still needs.
    mutating func insert(_ image: ElementImage, for key: Key, imagePending: String?, protectedSince: Int) {
        clock += 1
        if let old = entries[key] { bytes -= old.image.image.byteCount }
        entries[key] = Entry(image: image, lastUse: clock, imagePending: imagePending)
        bytes += image.image.byteCount
        guard bytes > maxBytes || entries.count > maxCount else { return }
        let candidates = entries.filter { $0.value.lastUse <= protectedSince }.sorted {
            $0.value.lastUse < $1.value.lastUse
        }
        for (k, e) in candidates {
            guard bytes > maxBytes || entries.count > maxCount else { break }
            entries[k] = nil
            bytes -= e.image.image.byteCount
        }
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

    mutating func removeAll() {
        entries = [:]
        bytes = 0
    }
}
