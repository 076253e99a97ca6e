import CardModel

/// The swipe stamps ("Später"/"Verstanden" over a dragged card): card-sized images without a
/// shadow, 1.75 MB each at 1920×1080. Only the one of the direction a drag goes is held: it is
/// drawn on the preparation thread when a drag first shows it, and the other direction's is
/// dropped when the card is released or swiped.
struct StampMemory {
    /// The stamps asked of the preparation thread since the last release.
    var asked: Set<SurfaceCache.Key> = []
    /// The stamp the last scene showed; nil when it showed none.
    var shown: SurfaceCache.Key?
}

extension SceneRenderer {
    /// Below this opacity a stamp the preparation thread has not drawn yet is left out of the
    /// frame; from it on it is drawn in the frame. A stamp fades in over the first 120 pt of a
    /// drag (0.08 at a 10 pt slop), so while it is faint a frame without it only shows it a
    /// little later, whereas drawing it here lays out its text on the frame path (the card stops
    /// following the finger for that frame). Three quarters gives the thread 80 pt of drag after
    /// the slop: 7 frames at the 12 pt a frame of `bench --scene stack-visit`, and a flick as
    /// fast as `stack-drag` (75 pt a frame, 0.63 in its first moving frame) still waits one
    /// frame for it. Near full opacity the stamp says that a release dismisses: then it shows,
    /// whatever that costs.
    static let stampLeftOutBelow = 0.75

    /// Whether `element` is a stamp to leave out of this frame: not cached, faint, and asked of
    /// the preparation thread (first in its queue). Counted as a stand-in frame; the frame
    /// after the image arrives shows it. Without a preparation thread (`render`, `simulate`,
    /// tests) a stamp is drawn where it is needed, as any image.
    func leavesOutStamp(_ element: SceneElement, key: SurfaceCache.Key, pixelsPerPoint k: Double) -> Bool {
        guard case .stamp = element.kind.unmirrored, let preparer, element.opacity < Self.stampLeftOutBelow,
            preparer.request(key, pixelsPerPoint: k, images: images, urgent: true)
        else { return false }
        stamps.asked.insert(key)
        standInsShown.insert(key)
        frameUsedStandIn = true
        lastFrame.insert(.stampLeftOut)
        return true
    }

    /// Notes which stamp `scene` shows. When a scene shows none after one that did (the card
    /// was released or swiped, or the finger is back where it began), every other stamp leaves
    /// the cache (or the thread's queue): the one shown last stays, so the next drag the same
    /// way draws nothing new, and at rest one stamp is held, not both.
    func noteStamps(in scene: Scene) {
        if let stamp = scene.elements.last(where: { if case .stamp = $0.kind.unmirrored { true } else { false } }) {
            stamps.shown = cacheKey(stamp).0
            return
        }
        guard let kept = stamps.shown else { return }
        stamps.shown = nil
        let cached = surfaces.entries.keys.filter { key in
            if case .stamp = key.kind.unmirrored { key != kept } else { false }
        }
        for key in cached { _ = surfaces.remove(key) }
        for key in stamps.asked where key != kept && !cached.contains(key) {
            guard let preparer, preparer.isPending(key) else { continue }
            if !preparer.cancel(key) { discardedInFlight.insert(key) }
            standInsShown.remove(key)
        }
        stamps.asked = []
    }
}
