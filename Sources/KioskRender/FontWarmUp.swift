import CGraphics
import CPangoCairo
import CardModel
import KioskSystem

/// Fonts made ready on a thread of their own while the process does other start-up work.
///
/// The first text a process lays out waits for fontconfig to load its configuration (parsing
/// every file under /etc/fonts) and for the fonts of each new size and weight to be matched
/// and opened: most of the first frame's text cost. `start` does that work ahead on a new
/// thread, with a pango font map of its own, while the caller reads its deck and draws what
/// has no text (a resting stack's covered cards). The first thread to lay out text afterwards
/// (`Text`) waits for that thread and takes its font map as its own default: a pango font map
/// is not thread-safe, so it has one user at a time, handed over under a lock, and the warm-up
/// thread keeps nothing. Other threads make their own maps on the configuration already loaded.
///
/// Only fonts are prepared, never text or pixels: text is laid out and drawn as without it
/// (`RenderFontWarmUpTests` compares the pixels).
package final class FontWarmUp: @unchecked Sendable {
    /// The process's warm-up, which `Text` adopts from.
    static let process = FontWarmUp()

    private let lock = Condition()
    private var started = false
    private var finished = false
    private var taken = false
    /// The warmed font map (`PangoFontMap *`, one reference) until a thread takes it.
    private var fontMap: UnsafeMutableRawPointer?
    /// The warm-up's thread, once it runs.
    private var thread: pthread_t?

    init() {}

    deinit { if let fontMap { g_object_unref(fontMap) } }

    /// Starts the process's warm-up (`start(pixelsPerPoint:)`), once per process.
    package static func start(pixelsPerPoint: Double?) { process.start(pixelsPerPoint: pixelsPerPoint) }

    /// Starts preparing fonts on a new thread; later calls do nothing. `pixelsPerPoint`: the
    /// scale a card's text will be drawn at, whose title and subtitle fonts are matched and
    /// opened too; nil loads only fontconfig's configuration and the body text's font.
    func start(pixelsPerPoint: Double?) {
        let first = lock.withLock {
            defer { started = true }
            return !started
        }
        guard first else { return }
        let k = pixelsPerPoint.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        // A process that ends while the warm-up runs (`render` refusing its arguments) waits
        // for it first: exit's destructors beside the thread's GObject, fontconfig and loader
        // work aborted the process ("cannot register existing fundamental type 'gchar'").
        atexit { FontWarmUp.process.waitUntilFinished() }
        // The threads pango starts from this one inherit its mask: every signal blocked.
        do {
            try HelperThread.detach { [self] in
                lock.withLock { thread = pthread_self() }
                // cairo's and pango's libraries load on a thread of their own while this one
                // reads fontconfig's configuration: the two longest waits of the first text side
                // by side (CGraphics). fontconfig's library first, or its dlopen would wait for
                // theirs. pango's own FcInit then finds the configuration loaded.
                kiosk_fontconfig_open()
                try? HelperThread.detach { _ = kiosk_graphics_load() }
                kiosk_fontconfig_init()
                finish(Self.warm(pixelsPerPoint: k))
            }
        } catch {
            finish(nil)
        }
    }

    /// Before the calling thread lays out text: if a warm-up was started and no thread took its
    /// font map yet, waits for it and makes the map this thread's default (pango's default map
    /// is per thread). Returns whether this thread took it; false at once otherwise.
    @discardableResult
    func adopt() -> Bool {
        lock.lock()
        guard started, !taken else {
            lock.unlock()
            return false
        }
        taken = true
        while !finished { lock.wait() }
        let map = fontMap
        fontMap = nil
        lock.unlock()
        guard let map else { return false }
        pango_cairo_font_map_set_default(OpaquePointer(map))
        g_object_unref(map)
        return true
    }

    /// Returns once the warm-up has finished, or after two seconds (at once if it never
    /// started, or on its own thread). The bound: with cairo's libraries missing, this thread
    /// and the warm-up's both end the process, and an exit may wait for the other's.
    func waitUntilFinished() {
        lock.withLock {
            guard started else { return }
            if let thread, pthread_equal(thread, pthread_self()) != 0 { return }
            let deadline = Condition.deadline(afterSeconds: 2)
            while !finished { if !lock.wait(untilNanoseconds: deadline) { return } }
        }
    }

    private func finish(_ map: UnsafeMutableRawPointer?) {
        lock.withLock {
            fontMap = map
            finished = true
            lock.broadcast()
        }
    }

    /// The warm-up thread's work: a font map of its own, fontconfig loaded by its first
    /// layout, and a card's title and subtitle fonts at `k` pixels per point. Returns the map
    /// (one reference).
    private static func warm(pixelsPerPoint k: Double?) -> UnsafeMutableRawPointer? {
        guard let map = pango_cairo_font_map_new().map(UnsafeMutableRawPointer.init) else { return nil }
        // This thread's default while it lays out, then given back (the thread keeps none).
        pango_cairo_font_map_set_default(OpaquePointer(map))
        defer { pango_cairo_font_map_set_default(nil) }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        var styles = [Text.Style(size: Text.bodySize, color: .black)]
        if let k {
            cairo_scale(cr, k, k)
            // What a card's text takes (`CardTextFit`): pango matches fonts per pixel size and weight.
            styles.append(
                Text.Style(size: Text.titleSize, weight: .bold, color: .black, maxLines: CardTextFit.titleLines))
        }
        for style in styles {
            // With a height limit, as a card's subtitle is laid out: pango then asks for the
            // font's metrics too.
            Text.measure(sample, cr: cr, width: 1_000, maxHeight: 1_000, style: style, adoptingWarmUp: false)
        }
        return map
    }

    /// Latin letters, digits and the ellipsis a cut line ends with.
    static let sample = "Aa Zz 0123456789 …"
}
