import KioskSystem

/// The still part of the screen that frames restore under what moves: the scene's flat
/// background colour with the still elements drawn over it.
///
/// Only the box that holds still elements is kept in pixels; the rest of the layer is the
/// background colour, kept as one row. On a 1920×1080 stack the cards below the top one
/// cover about 660×1000 pixels, so the layer costs 2.6 MB instead of a whole frame's 8.3 MB,
/// and a layer without still elements costs one row. The pixels are those a whole-screen
/// layer would hold (`RenderPipelineTests`, the goldens).
final class StillLayer {
    let width: Int
    let height: Int
    /// Where still elements were drawn; outside it the layer is `colour`.
    private(set) var box = PixelRect.empty
    /// 0xFFRRGGBB.
    private(set) var colour: UInt32 = 0
    /// `box`'s pixels, `pitch` a row; `capacity` pixels allocated.
    private var storage: UnsafeMutablePointer<UInt32>?
    private var capacity = 0
    private var pitch = 0
    /// One row of `colour`, `width` pixels.
    private let backgroundRow: UnsafeMutablePointer<UInt32>

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        backgroundRow = .allocate(capacity: width)
        backgroundRow.initialize(repeating: 0, count: width)
    }

    deinit {
        storage?.deallocate()
        backgroundRow.deallocate()
    }

    var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// Bytes held: the box's allocation and the background row.
    var bytes: Int { (capacity + width) * 4 }

    /// Starts the layer again: `colour` everywhere, and `box` (clipped to the screen) filled
    /// with it, ready for the still elements. The allocation is kept while the box fits in
    /// it and is not less than half of it.
    func reset(box wanted: PixelRect, colour: UInt32) {
        let box = wanted.intersection(bounds)
        if colour != self.colour {
            backgroundRow.update(repeating: colour, count: width)
            self.colour = colour
        }
        self.box = box
        // Rows a multiple of 16 pixels (64 bytes), as `PixelBuffer`'s.
        pitch = (box.width + 15) / 16 * 16
        let needed = pitch * box.height
        if needed > capacity || needed < capacity / 2 {
            storage?.deallocate()
            storage = nil
            capacity = 0
            if needed > 0 {
                storage = .allocate(capacity: needed)
                capacity = needed
            }
        }
        if let rows { Compositor.fill(box, with: colour, in: rows) }
    }

    /// The box's rows, to draw the still elements into (clip to `box`).
    var rows: Compositor.Rows? {
        guard let storage, !box.isEmpty else { return nil }
        return Compositor.Rows(window: UnsafeMutableRawPointer(storage), pitch: pitch, bounds: box)
    }

    /// The layer as a compositor base: the box's rows inside it, the background row outside.
    var base: Compositor.Base {
        let background = Compositor.Rows(window: UnsafeMutableRawPointer(backgroundRow), pitch: 0, bounds: .empty)
        return Compositor.Base(rows: rows ?? background, outside: UnsafePointer(backgroundRow))
    }

    /// Copies the layer's `rect` into `target` (screen rows; `rect` inside their bounds).
    func copy(_ rect: PixelRect, to dst: Compositor.Rows) {
        let rect = rect.intersection(bounds)
        guard !rect.isEmpty else { return }
        let base = base
        for y in rect.y..<rect.maxY {
            let row = dst.row(y)
            Compositor.Under(base, y: y, dst: row).split(rect.x, rect.maxX) { a, b, u in
                (row + a).update(from: u + a, count: b - a)
            }
        }
    }
}
