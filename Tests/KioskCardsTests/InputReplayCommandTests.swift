import CardModel
import Glibc
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskSystem

@Suite struct InputReplayCommandTests {
    @Test func jsonNumbers() {
        #expect(jsonNumber(340.5, decimals: 2) == "340.5")
        #expect(jsonNumber(12, decimals: 2) == "12")
        #expect(jsonNumber(-0.125, decimals: 2) == "-0.13")
        #expect(jsonNumber(0.000001, decimals: 6) == "0.000001")
        #expect(jsonNumber(1_299_660_667.063311, decimals: 6) == "1299660667.063311")
    }

    @Test func frameLine() {
        let f = TouchFrame(
            time: .seconds(1.5), contacts: [TouchContact(id: 3, position: Point(x: 10.25, y: 4), phase: .began)])
        #expect(
            replayFrameJSON(f)
                == #"{"type":"frame","t":1.5,"contacts":[{"id":3,"x":10.25,"y":4,"phase":"began"}]}"#)
    }

    @Test func argumentsParse() throws {
        guard
            case .success(let path, let o) = parseReplayArguments([
                "f.evemu", "--screen", "1024x600", "--rotation", "270", "--touch-matrix", "0 1 0 -1 0 1",
                "--touch-transform", "flip-x",
            ])
        else {
            Issue.record("did not parse")
            return
        }
        #expect(path == "f.evemu")
        #expect(o.screen == Size(width: 1024, height: 600))
        #expect(o.rotation == .deg270)
        #expect(o.calibration == TouchMatrix(rotation: .deg270))
        #expect(o.touchTransform == .flipX)
        for bad in [
            [], ["a", "b"], ["a", "--screen", "800"], ["a", "--rotation", "45"], ["a", "--touch-matrix", "1 2"],
            ["a", "--frob"],
        ] {
            if case .success = parseReplayArguments(bad) { Issue.record("accepted \(bad)") }
        }
    }

    @Test func badFileExitsTwo() throws {
        var template = Array("/tmp/kiosk-replay-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        try #require(fd >= 0)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let text = "N: x\nB: 03 03\nA: 00 0 10 0 0\nA: 01 0 10 0 0\nE: 1.0 0003 0000 oops\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
        #expect(CommandLine.runKiosk(arguments: ["replay", path]) == 2)
        #expect(CommandLine.runKiosk(arguments: ["replay", "/nonexistent.evemu"]) == 2)
        #expect(CommandLine.runKiosk(arguments: ["replay", path, "--rotation", "33"]) == 2)
    }

    /// `replay /dev/zero` read until memory ran out; now it is refused at once.
    @Test func deviceAsARecordingExitsTwo() {
        #expect(CommandLine.runKiosk(arguments: ["replay", "/dev/zero"]) == 2)
    }
}
