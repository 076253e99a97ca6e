import KioskSystem

/// Which `Scanout` the operator's options lead to, decided purely from what exists.
enum ScanoutBackEnd: Hashable, Sendable {
    /// DRM/KMS on the first of these card nodes with a connected display.
    case drm(cardPaths: [String])
    /// The framebuffer device at this path.
    case fbdev(path: String)

    /// DRM unless there is no card node or `--fbdev` was given without `--drm`; then the
    /// framebuffer `--fbdev` names, else `/dev/fb0` when it exists (`fileExists`).
    /// `cardPaths` is consulted only when `--drm` is not given.
    static func choose(
        options: DisplayOptions, cardPaths: @autoclosure () -> [String], fileExists: (String) -> Bool
    ) throws(DisplayError) -> ScanoutBackEnd {
        let paths = options.drmPath.map { [$0] } ?? cardPaths()
        if paths.isEmpty || (options.fbdevPath != nil && options.drmPath == nil) {
            let fbPath = options.fbdevPath ?? "/dev/fb0"
            if options.fbdevPath != nil || fileExists(fbPath) { return .fbdev(path: fbPath) }
            throw .noDevice(searched: ["/dev/dri/card*", fbPath])
        }
        return .drm(cardPaths: paths)
    }

    /// Opens the back end (not started: `Display` switches the VT first).
    func open(options: DisplayOptions, loop: EventLoop) throws(DisplayError) -> any Scanout {
        switch self {
        case .drm(let paths): try DrmScanout(cardPaths: paths, options: options, loop: loop)
        case .fbdev(let path): FbdevScanout(device: try FramebufferDevice(path: path))
        }
    }
}
