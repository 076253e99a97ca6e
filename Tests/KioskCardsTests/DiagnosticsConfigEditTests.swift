import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskInput
@testable import KioskSystem

@Suite struct DiagnosticsConfigEditTests {
    static let matrix = TouchMatrix(a: 1.025, b: 0, c: -0.0125, d: 0, e: 0.98, f: 0.01)
    static let value = ConfigEdit.matrixValue(matrix)

    /// Reads `text` as the kiosk would; fails the test on a config error.
    func parsed(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> KioskConfig? {
        var config = KioskConfig()
        let error = KioskConfig.apply(file: text, name: "kiosk.conf", to: &config)
        #expect(error == nil, "\(String(describing: error))", sourceLocation: sourceLocation)
        return error == nil ? config : nil
    }

    @Test func replacesTheActiveLineInPlaceKeepingEverythingElse() throws {
        let text = """
            # KioskCards
            deck = /etc/kioskcards/deck.json

            # Touch calibration
              touch-matrix = 1 0 0 0 1 0   # from the factory
            rotation = 90
            """ + "\n"
        let edited = ConfigEdit.setting("touch-matrix", to: Self.value, in: text)
        let before = text.split(separator: "\n", omittingEmptySubsequences: false)
        let after = edited.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(before.count == after.count)
        for (i, (b, a)) in zip(before, after).enumerated() where i != 4 {
            #expect(a == b, "line \(i + 1) changed")
        }
        #expect(after[4] == "  touch-matrix = \(Self.value)  # from the factory")
        let config = try #require(parsed(edited))
        #expect(config.touchMatrix == Self.matrix)
        #expect(config.rotation == .deg90)
    }

    @Test func goesAfterTheCommentedExampleWhenTheKeyIsNotSet() throws {
        let text = """
            deck = /etc/kioskcards/deck.json
            # Touch calibration: libinput's matrix.
            # touch-matrix = 1 0 0 0 1 0

            # input = /dev/input/event1
            buttons = on
            """ + "\n"
        let edited = ConfigEdit.setting("touch-matrix", to: Self.value, in: text)
        let lines = edited.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[2] == "# touch-matrix = 1 0 0 0 1 0")
        #expect(lines[3] == "touch-matrix = \(Self.value)")
        #expect(lines.count == text.split(separator: "\n", omittingEmptySubsequences: false).count + 1)
        #expect(try #require(parsed(edited)).touchMatrix == Self.matrix)
    }

    @Test func appendsWhenTheKeyIsNowhere() throws {
        let text = "deck = /srv/deck.json\nbuttons = off"  // no final newline
        let edited = ConfigEdit.setting("touch-matrix", to: Self.value, in: text)
        #expect(edited == "deck = /srv/deck.json\nbuttons = off\n\ntouch-matrix = \(Self.value)\n")
        let config = try #require(parsed(edited))
        #expect(config.touchMatrix == Self.matrix)
        #expect(config.buttons == false)
        #expect(ConfigEdit.setting("touch-matrix", to: Self.value, in: "") == "touch-matrix = \(Self.value)\n")
    }

    @Test func keepsWindowsLineEndings() {
        let text = "# conf\r\ntouch-matrix = 1 0 0 0 1 0\r\nrotation = 0\r\n"
        let edited = ConfigEdit.setting("touch-matrix", to: Self.value, in: text)
        #expect(edited == "# conf\r\ntouch-matrix = \(Self.value)\r\nrotation = 0\r\n")
        // And the kiosk reads such a file.
        let config = parsed(edited)
        #expect(config?.touchMatrix == Self.matrix)
        #expect(config?.rotation == .deg0)
    }

    @Test func aKeyOnlyInsideAValueOrAnotherKeyIsNotTouched() throws {
        // "touch-matrix-old" is another key (unknown to the parser, but not ours to judge), and a
        // deck path may contain the word.
        let text = "deck = /srv/touch-matrix = x.json\n#touch-matrix=1 0 0 0 1 0\n"
        let edited = ConfigEdit.setting("touch-matrix", to: Self.value, in: text)
        #expect(
            edited == "deck = /srv/touch-matrix = x.json\n#touch-matrix=1 0 0 0 1 0\ntouch-matrix = \(Self.value)\n")
    }

    @Test func aDuplicateKeyLineIsDroppedSoTheFileReadsAgain() throws {
        let text = "touch-matrix = 1 0 0 0 1 0\nrotation = 0\ntouch-matrix = 2 0 0 0 2 0\n"
        let edited = ConfigEdit.setting("touch-matrix", to: Self.value, in: text)
        #expect(edited == "touch-matrix = \(Self.value)\nrotation = 0\n")
        #expect(try #require(parsed(edited)).touchMatrix == Self.matrix)
    }

    @Test(arguments: [
        TouchMatrix.identity, TouchMatrix(rotation: .deg90),
        TouchMatrix(a: 1.0000004, b: -0.0000003, c: 0.1234564, d: 0, e: 1, f: 0),
    ])
    func theWrittenValueReadsBackAsTheMatrix(m: TouchMatrix) throws {
        let config = try #require(parsed("touch-matrix = \(ConfigEdit.matrixValue(m))\n"))
        let back = try #require(config.touchMatrix)
        for (x, y) in zip([back.a, back.b, back.c, back.d, back.e, back.f], [m.a, m.b, m.c, m.d, m.e, m.f]) {
            #expect(abs(x - y) <= 5e-7)
        }
        #expect(!m.configText.contains("e"), "no exponent notation")
    }

    @Test func wholeSecondsPrintWithoutAFraction() {
        // calibrate's "ends by itself after 120 s" (decimals 0 used to trap: a negative count).
        #expect(jsonNumber(120, decimals: 0) == "120")
        #expect(jsonNumber(-2.6, decimals: 0) == "-3")
        #expect(jsonNumber(0.4, decimals: 0) == "0")
        #expect(jsonNumber(2.25, decimals: 1) == "2.3" || jsonNumber(2.25, decimals: 1) == "2.2")
    }

    // MARK: Writing

    func read(_ path: String) throws -> String {
        try KioskCards.readTextFile(path)
    }

    @Test func writesAtomicallyKeepingThePermissions() throws {
        let dir = DeckFixtures.temporaryDirectory("config-edit")
        let path = dir + "/kiosk.conf"
        try ConfigEdit.writeAtomically("rotation = 0\n", to: path)
        chmod(path, 0o600)
        try ConfigEdit.writeAtomically("rotation = 90\n", to: path)
        #expect(try read(path) == "rotation = 90\n")
        var st = stat()
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        // Nothing is left beside it.
        let entries = try #require(opendir(dir))
        var names: [String] = []
        while let e = readdir(entries) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(entries)
        #expect(names == ["kiosk.conf"])
        unlink(path)
        rmdir(dir)
    }

    @Test func aMissingDirectoryIsAnErrorThatSaysWhatToDo() throws {
        #expect {
            try ConfigEdit.writeAtomically("x = 1\n", to: "/nonexistent-kiosk-dir/kiosk.conf")
        } throws: { error in
            "\(error)".contains("/nonexistent-kiosk-dir/kiosk.conf") && "\(error)".contains("--config")
        }
    }

    @Test func calibrateSavesOnlyAFileThatReadsBack() throws {
        let dir = DeckFixtures.temporaryDirectory("config-edit")
        let path = dir + "/kiosk.conf"
        let original = "# mine\ndeck = /srv/deck.json\n# touch-matrix = 1 0 0 0 1 0\nbuttons = off\n"
        let result = ConfigEdit.saveTouchMatrix(Self.matrix, original: original, path: path)
        #expect(try result.get() == path)
        let text = try read(path)
        #expect(
            text
                == "# mine\ndeck = /srv/deck.json\n# touch-matrix = 1 0 0 0 1 0\ntouch-matrix = \(Self.value)\nbuttons = off\n"
        )
        // An original the kiosk could not read stays untouched.
        let broken = "rotaton = 90\n"
        try ConfigEdit.writeAtomically(broken, to: path)
        let refused = ConfigEdit.saveTouchMatrix(Self.matrix, original: broken, path: path)
        #expect(throws: ConfigEditError.self) { try refused.get() }
        #expect(try read(path) == broken)
        unlink(path)
        rmdir(dir)
    }

    @Test func calibrateOptions() {
        #expect(
            CalibrateCommand.parse(["--config", "/tmp/k.conf", "--print", "--rotation", "90", "--timeout", "30"])
                == .options(
                    CalibrateCommand.Options(
                        configPath: "/tmp/k.conf", explicitConfig: true, printOnly: true, timeout: 30, linger: 4,
                        runFlags: ["--rotation", "90"])))
        #expect(CalibrateCommand.parse(["--timeout"]) != .help)
        if case .failure(let message) = CalibrateCommand.parse(["--timeout", "soon"]) {
            #expect(message.contains("--timeout"))
        } else {
            Issue.record("a bad --timeout must be refused")
        }
    }
}
