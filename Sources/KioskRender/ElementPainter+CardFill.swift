import CPangoCairo
import CardModel
import KioskSystem

/// A card's fill (its rounded outline in the background colour, the vertical gradient over
/// it) without pixman's general path inside the outline.
///
/// A vertical gradient has one colour along a device row, and inside the outline, between the
/// corners and away from the edges, every pixel of a row is covered whole and starts as the
/// background: the row's pixels there are all one value. cairo draws the rest (the rows of
/// the corners, the edges) and the first pixel of each such row, each part clipped to one
/// rectangle so that pixman composites only that part; the rest of the row is filled with
/// that pixel. Pixman's general path over the whole card (a gradient fetched, combined and
/// stored pixel by pixel) was about 13 M instructions of a 1080p card, most of a card image's
/// drawing. `RenderCardFillTests` compares the fill with cairo's own at many sizes and
/// scales, mirrored, and with a hole.
extension ElementPainter {
    /// Fills the rounded rectangle (0, 0, `w`, `h`, `radius`) with `background`, then with
    /// the vertical gradient `top` → `bottom` over it; nothing in `hole` (device pixels).
    func fillCard(_ cr: OpaquePointer, w: Double, h: Double, radius: Double, top: Color, bottom: Color) {
        let gradient = cairo_pattern_create_linear(0, 0, 0, h)!
        defer { cairo_pattern_destroy(gradient) }
        cairo_pattern_add_color_stop_rgba(gradient, 0, top.red, top.green, top.blue, top.alpha)
        cairo_pattern_add_color_stop_rgba(gradient, 1, bottom.red, bottom.green, bottom.blue, bottom.alpha)
        func fill() {
            Draw.roundedRect(cr, x: 0, y: 0, width: w, height: h, radius: radius)
            Draw.setColor(cr, background)
            cairo_fill_preserve(cr)
            cairo_set_source(cr, gradient)
            cairo_fill(cr)
        }
        let rows = fillsRowsDirectly ? Self.uniformRows(cr, w: w, h: h, radius: radius) : []
        guard let target = cairo_get_target(cr), !rows.isEmpty || !hole.isEmpty else {
            fill()
            return
        }
        let parts = Self.split(rows, around: hole)
        let bounds = PixelRect(
            x: 0, y: 0, width: Int(cairo_image_surface_get_width(target)),
            height: Int(cairo_image_surface_get_height(target)))
        let left = parts.map { PixelRect(x: $0.x + 1, y: $0.y, width: $0.width - 1, height: $0.height) } + [hole]
        for clip in Self.subtracting(left, from: bounds.intersection(Self.deviceBounds(cr, w: w, h: h))) {
            cairo_save(cr)
            var m = cairo_matrix_t()
            cairo_get_matrix(cr, &m)
            cairo_identity_matrix(cr)
            cairo_rectangle(cr, Double(clip.x), Double(clip.y), Double(clip.width), Double(clip.height))
            cairo_clip(cr)
            cairo_set_matrix(cr, &m)
            fill()
            cairo_restore(cr)
        }
        guard !parts.isEmpty else { return }
        cairo_surface_flush(target)
        guard let data = cairo_image_surface_get_data(target) else { return }
        let stride = Int(cairo_image_surface_get_stride(target))
        for r in parts {
            for y in r.y..<r.maxY {
                let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self) + r.x
                (row + 1).update(repeating: row[0], count: r.width - 1)
            }
            cairo_surface_mark_dirty_rectangle(target, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height))
        }
    }

    /// The device pixels the rectangle (0, 0, `w`, `h`) in user space can touch.
    static func deviceBounds(_ cr: OpaquePointer, w: Double, h: Double) -> PixelRect {
        var (x0, y0, x1, y1) = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
        for var (x, y) in [(0.0, 0.0), (w, 0), (0, h), (w, h)] {
            cairo_user_to_device(cr, &x, &y)
            (x0, y0, x1, y1) = (min(x0, x), min(y0, y), max(x1, x), max(y1, y))
        }
        let (a, b) = (Int(x0.rounded(.down)) - 1, Int(y0.rounded(.down)) - 1)
        return PixelRect(x: a, y: b, width: Int(x1.rounded(.up)) + 1 - a, height: Int(y1.rounded(.up)) + 1 - b)
    }

    /// Device pixels of the outline (0, 0, `w`, `h`, `radius`) where each row is one value
    /// after the fill: the rows between the corners, whole pixels at least one pixel inside
    /// the straight edges. Empty unless cairo draws straight into an image surface of 32-bit
    /// pixels, unclipped, with the operator OVER, and the user space is only scaled, mirrored
    /// and moved (so a vertical gradient stays vertical on the pixels).
    static func uniformRows(_ cr: OpaquePointer, w: Double, h: Double, radius: Double) -> [PixelRect] {
        guard let target = cairo_get_target(cr), cairo_get_group_target(cr) == target,
            cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
            [CAIRO_FORMAT_ARGB32, CAIRO_FORMAT_RGB24].contains(cairo_image_surface_get_format(target)),
            cairo_get_operator(cr) == CAIRO_OPERATOR_OVER
        else { return [] }
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        guard m.xy == 0, m.yx == 0, m.xx != 0, m.yy != 0 else { return [] }
        let width = Int(cairo_image_surface_get_width(target))
        let height = Int(cairo_image_surface_get_height(target))
        guard isUnclipped(cr, width: width, height: height) else { return [] }
        var (ax, ay, bx, by) = (0.0, 0.0, w, h)
        cairo_user_to_device(cr, &ax, &ay)
        cairo_user_to_device(cr, &bx, &by)
        let (x0, x1, y0, y1) = (min(ax, bx), max(ax, bx), min(ay, by), max(ay, by))
        // As `Draw.roundedRect` bounds it.
        let ry = max(0, min(radius, w / 2, h / 2)) * abs(m.yy)
        let top = Int((y0 + ry).rounded(.up)) + 1
        let bottom = Int((y1 - ry).rounded(.down)) - 1
        let left = Int(x0.rounded(.up)) + 1
        let right = Int(x1.rounded(.down)) - 1
        let band = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
            .intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        return band.width >= 2 ? [band] : []
    }

    /// `bands` without `hole`: the rows through it split into the parts left and right of it,
    /// so each part has a first column cairo draws (parts under two pixels wide are cairo's).
    static func split(_ bands: [PixelRect], around hole: PixelRect) -> [PixelRect] {
        guard !hole.isEmpty else { return bands }
        return bands.flatMap { $0.around(hole) }.filter { $0.width >= 2 }
    }

    /// `area` without `rects`, as disjoint rectangles: bands of rows between the rectangles'
    /// edges, each cut at the rectangles that cross it (neighbouring bands' equal pieces joined).
    static func subtracting(_ rects: [PixelRect], from area: PixelRect) -> [PixelRect] {
        let cuts = rects.map { $0.intersection(area) }.filter { !$0.isEmpty }
        let edges = Set([area.y, area.maxY] + cuts.flatMap { [$0.y, $0.maxY] }).sorted()
        var pieces: [PixelRect] = []
        for (y0, y1) in zip(edges, edges.dropFirst()) {
            let crossing = cuts.filter { $0.y <= y0 && $0.maxY >= y1 }.sorted { $0.x < $1.x }
            var x = area.x
            var row: [PixelRect] = []
            for c in crossing {
                if c.x > x { row.append(PixelRect(x: x, y: y0, width: c.x - x, height: y1 - y0)) }
                x = max(x, c.maxX)
            }
            if area.maxX > x { row.append(PixelRect(x: x, y: y0, width: area.maxX - x, height: y1 - y0)) }
            for r in row {
                if let i = pieces.firstIndex(where: { $0.x == r.x && $0.width == r.width && $0.maxY == r.y }) {
                    pieces[i].height += r.height
                } else {
                    pieces.append(r)
                }
            }
        }
        return pieces
    }

    /// Whether `cr`'s clip leaves every pixel of its `width` × `height` target drawable.
    private static func isUnclipped(_ cr: OpaquePointer, width: Int, height: Int) -> Bool {
        cairo_save(cr)
        cairo_identity_matrix(cr)
        defer { cairo_restore(cr) }
        guard let list = cairo_copy_clip_rectangle_list(cr) else { return false }
        defer { cairo_rectangle_list_destroy(list) }
        guard list.pointee.status == CAIRO_STATUS_SUCCESS, list.pointee.num_rectangles == 1,
            let rect = list.pointee.rectangles?.pointee
        else { return false }
        return rect.x <= 0 && rect.y <= 0 && rect.x + rect.width >= Double(width)
            && rect.y + rect.height >= Double(height)
    }
}
