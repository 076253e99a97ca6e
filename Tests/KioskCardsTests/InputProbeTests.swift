import CardModel
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskInput

@Suite struct InputProbeTests {
    @Test func describesKindAxesSizeAndTransform() throws {
        let rec = try TouchTestData.load("elan-touchscreen-04f3-010c.desc.evemu")
        var options = TouchReplayOptions()
        options.rotation = .deg90
        options.calibration = TouchMatrix(parsing: "1 0 0.01 0 1 0")
        let text = InputProbe.describe(
            path: "/dev/input/event5", rec.device, options: options, calibrationSource: " (test)")
        #expect(text.contains("\"ELAN Touchscreen\" bus 0003 04f3:010c"))
        #expect(text.contains("kind: touchscreen (multitouch, protocol B)"))
        #expect(text.contains("x 0…3312, 10 units/mm"))
        #expect(text.contains("slots: 10"))
        #expect(text.contains("size: 331.2×187.2 mm"))
        #expect(text.contains("calibration 1 0 0.01 0 1 0"))
        #expect(text.contains("rotation 90°"))
        #expect(text.contains("(test)"))
    }

    @Test func notesQuirksAndIgnoredDevices() throws {
        let egalax = try TouchTestData.load("egalax-0eef-0001-singletouch-z-rx-axes.evemu")
        let text = InputProbe.describe(path: "p", egalax.device, options: TouchReplayOptions())
        #expect(text.contains("ABS_Z/ABS_RX"))
        var mouse = DeviceDescription(name: "mouse")
        mouse.enable(type: EvdevCode.evRel, code: 0)
        #expect(
            InputProbe.describe(path: "p", mouse, options: TouchReplayOptions()).contains("ignored (relative pointer"))
    }

    @Test func palmRuleIsShownWithItsBasis() throws {
        let fixture = try EvemuRecording(contentsOf: InputFixtures.directory + "/large-contact.evemu")
        let measured = InputProbe.describe(path: "p", fixture.device, options: TouchReplayOptions())
        #expect(
            measured.contains(
                "palm: MT_TOOL_PALM; ABS_MT_TOUCH_MAJOR > 150 (30 mm); ABS_MT_TOUCH_MINOR > 100 (20 mm)"))
        let threeM = try TouchTestData.load("3m-microtouch-22in-up-to-5-fingers.trimmed.evemu")
        let unmeasured = InputProbe.describe(path: "p", threeM.device, options: TouchReplayOptions())
        #expect(unmeasured.contains("ABS_MT_TOUCH_MAJOR > 8192 (a quarter of its range: no resolution)"))
        let egalax = try TouchTestData.load("egalax-0eef-0001-singletouch-z-rx-axes.evemu")
        #expect(!InputProbe.describe(path: "p", egalax.device, options: TouchReplayOptions()).contains("palm:"))
    }

    @Test func missingNodesAreReportedNotFatal() {
        let text = InputProbe.report(explicitPaths: ["/nonexistent/event9"])
        #expect(text.contains("/nonexistent/event9: cannot open"))
        #expect(text.contains("KioskCards probe"))
        #expect(CommandLine.runKiosk(arguments: ["probe", "--rotation", "13"]) == 2)
    }
}
