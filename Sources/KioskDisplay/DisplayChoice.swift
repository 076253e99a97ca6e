import KioskSystem

/// The device, connector, mode and CRTC to drive: chosen from snapshots, purely.
struct DisplayChoice: Hashable, Sendable {
    var device: DrmDeviceSnapshot
    var connector: DrmConnector
    var mode: DrmMode
    var crtcID: DrmObjectID

    /// Picks what to drive on `devices` for `options`.
    ///
    /// The device is `options.drmPath` or the first (in the given order) with a connected
    /// connector; the connector is `options.connector` or the device's first connected one; the
    /// mode is the first matching `options.mode` (the preferred among several), else the preferred
    /// mode, else the first; the CRTC is the one already feeding the connector when it has one
    /// (no needless modeset), else the first its encoders can use.
    static func choose(
        devices: [DrmDeviceSnapshot], options: DisplayOptions
    ) throws(DisplayError) -> DisplayChoice {
        var candidates = devices
        if let path = options.drmPath {
            candidates = devices.filter { $0.path == path }
            guard !candidates.isEmpty else { throw .notFound(path: path) }
        }
        guard !candidates.isEmpty else { throw .noDevice(searched: []) }

        let usable =
            candidates.first { device in
                device.resources.connectors.contains { isWanted($0, options: options) && $0.connection == .connected }
            } ?? candidates.first { !$0.resources.connectors.isEmpty } ?? candidates[0]
        if let name = options.connector,
            !usable.resources.connectors.contains(where: { $0.name.lowercased() == name.lowercased() })
        {
            throw .connectorNotFound(name: name, available: usable.resources.connectors.map(\.name))
        }
        guard
            let connector = usable.resources.connectors.first(where: {
                isWanted($0, options: options) && $0.connection == .connected && !$0.modes.isEmpty
            })
        else {
            throw .noConnectedConnector(
                path: usable.path,
                connectors: usable.resources.connectors.map { "\($0.name) \($0.connection.rawValue)" })
        }
        guard usable.supportsDumbBuffers else { throw .noDumbBuffers(path: usable.path, driver: usable.driver) }
        let mode = try chooseMode(connector: connector, request: options.mode)
        guard let crtc = chooseCRTC(connector: connector, resources: usable.resources) else {
            throw .noCRTC(connector: connector.name)
        }
        return DisplayChoice(device: usable, connector: connector, mode: mode, crtcID: crtc)
    }

    private static func isWanted(_ connector: DrmConnector, options: DisplayOptions) -> Bool {
        guard let name = options.connector else { return true }
        return connector.name.lowercased() == name.lowercased()
    }

    /// The requested mode (preferred among equals, else the highest refresh), else the preferred mode.
    static func chooseMode(connector: DrmConnector, request: ModeRequest?) throws(DisplayError) -> DrmMode {
        if let request {
            let matching = connector.modes.filter { request.matches($0) }
            if let preferred = matching.first(where: \.isPreferred) { return preferred }
            if request.refreshHz == nil, let best = matching.max(by: { $0.refreshHz < $1.refreshHz }) { return best }
            if let first = matching.first { return first }
            var seen: [String] = []
            for m in connector.modes where !seen.contains(m.description) { seen.append(m.description) }
            throw .modeNotAvailable(request: request, connector: connector.name, available: seen)
        }
        if let preferred = connector.modes.first(where: \.isPreferred) { return preferred }
        guard let first = connector.modes.first else { throw .noConnectedConnector(path: "", connectors: []) }
        return first
    }

    /// The CRTC already driving the connector, else the first one one of its encoders can use.
    static func chooseCRTC(connector: DrmConnector, resources: DrmResources) -> DrmObjectID? {
        if let current = resources.encoder(connector.currentEncoderID), current.crtcID != 0,
            resources.crtc(current.crtcID) != nil
        {
            return current.crtcID
        }
        for encoderID in connector.encoderIDs {
            guard let encoder = resources.encoder(encoderID) else { continue }
            for (i, crtc) in resources.crtcs.enumerated() where encoder.possibleCRTCs & (1 << UInt32(i)) != 0 {
                return crtc.id
            }
        }
        return nil
    }

    /// The rotation to apply: the operator's, else the panel's mounting, else upright.
    func rotation(options: DisplayOptions) -> Rotation {
        options.rotation ?? connector.panelOrientation?.rotation ?? .deg0
    }
}
