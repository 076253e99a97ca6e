import Testing

@testable import KioskDisplay

@Suite struct DisplayHotplugTests {
    static func bytes(_ fields: [String]) -> [UInt8] {
        fields.flatMap { Array($0.utf8) + [0] }
    }

    @Test func kernelHotplugEventMatches() throws {
        // As the kernel sends it (drm_sysfs_hotplug_event) when a monitor is plugged in.
        let event = try #require(
            UEvent(
                Self.bytes([
                    "change@/devices/pci0000:00/0000:00:02.0/drm/card0", "ACTION=change",
                    "DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0", "SUBSYSTEM=drm", "HOTPLUG=1",
                    "DEVNAME=dri/card0", "DEVTYPE=drm_minor", "SEQNUM=2471", "MAJOR=226", "MINOR=0",
                ])))
        #expect(event.action == "change")
        #expect(event.devpath == "/devices/pci0000:00/0000:00:02.0/drm/card0")
        #expect(event.properties["SEQNUM"] == "2471")
        #expect(event.isDrmHotplug)
    }

    @Test func otherEventsDoNotMatch() throws {
        let input = try #require(
            UEvent(Self.bytes(["add@/devices/virtual/input/input5", "ACTION=add", "SUBSYSTEM=input"])))
        #expect(!input.isDrmHotplug)
        let render = try #require(
            UEvent(
                Self.bytes([
                    "change@/devices/x/drm/renderD128", "ACTION=change", "SUBSYSTEM=drm", "DEVNAME=dri/renderD128",
                ])))
        #expect(!render.isDrmHotplug, "render nodes have no connectors")
        let synthetic = try #require(
            UEvent(Self.bytes(["change@/devices/x/drm/card1", "ACTION=change", "SUBSYSTEM=drm", "DEVNAME=dri/card1"])))
        #expect(synthetic.isDrmHotplug)
    }

    @Test func udevRebroadcastAndGarbageAreIgnored() {
        // libudev's own messages start with "libudev\0" and a binary header, not "action@path".
        #expect(UEvent(Array("libudev".utf8) + [0, 0xFE, 0xED, 0xCA, 0xFE]) == nil)
        #expect(UEvent([]) == nil)
        #expect(UEvent(Array("no at sign".utf8)) == nil)
    }
}
