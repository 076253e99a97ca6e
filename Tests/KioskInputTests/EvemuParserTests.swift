import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput

@Suite struct EvemuParserTests {
    @Test func evemu13HeaderWithResolutionCommentsAndPaddedNegatives() throws {
        let text = """
            # EVEMU 1.3
            # Input device name: "Panel"
            N: Advanced Silicon S.A. CoolTouch® System
            I: 0003 2575 0204 0111
            P: 02 00 00 00 00 00 00 00
            B: 00 0b 00 00 00 00 00 00 00
            B: 01 00 00 00 00 00 00 00 00
            B: 01 00 00 00 00 00 00 00 00
            B: 01 00 00 00 00 00 00 00 00
            B: 01 00 00 00 00 00 00 00 00
            B: 01 00 00 00 00 00 00 00 00
            B: 01 00 04 00 00 00 00 00 00
            B: 03 03 00 00 00 00 80 60 02
            A: 00 0 32767 0 0 55
            A: 01 -100 32767 4 2 98
            ################################
            #      Waiting for events      #
            ################################
            E: 0.000001 0003 0039 0003\t# EV_ABS / ABS_MT_TRACKING_ID   3
            # a comment between events
            E: 0.000001 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1
            E: 12.500000 0000 0000 0000\t# ------------ SYN_REPORT (0) ----------
            """
        let rec = try EvemuRecording(parsing: text)
        #expect(rec.device.name == "Advanced Silicon S.A. CoolTouch® System")
        #expect(rec.device.id == DeviceID(bus: 3, vendor: 0x2575, product: 0x0204, version: 0x0111))
        #expect(rec.device.properties == [EvdevCode.propDirect])
        #expect(rec.device.eventTypes == [EvdevCode.evSyn, EvdevCode.evKey, EvdevCode.evAbs])
        #expect(rec.device.codes[EvdevCode.evKey] == [EvdevCode.btnTouch])
        #expect(
            rec.device.codes[EvdevCode.evAbs]
                == [
                    EvdevCode.absX, EvdevCode.absY, EvdevCode.absMTSlot, EvdevCode.absMTPositionX,
                    EvdevCode.absMTPositionY, EvdevCode.absMTTrackingID,
                ])
        #expect(rec.device.absInfo[EvdevCode.absX] == AbsInfo(minimum: 0, maximum: 32767, resolution: 55))
        #expect(
            rec.device.absInfo[EvdevCode.absY]
                == AbsInfo(minimum: -100, maximum: 32767, fuzz: 4, flat: 2, resolution: 98))
        #expect(rec.events.map(\.value) == [3, -1, 0])
        #expect(rec.events[0].time == Instant(nanoseconds: 1000))
        #expect(rec.events[2].time == Instant.seconds(12.5))
        #expect(rec.events[2].isSynReport)
    }

    @Test func headerlessFourNumberAbsLines() throws {
        let text = """
            N: QUANTA OpticalTouchScreen
            I: 0003 0408 3001 0110
            P: 02 00 00 00 00 00 00 00
            B: 03 03 00 00 00 00 80 60 02
            A: 00 0 1920 0 0
            A: 01 0 1080 0 0
            E: 1350644065.367554 0003 0039 43
            E: 1350644065.367558 0003 0035 1041
            """
        let rec = try EvemuRecording(parsing: text)
        #expect(rec.device.absInfo[EvdevCode.absX] == AbsInfo(minimum: 0, maximum: 1920))
        #expect(rec.events.count == 2)
        #expect(rec.events[1].time == Instant(nanoseconds: 1_350_644_065_367_558_000))
    }

    @Test(arguments: [
        ("N: x\nB: 03 03\nA: 00 0 10 0\n", 3, "needs code min max"),
        ("N: x\nB: 03 03\nE: 1.0 0003 0000\n", 3, "sec.usec type code value"),
        ("N: x\nB: 03 03\nE: 1.0 0003 zz 5\n", 3, "event code 'zz'"),
        ("N: x\n\nQ: what\n", 3, "unknown line type"),
        ("N: x\nE: 1.x 0003 0000 1\n", 2, "time '1.x'"),
        ("E: 1.0 0003 0000 1\n", 1, "no device description"),
        ("N: x\nA: 00 10 5 0 0\n", 2, "below minimum"),
        ("N: x\nB: 03 03\nE: 1.000000 0003 0000 99999999999\n", 3, "32-bit"),
        ("just text\n", 1, "not an evemu line"),
    ])
    func badInputNamesTheLine(text: String, line: Int, fragment: String) {
        do {
            _ = try EvemuRecording(parsing: text, source: "bad.evemu")
            Issue.record("parsed although line \(line) is bad")
        } catch {
            #expect(error.line == line)
            #expect(error.message.contains(fragment), "\(error.message)")
            #expect(error.description.hasPrefix("bad.evemu:\(line): "))
        }
    }

    @Test func everySharedRecordingParses() throws {
        let files = TouchTestData.allFiles
        _ = try TouchTestData.requireDirectory()
        #expect(files.count >= 18)
        for name in files {
            let rec = try TouchTestData.load(name)
            #expect(!rec.device.name.isEmpty, "\(name)")
            #expect(!rec.device.absInfo.isEmpty, "\(name)")
        }
    }

    @Test func missingFileIsAnErrorNotACrash() {
        #expect(throws: EvemuError.self) { try EvemuRecording(contentsOf: "/nonexistent/x.evemu") }
    }
}
