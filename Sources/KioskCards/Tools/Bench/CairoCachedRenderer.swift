import CPangoCairo
import CardModel
import KioskRender
import KioskSystem

/// The benchmark's "cairo-cached" baseline, a retained-mode cairo program: each element is
/// drawn once, with its shadow, into an image surface of its own (redrawn when the element's
/// content or size changes), and every frame clears the screen and composites those surfaces
/// with cairo through each element's transform and opacity. No damage tracking, no still layer.
final class CairoCachedRenderer {
    let scale: Double
    let images: ImageCache?
    private var cache: [String: Entry] = [:]

    private struct Entry {
        var kind: ElementKind
        var size: Size
        var radius: Double
        var image: CairoImage
        var anchorX: Double
        var anchorY: Double
    }

    init(scale: Double, images: ImageCache? = nil) {
        self.scale = scale
        self.images = images
    }

    /// Draws `element`'s surface now if it is not cached (the app's idle preparation).
    func prepare(_ element: SceneElement, background: Color) {
        _ = entry(for: element, background: background)
    }

    func render(_ scene: Scene, into target: PixelBuffer) {
        target.withCairoSurface { surface in
            let cr = cairo_create(surface)!
            defer { cairo_destroy(cr) }
            Draw.setColor(cr, scene.background.withAlpha(1))
            cairo_paint(cr)
            for element in scene.elements where element.opacity > 0 {
                guard let e = entry(for: element, background: scene.background) else { continue }
                cairo_save(cr)
                let c = element.frame.center
                let t = element.transform
                cairo_translate(cr, (c.x + t.translation.x) * scale, (c.y + t.translation.y) * scale)
                cairo_rotate(cr, t.rotation)
                cairo_scale(cr, t.scale, t.scale)
                cairo_set_source_surface(cr, e.image.surface, -e.anchorX, -e.anchorY)
                if element.opacity < 1 { cairo_paint_with_alpha(cr, element.opacity) } else { cairo_paint(cr) }
                cairo_restore(cr)
            }
        }
    }

    private func entry(for element: SceneElement, background: Color) -> Entry? {
        let size = element.frame.size
        let radius = element.shadowRadius.rounded()
        if let e = cache[element.id], e.kind == element.kind, e.size == size, e.radius == radius { return e }
        let l = ElementSurface.layout(for: size, shadowRadius: radius, pixelsPerPoint: scale)
        guard let image = CairoImage(width: l.width, height: l.height) else { return nil }
        if radius > 0,
            let mask = ElementSurface.shadowMask(element.kind, size: size, radius: radius, k: scale, layout: l)
        {
            image.draw { cr in
                cairo_set_source_rgba(cr, 0, 0, 0, ElementSurface.shadowOpacity)
                // The mask holds the shadow at its offset already.
                cairo_mask_surface(cr, mask.surface, 0, 0)
            }
        }
        let painter = ElementPainter(background: background, images: images)
        image.draw { cr in
            cairo_translate(cr, Double(l.originX), Double(l.originY))
            cairo_scale(cr, scale, scale)
            painter.paint(element.kind, size: size, cr: cr)
        }
        let e = Entry(
            kind: element.kind, size: size, radius: radius, image: image, anchorX: l.anchorX, anchorY: l.anchorY)
        cache[element.id] = e
        return e
    }
}
