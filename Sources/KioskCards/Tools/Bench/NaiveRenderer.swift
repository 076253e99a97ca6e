import CPangoCairo
import CardModel
import Glibc
import KioskRender
import KioskSystem

/// The straightforward way, kept as the benchmark's baseline and as an independent check of
/// the cached pipeline: every frame clears the screen and draws every element with cairo and
/// pango through its transform. No element caches, no damage.
///
/// With `cacheShadows` (the bench's "cairo-redraw" baseline) each shadow's blurred mask is
/// made once per element size and radius and reused, as any sensible cairo program would;
/// without it every frame blurs every shadow anew (the reference `render --naive` draws).
final class NaiveRenderer {
    let scale: Double
    let images: ImageCache?
    let cacheShadows: Bool
    private var masks: [ShadowKey: CairoImage] = [:]

    private struct ShadowKey: Hashable {
        var width: Double
        var height: Double
        var radius: Double
        var corner: Double
    }

    init(scale: Double, images: ImageCache? = nil, cacheShadows: Bool = false) {
        self.scale = scale
        self.images = images
        self.cacheShadows = cacheShadows
    }

    func render(_ scene: Scene, into target: PixelBuffer) {
        let painter = ElementPainter(background: scene.background, images: images)
        target.withCairoSurface { surface in
            let cr = cairo_create(surface)!
            defer { cairo_destroy(cr) }
            Draw.setColor(cr, scene.background.withAlpha(1))
            cairo_paint(cr)
            for element in scene.elements where element.opacity > 0 {
                draw(element, painter: painter, cr: cr)
            }
        }
    }

    private func shadowMask(_ kind: ElementKind, size: Size, radius: Double, layout l: ElementSurface.Layout)
        -> CairoImage?
    {
        guard cacheShadows else {
            return ElementSurface.shadowMask(kind, size: size, radius: radius, k: scale, layout: l)
        }
        let key = ShadowKey(
            width: size.width, height: size.height, radius: radius, corner: ElementPainter.cornerRadius(kind))
        if let mask = masks[key] { return mask }
        let mask = ElementSurface.shadowMask(kind, size: size, radius: radius, k: scale, layout: l)
        masks[key] = mask
        return mask
    }

    private func draw(_ element: SceneElement, painter: ElementPainter, cr: OpaquePointer) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        let c = element.frame.center
        let t = element.transform
        let size = element.frame.size
        cairo_translate(cr, (c.x + t.translation.x) * scale, (c.y + t.translation.y) * scale)
        cairo_rotate(cr, t.rotation)
        cairo_scale(cr, t.scale, t.scale)
        if element.opacity < 1 { cairo_push_group(cr) }
        let radius = element.shadowRadius.rounded()
        if radius > 0 {
            let l = ElementSurface.layout(for: size, shadowRadius: radius, pixelsPerPoint: scale)
            if let mask = shadowMask(element.kind, size: size, radius: radius, layout: l) {
                cairo_set_source_rgba(cr, 0, 0, 0, ElementSurface.shadowOpacity)
                // The mask holds the shadow at its offset already.
                cairo_mask_surface(cr, mask.surface, -l.anchorX, -l.anchorY)
            }
        }
        cairo_scale(cr, scale, scale)
        cairo_translate(cr, -size.width / 2, -size.height / 2)
        painter.paint(element.kind, size: size, cr: cr)
        if element.opacity < 1 {
            cairo_pop_group_to_source(cr)
            cairo_paint_with_alpha(cr, element.opacity)
        }
    }
}
