import KioskSystem

/// Why the display cannot run, worded so the operator knows the fix.
package enum DisplayError: Error, CustomStringConvertible {
    /// No DRM card node (and no framebuffer device) was found.
    case noDevice(searched: [String])
    /// The given path does not exist.
    case notFound(path: String)
    /// The path exists but is not a character device (e.g. a regular file).
    case notADevice(path: String)
    /// The path is a character device but not a DRM card (or its driver has no mode setting).
    case notDrm(path: String)
    /// open(2) was refused; `group` owns the node, `user` runs this program.
    case permissionDenied(path: String, user: String, group: String?)
    /// Another program is DRM master; `holders` are the processes with the node open.
    case notMaster(path: String, holders: [ProcessName])
    /// No connector has a display attached (`--connector` narrows it to one).
    case noConnectedConnector(path: String, connectors: [String])
    case connectorNotFound(name: String, available: [String])
    case modeNotAvailable(request: ModeRequest, connector: String, available: [String])
    case noCRTC(connector: String)
    /// The driver cannot allocate dumb buffers (`DRM_CAP_DUMB_BUFFER` is 0).
    case noDumbBuffers(path: String, driver: String)
    case system(SystemCallError)

    /// A process seen holding a device open.
    package struct ProcessName: Hashable, Sendable, CustomStringConvertible {
        var pid: Int32
        var command: String
        package var description: String { "\(command) (pid \(pid))" }
    }

    /// True when waiting for a hotplug may fix it.
    var isWaitingForDisplay: Bool {
        if case .noConnectedConnector = self { return true }
        return false
    }

    package var description: String {
        switch self {
        case .noDevice(let searched):
            let list = searched.isEmpty ? "nothing found" : searched.joined(separator: ", ")
            return "no DRM display device (looked at \(list)); load the GPU's kernel mode-setting driver "
                + "(on a Raspberry Pi: dtoverlay=vc4-kms-v3d in config.txt), or pass --drm PATH, "
                + "or --fbdev /dev/fbN for a framebuffer-only panel"
        case .notFound(let path):
            return "\(path) does not exist; run 'KioskCards probe' to list the display devices and pass one with --drm"
        case .notADevice(let path):
            return "\(path) is not a device node (a regular file or directory?); pass a DRM card such as "
                + "/dev/dri/card0 with --drm"
        case .notDrm(let path):
            return "\(path) is not a DRM device with mode setting; pass a card node such as /dev/dri/card0 "
                + "(not renderD*) with --drm"
        case .permissionDenied(let path, let user, let group):
            let g = group ?? "video"
            return "permission denied on \(path) — add the service user to group '\(g)' "
                + "(usermod -aG \(g) \(user), then log in again or restart the service)"
        case .notMaster(let path, let holders):
            let who =
                holders.isEmpty
                ? "another program"
                : "another program (\(holders.map(\.description).joined(separator: ", ")))"
            return "\(path) is busy: \(who) is DRM master; stop it (e.g. its display manager or compositor, "
                + "'fuser -v \(path)' lists them) or let KioskCards run on its own VT"
        case .noConnectedConnector(let path, let connectors):
            let list = connectors.isEmpty ? "it has no connectors" : connectors.joined(separator: ", ")
            return "no display connected to \(path) (\(list)); waiting for one to be plugged in"
        case .connectorNotFound(let name, let available):
            return "connector '\(name)' does not exist; available: \(available.joined(separator: ", ")) "
                + "(pass one of them with --connector)"
        case .modeNotAvailable(let request, let connector, let available):
            return "\(connector) has no mode \(request); it offers \(available.joined(separator: ", ")) "
                + "(pass one with --mode, or leave --mode out for the preferred mode)"
        case .noCRTC(let connector):
            return "no free display controller (CRTC) can drive \(connector); choose another --connector"
        case .noDumbBuffers(let path, let driver):
            return "the \(driver) driver of \(path) cannot allocate scanout (dumb) buffers; use a driver with "
                + "KMS dumb-buffer support or the framebuffer fallback (--fbdev /dev/fb0)"
        case .system(let error):
            return error.description
        }
    }
}
