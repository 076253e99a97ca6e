import Testing

@testable import KioskDisplay

/// Snapshots shaped like real devices: the resources `drmModeGetResources` & co. report for
/// a Raspberry Pi 4 (vc4: two HDMI ports, a DSI panel, a writeback connector, six CRTCs),
/// and QEMU's virtio-gpu (one Virtual connector, one CRTC).
enum Snapshots {
    static let hdmiModes = [
        DrmMode.synthetic(width: 1920, height: 1080, hz: 60, preferred: true),
        DrmMode.synthetic(width: 1920, height: 1080, hz: 50),
        DrmMode.synthetic(width: 1280, height: 720, hz: 60),
        DrmMode.synthetic(width: 1280, height: 720, hz: 50),
        DrmMode.synthetic(width: 800, height: 480, hz: 60),
    ]

    static func pi4(hdmi1: DrmConnection, hdmi2: DrmConnection, dsi: DrmConnection) -> DrmDeviceSnapshot {
        let crtcs = (0..<6).map { DrmCRTC(id: 100 + DrmObjectID($0), bufferID: 0, x: 0, y: 0, mode: nil) }
        let encoders = [
            DrmEncoder(id: 31, crtcID: 0, possibleCRTCs: 0b000100),  // HDMI0: CRTC index 2
            DrmEncoder(id: 41, crtcID: 0, possibleCRTCs: 0b001000),  // HDMI1: index 3
            DrmEncoder(id: 51, crtcID: 0, possibleCRTCs: 0b000010),  // DSI: index 1
            DrmEncoder(id: 61, crtcID: 0, possibleCRTCs: 0b110000),  // writeback
        ]
        let connectors = [
            DrmConnector(
                id: 32, type: 11, typeIndex: 1, connection: hdmi1, widthMM: 530, heightMM: 300,
                modes: hdmi1 == .connected ? hdmiModes : [], encoderIDs: [31], currentEncoderID: 0,
                panelOrientation: nil, dpmsPropertyID: 2),
            DrmConnector(
                id: 42, type: 11, typeIndex: 2, connection: hdmi2, widthMM: 340, heightMM: 190,
                modes: hdmi2 == .connected
                    ? [DrmMode.synthetic(width: 1280, height: 720, hz: 60, preferred: true)] : [],
                encoderIDs: [41], currentEncoderID: 0, panelOrientation: nil, dpmsPropertyID: 2),
            DrmConnector(
                id: 52, type: 16, typeIndex: 1, connection: dsi, widthMM: 155, heightMM: 86,
                modes: [DrmMode.synthetic(width: 800, height: 480, hz: 60, preferred: true)],
                encoderIDs: [51], currentEncoderID: 0, panelOrientation: .rightSideUp, dpmsPropertyID: 2),
            DrmConnector(
                id: 62, type: 18, typeIndex: 1, connection: .unknown, widthMM: 0, heightMM: 0,
                modes: [], encoderIDs: [61], currentEncoderID: 0, panelOrientation: nil, dpmsPropertyID: nil),
        ]
        return DrmDeviceSnapshot(
            path: "/dev/dri/card1", driver: "vc4", supportsDumbBuffers: true, monotonicTimestamps: true,
            resources: DrmResources(
                connectors: connectors, encoders: encoders, crtcs: crtcs, maxWidth: 7680, maxHeight: 7680))
    }

    /// The v3d render-only card a Pi 4 lists first: no connectors at all.
    static let v3d = DrmDeviceSnapshot(
        path: "/dev/dri/card0", driver: "v3d", supportsDumbBuffers: false, monotonicTimestamps: true,
        resources: DrmResources(connectors: [], encoders: [], crtcs: [], maxWidth: 0, maxHeight: 0))

    /// virtio-gpu as QEMU presents it with `xres=800,yres=480`, while fbcon shows on CRTC 36.
    static let virtio = DrmDeviceSnapshot(
        path: "/dev/dri/card0", driver: "virtio_gpu", supportsDumbBuffers: true, monotonicTimestamps: true,
        resources: DrmResources(
            connectors: [
                DrmConnector(
                    id: 35, type: 15, typeIndex: 1, connection: .connected, widthMM: 0, heightMM: 0,
                    modes: [
                        DrmMode.synthetic(width: 5120, height: 2160, hz: 30),
                        DrmMode.synthetic(width: 800, height: 480, hz: 75, preferred: true),
                        DrmMode.synthetic(width: 1024, height: 768, hz: 60),
                    ],
                    encoderIDs: [37], currentEncoderID: 37, panelOrientation: nil, dpmsPropertyID: 2)
            ],
            encoders: [DrmEncoder(id: 37, crtcID: 36, possibleCRTCs: 1)],
            crtcs: [
                DrmCRTC(id: 36, bufferID: 42, x: 0, y: 0, mode: DrmMode.synthetic(width: 800, height: 480, hz: 75))
            ],
            maxWidth: 8192, maxHeight: 8192))
}

@Suite struct DisplayChoiceTests {
    @Test func skipsDevicesWithoutConnectedDisplayAndTakesFirstConnected() throws {
        let pi = Snapshots.pi4(hdmi1: .disconnected, hdmi2: .connected, dsi: .disconnected)
        let choice = try DisplayChoice.choose(devices: [Snapshots.v3d, pi], options: DisplayOptions())
        #expect(choice.device.path == "/dev/dri/card1")
        #expect(choice.connector.name == "HDMI-A-2")
        #expect(choice.mode.width == 1280 && choice.mode.isPreferred)
        #expect(choice.crtcID == 103, "HDMI1's encoder can only use the CRTC at index 3")
    }

    @Test func namedConnectorWinsOverOrder() throws {
        let pi = Snapshots.pi4(hdmi1: .connected, hdmi2: .connected, dsi: .connected)
        let choice = try DisplayChoice.choose(devices: [pi], options: DisplayOptions(connector: "dsi-1"))
        #expect(choice.connector.name == "DSI-1")
        #expect(choice.crtcID == 101)
        #expect(choice.rotation(options: DisplayOptions()) == .deg90, "the DSI panel is mounted right side up")
        #expect(choice.rotation(options: DisplayOptions(rotation: .deg180)) == .deg180, "the operator's rotation wins")
    }

    @Test func preferredModeByDefaultAndRequestedModeOnRequest() throws {
        let pi = Snapshots.pi4(hdmi1: .connected, hdmi2: .disconnected, dsi: .disconnected)
        let preferred = try DisplayChoice.choose(devices: [pi], options: DisplayOptions())
        #expect(preferred.mode.width == 1920 && preferred.mode.vrefresh == 60)

        let at50 = try DisplayChoice.choose(devices: [pi], options: DisplayOptions(mode: ModeRequest("1920x1080@50")))
        #expect(at50.mode.width == 1920 && abs(at50.mode.refreshHz - 50) < 0.5)

        let anyRate = try DisplayChoice.choose(devices: [pi], options: DisplayOptions(mode: ModeRequest("1280x720")))
        #expect(anyRate.mode.width == 1280 && abs(anyRate.mode.refreshHz - 60) < 0.5, "the highest refresh")

        // virtio lists a huge mode first; the preferred one is second.
        let v = try DisplayChoice.choose(devices: [Snapshots.virtio], options: DisplayOptions())
        #expect(v.mode.width == 800 && v.mode.isPreferred)
        #expect(v.crtcID == 36, "the CRTC already driving the connector")
        #expect(v.connector.name == "Virtual-1")
    }

    @Test func unavailableModeListsTheOffered() {
        let pi = Snapshots.pi4(hdmi1: .connected, hdmi2: .disconnected, dsi: .disconnected)
        #expect {
            try DisplayChoice.choose(devices: [pi], options: DisplayOptions(mode: ModeRequest("1024x600")))
        } throws: { error in
            let text = String(describing: error)
            return text.contains("HDMI-A-1 has no mode 1024x600") && text.contains("1280x720@")
        }
    }

    @Test func noConnectedConnectorSaysItWaits() {
        let pi = Snapshots.pi4(hdmi1: .disconnected, hdmi2: .disconnected, dsi: .disconnected)
        do {
            _ = try DisplayChoice.choose(devices: [Snapshots.v3d, pi], options: DisplayOptions())
            Issue.record("chose a display where none is connected")
        } catch {
            #expect(error.isWaitingForDisplay)
            let text = error.description
            #expect(text.contains("HDMI-A-1 disconnected") && text.contains("waiting"))
        }
    }

    @Test func unknownConnectorAndDeviceNameTheAlternatives() {
        let pi = Snapshots.pi4(hdmi1: .connected, hdmi2: .disconnected, dsi: .disconnected)
        #expect(throws: DisplayError.self) {
            try DisplayChoice.choose(devices: [pi], options: DisplayOptions(connector: "HDMI-A-3"))
        }
        do {
            _ = try DisplayChoice.choose(devices: [pi], options: DisplayOptions(connector: "HDMI-A-3"))
        } catch {
            #expect(error.description.contains("available: HDMI-A-1, HDMI-A-2, DSI-1, Writeback-1"))
        }
        do {
            _ = try DisplayChoice.choose(devices: [pi], options: DisplayOptions(drmPath: "/dev/dri/card7"))
        } catch {
            #expect(error.description.contains("/dev/dri/card7 does not exist"))
        }
        do {
            _ = try DisplayChoice.choose(devices: [], options: DisplayOptions())
        } catch {
            #expect(error.description.contains("no DRM display device"))
        }
    }

    @Test func noDumbBuffersIsReported() {
        var v = Snapshots.virtio
        v.supportsDumbBuffers = false
        do {
            _ = try DisplayChoice.choose(devices: [v], options: DisplayOptions())
            Issue.record("chose a device without dumb buffers")
        } catch {
            #expect(error.description.contains("virtio_gpu driver") && error.description.contains("dumb"))
        }
    }

    @Test(arguments: [
        ("800x480", ModeRequest(width: 800, height: 480)),
        ("1920x1080@59.94", ModeRequest(width: 1920, height: 1080, refreshHz: 59.94)),
    ])
    func parsesModes(text: String, expected: ModeRequest) {
        #expect(ModeRequest(text) == expected)
    }

    @Test(arguments: ["800", "800x", "x480", "800x480@", "800x480@fast", "-800x480", "0x0"])
    func rejectsBadModes(text: String) {
        #expect(ModeRequest(text) == nil)
    }

    @Test func refreshFromTimings() {
        // CEA 1080p60: 148.5 MHz over 2200×1125.
        let mode = DrmMode(
            name: "1920x1080", clockKHz: 148_500, hdisplay: 1920, hsyncStart: 2008, hsyncEnd: 2052, htotal: 2200,
            hskew: 0, vdisplay: 1080, vsyncStart: 1084, vsyncEnd: 1089, vtotal: 1125, vscan: 0, vrefresh: 60,
            flags: 5, type: 0x48)
        #expect(abs(mode.refreshHz - 60) < 1e-9)
        #expect(mode.periodNanoseconds == 16_666_667)
        #expect(mode.isPreferred)
        var interlaced = mode
        interlaced.flags |= DrmMode.flagInterlace
        #expect(abs(interlaced.refreshHz - 120) < 1e-9)
    }

    @Test func connectorNamesFollowTheKernel() {
        #expect(DrmConnector.typeName(11) == "HDMI-A")
        #expect(DrmConnector.typeName(16) == "DSI")
        #expect(DrmConnector.typeName(15) == "Virtual")
        #expect(DrmConnector.type(named: "eDP") == 14)
        #expect(DrmConnector.typeName(99) == "Type99")
    }
}
