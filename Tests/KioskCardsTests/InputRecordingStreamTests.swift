import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskSystem

/// Recordings are read as a stream: `replay`'s memory is flat in the recording's
/// length, and the fast `E:` reader agrees with the general parser line for line.
@Suite(.serialized) struct InputRecordingStreamTests {
    /// Writes a recording of `taps` taps (8 events each, one every 0.55 s) on the injected
    /// touchscreen to `path`, 1 MiB at a time.
    static func writeTaps(_ taps: Int, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        let header = FlightRecorder.evemuText(
            device: UInputDevice.touchscreenDescription, events: [], note: "stream test")
        var out = Array(header.utf8)
        func time(_ us: Int) -> String {
            let frac = String(us % 1_000_000)
            return "\(us / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
        }
        var us = 0
        for n in 0..<taps {
            let down = time(us)
            let up = time(us + 50_000)
            let x = 1000 + n % 20_000
            out += Array(
                """
                E: \(down) 0003 0039 \(n % 60_000)
                E: \(down) 0003 0035 \(x)
                E: \(down) 0003 0036 \(x)
                E: \(down) 0001 014a 1
                E: \(down) 0000 0000 0
                E: \(up) 0003 0039 -1
                E: \(up) 0001 014a 0
                E: \(up) 0000 0000 0

                """.utf8)
            us += 550_000
            if out.count > 1 << 20 {
                try FileIO.writeAll(fd: fd, bytes: out)
                out.removeAll(keepingCapacity: true)
            }
        }
        try FileIO.writeAll(fd: fd, bytes: out)
    }

    /// Runs the executable with stdout and stderr on /dev/null and samples its VmHWM (peak
    /// resident set) from /proc/PID/status until it exits. Not getrusage's ru_maxrss: Linux
    /// carries the spawning process's peak over into a vfork'ed child's figure.
    static func peakRSS(_ arguments: [String]) throws -> (status: Int32, peakKB: Int, seconds: Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let executable = StoreTestSupport.executable
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid = pid_t()
        let started = MonotonicClock.now()
        try #require(posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0)
        var peak = 0
        var status: Int32 = 0
        // Only once the child runs `arguments` (its command line holds them): qemu-user turns
        // posix_spawn's vfork into a fork, so until its exec the child is a copy of this whole
        // test process, whose VmHWM is not the replay's (the aarch64 lane once read 273 MB so).
        let marker = arguments.last ?? ""
        while true {
            let commandLine = (try? FileIO.readAll("/proc/\(pid)/cmdline", limit: 1 << 16)) ?? []
            let runsReplay = String(decoding: commandLine.map { $0 == 0 ? 10 : $0 }, as: UTF8.self)
                .split(separator: "\n").contains { $0 == marker }
            if runsReplay, let text = try? FileIO.readText("/proc/\(pid)/status", limit: 1 << 16),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kb = Int(
                    line.dropFirst(6).trimmingPrefix(while: { $0 == " " || $0 == "\t" }).prefix { $0.isNumber })
            {
                peak = max(peak, kb)
            }
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { break }
            usleep(5_000)
        }
        return ((status >> 8) & 0xff, peak, MonotonicClock.now().seconds(since: started))
    }

    @Test func replayMemoryIsFlatInTheRecordingsLength() throws {
        try #require(StoreTestSupport.executableExists, "build the executable first: swift build --build-tests")
        let dir = DeckFixtures.temporaryDirectory("stream")
        defer { DeckFixtures.removeTree(dir) }
        // 200 000 and 2 000 000 events. Held whole, 2 000 000 took 209 MB (~105 B an event), so
        // the bound below catches that only where the long recording would take well over
        // 10 MB whole: under emulation (where a replay of 200 000 took 46 s) 20 000 and
        // 200 000 events, ~21 MB whole.
        let taps = DeckFixtures.underEmulation ? 2_500 : 25_000
        try Self.writeTaps(taps, to: dir + "/short.evemu")
        try Self.writeTaps(taps * 10, to: dir + "/long.evemu")
        let short = try Self.peakRSS(["replay", dir + "/short.evemu"])
        let long = try Self.peakRSS(["replay", dir + "/long.evemu"])
        #expect(short.status == 0)
        #expect(long.status == 0)
        try #require(short.peakKB > 0 && long.peakKB > 0, "VmHWM was not read from /proc/PID/status")
        print(
            "replay peak RSS: \(taps * 8) events \(short.peakKB) kB (\(jsonNumber(short.seconds, decimals: 2)) s), "
                + "\(taps * 80) events \(long.peakKB) kB (\(jsonNumber(long.seconds, decimals: 2)) s)")
        // The bound: ten times the events may cost at most 10 MB more (the buffers are 64 KiB).
        #expect(
            long.peakKB - short.peakKB < 10 * 1024,
            "\(taps * 80) events: \(long.peakKB) kB, \(taps * 8): \(short.peakKB) kB")
    }

    @Test func aBadLineLateInALongRecordingStillNamesItAndExits2() throws {
        try #require(StoreTestSupport.executableExists, "build the executable first: swift build --build-tests")
        let dir = DeckFixtures.temporaryDirectory("stream-bad")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/bad.evemu"
        try Self.writeTaps(1000, to: path)
        let fd = open(path, O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        try FileIO.writeAll(fd: fd, bytes: Array("E: 9223372037.000000 0000 0000 0\n".utf8))
        close(fd)
        let lines =
            8000
            + FlightRecorder.evemuText(
                device: UInputDevice.touchscreenDescription, events: [], note: "stream test"
            ).split(separator: "\n", omittingEmptySubsequences: false).count
        let stderrPath = dir + "/stderr"
        let result = try #require(StoreTestSupport.run(["replay", path], stderrPath: stderrPath))
        #expect(result.status == 2)
        let message = try FileIO.readText(stderrPath, limit: 1 << 16)
        #expect(message.contains("bad.evemu:\(lines): time '9223372037.000000' is beyond"), "\(message)")
    }

    /// Lines the fast reader must either decode exactly as the parser does or leave to it.
    static let lines = [
        "E: 0.000001 0003 0039 0003\t# EV_ABS / ABS_MT_TRACKING_ID   3", "E: 12.500000 0000 0000 0000",
        "E: 1.5 0003 0035 -001", "E:1.000000 0003 0035 12", "E: 1.000000 0003 0035 12\r", "E: 1.000000 3 35 12#c",
        "E: 1.000000 0003 0035 +12", "E: +1.000000 0003 0035 12", "E: 1.0000000 0003 0035 12",
        "E: 1. 0003 0035 12", "E: .5 0003 0035 12", "E: 1.000000 00003 0035 12", "E: 1.000000 0003 0035 2147483648",
        "E: 1.000000 0003 0035 -2147483648", "E: 1.000000 0003 0035 999999999", "E: 9223372035.999999 0 0 0",
        "E: 9223372036.000000 0 0 0", "E: 99999999999.000000 0 0 0", "E: 1.000000 0003 0035",
        "E: 1.000000 0003 0035 1 2",
        "E: 1.000000 0003 0035 1 # 2", "E: 1.000000 0003 0035 1\r\r", "E: 1.000000 ffff FFFF 1",
        "E: 1.000000 0g03 0035 1",
        "  E: 1.000000 0003 0035 1", "E: 1.000000\t0003\t0035\t-7\t", "E: 1.000000 0003 0035 --1",
        "E: 1.000000 0003 0035 -",
    ]

    @Test func theFastEventReaderAgreesWithTheParser() throws {
        let header = "N: x\nB: 03 03\n"
        for line in Self.lines {
            let fast = EvemuFastEvent.parse(Array(line.utf8)[...])
            // The general parser alone: the first event of a recording is always read by it.
            let general = try? EvemuReader(parsing: header + line, source: "x").next()
            if let fast {
                #expect(fast == general, "'\(line)': fast \(fast), parser \(String(describing: general))")
            }
        }
        // The common shapes do take the fast path.
        #expect(EvemuFastEvent.parse(Array("E: 0.095573 0003 0039 -001\t# EV_ABS".utf8)[...]) != nil)
        #expect(EvemuFastEvent.parse(Array("E: 12.500000 0000 0000 0000".utf8)[...]) != nil)
    }

    /// A crash the evemu fuzzer found: `E:0.6 0 3 0#` followed by U+073A (a combining
    /// mark, bytes DC BA; "0.6" is 6 µs, as evemu reads it). The fast reader, reading bytes, saw a comment; the parser, reading
    /// characters, saw one character "#\u{073A}", no comment, and rejected the value. The parser
    /// now reads scalars too, so a combining mark after '#', ':', '.' or a blank changes nothing.
    @Test func aCombiningMarkAfterAMarkOrABlankMeansWhatTheMarkMeans() throws {
        let mark = "\u{073A}"
        let header = "N: x\nB: 03 03\n"
        for (line, expected) in [
            ("E:0.6 0 3 0#\(mark)", InputEvent(time: Instant(nanoseconds: 6_000), type: 0, code: 3, value: 0)),
            (
                "E: 1.000000 0003 0035 12 #\(mark) comment",
                InputEvent(time: Instant(nanoseconds: 1_000_000_000), type: 3, code: 0x35, value: 12)
            ),
        ] {
            let fast = try #require(EvemuFastEvent.parse(Array(line.utf8)[...]), "'\(line)'")
            #expect(fast == expected)
            let general = try EvemuReader(parsing: header + line, source: "x").next()
            #expect(general == expected, "'\(line)'")
        }
        // A comment line beginning "#" + mark is a comment; "N:" + mark keeps the mark in the name.
        let recording = try EvemuRecording(
            parsing: "#\(mark) recorded by hand\nN:\(mark) panel \nB: 03 03\nE: 0.5 0003 0035 7\n", source: "x")
        #expect(recording.device.name == "\(mark) panel")
        #expect(recording.events.map(\.value) == [7])
        // A mark inside a field still makes the field wrong, in both readers alike.
        for line in ["E: 1.000000 0003 0035 1\u{0301}2", "E: 1.\(mark)000000 0003 0035 1", "E:\(mark)1.0 3 35 1"] {
            #expect(EvemuFastEvent.parse(Array(line.utf8)[...]) == nil, "'\(line)'")
            #expect(throws: EvemuError.self, "'\(line)'") {
                try EvemuReader(parsing: header + line, source: "x").next()
            }
        }
    }

    @Test func aStreamedRecordingGivesTheEventsOfTheWholeFile() throws {
        for name in TouchTestData.allFiles {
            let path = try TouchTestData.requireDirectory() + "/" + name
            let whole = try FileIO.readText(path, limit: 16 << 20)
            // Every line through the general parser alone.
            var general: [InputEvent] = []
            let reader = try EvemuReader(parsing: whole, source: name)
            reader.fastEvents = false
            while let e = try reader.next() { general.append(e) }
            let file = try EvemuRecording(contentsOf: path)
            #expect(file.events == general, "\(name)")
            #expect(file.device == reader.device, "\(name)")
        }
    }

    /// `render --script` moves the touches to start at 1 s: a recording spanning the whole
    /// Int64 nanosecond range overflowed that shift (a trap) before; now it is a usage error.
    @Test func renderScriptSpanningThe292YearsIsAUsageErrorNotATrap() throws {
        let dir = DeckFixtures.temporaryDirectory("stream-span")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/span.evemu"
        let header = FlightRecorder.evemuText(device: UInputDevice.touchscreenDescription, events: [], note: "span")
        DeckFixtures.write(
            header + """
                E: 0.000000 0003 0039 1
                E: 0.000000 0003 0035 100
                E: 0.000000 0003 0036 100
                E: 0.000000 0001 014a 1
                E: 0.000000 0000 0000 0
                E: 9223372035.999999 0003 0039 -1
                E: 9223372035.999999 0001 014a 0
                E: 9223372035.999999 0000 0000 0

                """, to: path)
        let deck = try RenderInputs.deck(path: nil, layout: nil)
        do {
            _ = try RenderInputs.scene(
                deck: deck, size: Size(width: 800, height: 480), gesture: nil, scriptPath: path, atMs: 0)
            Issue.record("a 292-year script was rendered")
        } catch .usage(let message) {
            #expect(message.contains("span.evemu: the touches span more than 292 years"), "\(message)")
        } catch {
            Issue.record("unexpected error: \(error)")
        }
    }
}
