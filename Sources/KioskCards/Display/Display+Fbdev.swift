import CardModel

extension Display {
    /// The fbdev path: turn the damage into a staging image in ordinary memory, then convert
    /// that rectangle into the framebuffer's format. One buffer, so only this frame's damage is
    /// copied (tearing is possible; fbdev has no flip event). Paced to 60 Hz by the same policy.
    func presentFbdev(_ frame: PixelBuffer, damage: PixelRect) -> Bool {
        let now = MonotonicClock.now()
        guard pacer.decision(now: now) == .now else {
            requestFrame()
            return false
        }
        let staging = fbdevStaging ?? PixelBuffer(width: panelWidth, height: panelHeight)
        fbdevStaging = staging
        let full = fullDamagePending ? frame.bounds : damage.intersection(frame.bounds)
        fullDamagePending = false
        ScanoutCopy.copy(frame, damage: full, rotation: rotation, to: staging.pixels, destinationStride: staging.stride)
        let physical = ScanoutCopy.physicalRect(
            full, rotation: rotation, logicalWidth: frame.width, logicalHeight: frame.height)
        fbdev?.convert(from: staging, rect: physical)
        pacer.flipIssued(at: now)
        pacer.flipCompleted(timestamp: now)
        return true
    }
}

extension FramebufferDevice {
    func convert(from staging: PixelBuffer, rect: PixelRect) {
        format.convert(
            from: staging.pixels, sourceStride: staging.stride, rect: rect, to: pixels, destinationStride: stride)
    }
}
