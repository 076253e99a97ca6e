import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskDeckFiles
@testable import KioskInput
@testable import KioskSystem

/// Every file a user names is read bounded: opened without blocking, checked to be a regular
/// file, refused with both sizes when too large — never a hang, a memory run-out or a silent cut.
@Suite struct BoundedInputTests {
    /// A FIFO with no writer: a blocking open would wait for ever.
    func fifo(_ dir: String, _ name: String) throws -> String {
        let path = dir + "/" + name
        try #require(mkfifo(path, 0o644) == 0)
        return path
    }

    @Test func fifoIsRefusedAtOnceByName() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-fifo")
        defer { DeckFixtures.removeTree(dir) }
        let path = try fifo(dir, "deck.json")
        #expect {
            try FileIO.readAll(path, limit: 1 << 20, what: "deck.json")
        } throws: { error in
            "\(error)" == "deck.json is a FIFO, not a regular file — give the path of a file"
        }
    }

    @Test(arguments: [("/dev/zero", "a character device"), ("/tmp", "a directory")])
    func devicesAndDirectoriesAreRefused(path: String, kind: String) {
        #expect {
            try FileIO.readAll(path, limit: 1 << 20)
        } throws: { error in
            "\(error)" == "\(path) is \(kind), not a regular file — give the path of a file"
        }
    }

    @Test func aDeviceReadOnPurposeIsStillBounded() throws {
        #expect {
            try FileIO.readAll("/dev/zero", limit: 4096, accept: .anyFileType)
        } throws: { error in
            "\(error)" == "/dev/zero is over the limit of 4 KB"
        }
    }

    @Test func procFilesAreRegularAndReadToTheEnd() throws {
        // /proc files state size 0; they are read to EOF, not refused as empty or odd.
        let text = try FileIO.readText("/proc/self/status", limit: 1 << 20)
        #expect(text.contains("VmRSS:"))
    }

    @Test func overTheLimitIsAnErrorWithBothSizesAndExactlyAtItIsRead() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-size")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/x"
        DeckFixtures.writeBytes([UInt8](repeating: 65, count: 4096), to: path)
        #expect(try FileIO.readAll(path, limit: 4096).count == 4096)
        #expect {
            try FileIO.readAll(path, limit: 4095)
        } throws: { error in
            "\(error)" == "\(path) is 4 KB; the limit is 3 KB"
        }
    }

    @Test func deckOverSixteenMegabytesSaysSoInsteadOfAnUnclosedString() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-deck")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        // A string that would be cut at 16 MiB, as the old silent cut did.
        let big = Array("{\"title\": \"".utf8) + [UInt8](repeating: 0x61, count: (17 << 20) - 100) + Array("\"}".utf8)
        DeckFixtures.writeBytes(big, to: path)
        guard case .failure(let problems) = DeckLoader.load(path: path) else {
            Issue.record("a 17 MB deck loaded")
            return
        }
        let message = problems.problems.first?.message ?? ""
        #expect(message == "cannot read the deck file: it is 17 MB; the limit is 16 MB", "\(message)")
    }

    @Test func deckGivenAsAFifoFailsAtOnce() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-deck-fifo")
        defer { DeckFixtures.removeTree(dir) }
        let path = try fifo(dir, "deck.json")
        guard case .failure(let problems) = DeckLoader.load(path: path) else {
            Issue.record("a FIFO loaded as a deck")
            return
        }
        #expect(problems.problems.first?.message.contains("is a FIFO, not a regular file") == true)
    }

    @Test func configFromDevZeroOrAFifoIsAClearError() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-config")
        defer { DeckFixtures.removeTree(dir) }
        for path in ["/dev/zero", try fifo(dir, "kiosk.conf")] {
            guard case .unreadable(let reason) = KioskConfig.readConfigFile(path) else {
                Issue.record("\(path) read as a config")
                continue
            }
            #expect(reason.contains("not a regular file — give the path of a file"), "\(reason)")
        }
    }

    @Test func configOverOneMebibyteIsAnErrorNotACut() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-config-size")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/kiosk.conf"
        // Valid lines up to past the limit, then a bad one the old cut silently dropped.
        let line = "# " + String(repeating: "x", count: 1000) + "\n"
        DeckFixtures.write(String(repeating: line, count: 1100) + "no-such-key = 1\n", to: path)
        guard case .unreadable(let reason) = KioskConfig.readConfigFile(path) else {
            Issue.record("a config over 1 MiB was used")
            return
        }
        #expect(reason == "it is 2 MB; the limit is 1 MB", "\(reason)")
    }

    @Test func configErrorQuotesAShortEscapedExcerptOfTheLine() throws {
        let nuls = String(repeating: "\u{0}", count: 100_000)
        var config = KioskConfig()
        let error = try #require(KioskConfig.apply(file: nuls, name: "kiosk.conf", to: &config))
        #expect(error.message.utf8.count < 400, "\(error.message.utf8.count) bytes")
        #expect(error.message.contains("\\x00\\x00"))
        #expect(error.message.contains("… (100000 bytes)"))
        #expect(!error.message.contains("\u{0}"))
    }

    @Test func deckErrorQuotesAShortExcerptOfAHugeKey() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-deck-key")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        let key = String(repeating: "k", count: 100_000)
        DeckFixtures.write("{\"\(key)\": 1}", to: path)
        guard case .failure(let problems) = DeckLoader.load(path: path) else {
            Issue.record("a deck with a 100 KB key loaded")
            return
        }
        let message = try #require(problems.problems.first { $0.message.contains("unknown key") }?.message)
        #expect(message.utf8.count < 400, "\(message.utf8.count) bytes")
        #expect(message.contains("… (100000 bytes)"))
    }

    @Test func recordingFromDevZeroOrAFifoIsAClearError() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-evemu")
        defer { DeckFixtures.removeTree(dir) }
        for path in ["/dev/zero", try fifo(dir, "r.evemu")] {
            #expect {
                try EvemuRecording(contentsOf: path)
            } throws: { error in
                "\(error)".contains("not a regular file — give the path of a file")
            }
        }
    }

    @Test func injectScriptFromDevZeroIsAClearError() throws {
        var options = InjectOptions()
        options.items = [.script("/dev/zero")]
        #expect {
            try options.commands()
        } throws: { error in
            "\(error)".contains("/dev/zero: it is a character device, not a regular file")
        }
    }

    /// A recording is read in 64 KiB chunks: lines across chunk boundaries decode exactly as
    /// the whole text does.
    @Test func streamedRecordingEqualsTheWholeText() throws {
        let path = try TouchTestData.requireDirectory() + "/dell-canvas-cooltouch-hid-win8-up-to-5-fingers.evemu"
        let streamed = try EvemuRecording(contentsOf: path)
        let whole = try EvemuRecording(parsing: try FileIO.readText(path, limit: 1 << 20), source: path)
        #expect(streamed.events.count > 5000)
        #expect(streamed.events == whole.events)
        #expect(streamed.device == whole.device)
    }

    @Test func recordingLineOverTheLimitIsAnError() throws {
        let dir = DeckFixtures.temporaryDirectory("bounded-evemu-line")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/long.evemu"
        DeckFixtures.write("N: x\n# " + String(repeating: "y", count: 100_000) + "\n", to: path)
        #expect {
            try EvemuRecording(contentsOf: path)
        } throws: { error in
            "\(error)" == "\(path):2: line is longer than 64 KB; this is not an evemu recording"
        }
    }

    @Test func evemuTimestampBeyondInt64NanosecondsIsAnErrorNotATrap() {
        let text = "N: x\nB: 03 03\nE: 9223372037.000000 0003 0000 1\n"
        #expect {
            try EvemuRecording(parsing: text, source: "late.evemu")
        } throws: { error in
            "\(error)".hasPrefix("late.evemu:3: time '9223372037.000000' is beyond")
        }
        // The last second that fits still parses.
        #expect(throws: Never.self) {
            try EvemuRecording(parsing: "N: x\nB: 03 03\nE: 9223372035.999999 0003 0000 1\n")
        }
    }

    @Test(arguments: ["B: 01", "P:"])
    func evemuMaskLongerThanSixteenBitCodesIsAnErrorNotATrap(prefix: String) {
        // 8193 bytes of bits: the last sets code 65536, past UInt16.
        let line = prefix + String(repeating: " 00", count: 8192) + " 01"
        let text = "N: x\n" + line + "\nB: 03 03\n"
        #expect {
            try EvemuRecording(parsing: text, source: "long.evemu")
        } throws: { error in
            "\(error)".hasPrefix("long.evemu:2: '\(prefix.prefix(2))' byte 8193 sets")
                && "\(error)".contains("65536")
        }
    }
}

/// Numbers a user types are range-checked before any arithmetic: no trap is reachable.
@Suite struct BoundedNumberTests {
    @Test(arguments: ["1e30", "inf", "nan", "9223372036854", "-1"])
    func renderAtOutOfRangeIsAUsageError(value: String) {
        #expect {
            try RenderOptions.parse(["--deck", "d.json", "--out", "o.png", "--at", value])
        } throws: { error in
            "\(error)".contains("milliseconds from 0 to 86400000 (a day)")
        }
    }

    @Test func renderAtADayIsAccepted() throws {
        let o = try RenderOptions.parse(["--deck", "d.json", "--out", "o.png", "--at", "86400000"])
        #expect(o.atMs == 86_400_000)
    }

    @Test(arguments: ["99999999999999d", "9223372036854775807s", "106751991167301d"])
    func exportSinceAnAgePastInt64IsAUsageError(value: String) {
        guard case .failure(let e) = ExportCommand.parse(["--since", value], now: 1_714_521_600_000) else {
            Issue.record("\(value) accepted")
            return
        }
        #expect(e.message.contains("24h"))
    }

    @Test func wallClockFormatsTheExtremesWithoutATrap() {
        #expect(WallClock.iso8601(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        // Near ±2^63 ms: glibc cannot name the year; the text says the milliseconds instead.
        for ms in [Int64.min, Int64.min + 1, Int64.max, Int64.max - 1] {
            let text = WallClock.iso8601(milliseconds: ms)
            #expect(!text.isEmpty)
        }
    }
}

/// Durations a user types into a tool become nanoseconds or frame counts: each is bounded in
/// its option or script line, so 1e30 is a usage error, not a trap.
@Suite struct BoundedDurationTests {
    @Test(arguments: [
        ["probe", "--watch", "/dev/null", "--seconds", "1e30"],
        ["touch-test", "--seconds", "1e30"],
        ["display-test", "--seconds", "1e30"],
        ["calibrate", "--timeout", "1e30"],
        ["inject", "--settle", "1e30", "tap 1 1"],
    ])
    func hugeDurationIsAUsageError(arguments: [String]) {
        #expect(CommandLine.runKiosk(arguments: arguments) == 2)
    }

    @Test(arguments: ["wait 1e300", "drag 0 0 1 1 1e30", "move 0 1 1 1e30", "flick 0 0 1 1 1e20"])
    func hugeScriptDurationNamesTheLimit(line: String) {
        #expect {
            try InjectStep(parsing: line, lineNumber: 3)
        } throws: { error in
            "\(error)".hasPrefix("line 3: ") && "\(error)".contains("MS is at most 86400000 (a day)")
        }
    }

    @Test func aDayIsAccepted() throws {
        #expect(try InjectStep(parsing: "wait 86400000", lineNumber: 1) == .wait(ms: 86_400_000))
    }
}
