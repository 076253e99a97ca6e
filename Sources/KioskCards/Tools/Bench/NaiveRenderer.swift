import CPangoCairo
import CardModel
import Glibc
import KioskRender
import KioskSystem

/// The straightforward way, kept as the benchmark's baseline and as an independent check of
/// the cached pipeline: every frame clears the screen and draws every element with cairo and
/// pango through its transform, blurring each shadow anew. No caches, no damage.
final class NaiveRenderer {
    let scale: Double
    let images: ImageCache?

    init(scale: Double, images: ImageCache? = nil) {
        self.scale = scale
        self.images = images
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
            if let mask = ElementSurface.shadowMask(element.kind, size: size, radius: radius, k: scale, layout: l) {
                cairo_set_source_rgba(cr, 0, 0, 0, ElementSurface.shadowOpacity)
                cairo_mask_surface(
                    cr, mask.surface, -l.anchorX, -l.anchorY + ElementSurface.shadowOffset(radius: radius) * scale)
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
