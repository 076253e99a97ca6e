import Testing

@testable import KioskCards
@testable import KioskInput

/// kiosk.conf `switch-key` / `switch-hold` and what an EV_KEY event is to the switch.
@Suite struct SwitchKeyTests {
    func parse(_ file: String) -> Result<KioskConfig.Invocation, ConfigError> {
        KioskConfig.parse(arguments: []) { path in path == KioskConfig.defaultPath ? .text(file) : .missing }
    }

    @Test func theKeyAndTheHoldAreRead() throws {
        guard case .run(let c) = try parse("switch-key = Space\nswitch-hold = 1.2s\n").get() else {
            throw ConfigError(source: "t", message: "no run")
        }
        #expect(c.switchKey?.codes == [57] && c.switchKey?.description == "space")
        #expect(c.switchHold == 1.2)
        guard case .run(let d) = try parse("").get() else { throw ConfigError(source: "t", message: "no run") }
        #expect(d.switchKey == nil, "off by default")
        #expect(d.switchHold == 0.8)
        guard case .run(let e) = try parse("switch-key = off\n").get() else {
            throw ConfigError(source: "t", message: "no run")
        }
        #expect(e.switchKey == nil)
        #expect(SwitchKey.parse("enter")?.codes == [28, 96], "the main and the keypad Enter")
        #expect(SwitchKey.parse("f2")?.codes == [60])
    }

    @Test func badValuesNameTheLineAndWhatIsAccepted() {
        let cases: [(String, String)] = [
            ("switch-key = ctrl+s", "one key name"),
            ("switch-key = hyper", "one key name"),
            ("switch-hold = 0.1s", "from 0.3s to 5s"),
            ("switch-hold = long", "from 0.3s to 5s"),
        ]
        for (line, expected) in cases {
            guard case .failure(let e) = parse("# switch\n" + line + "\n") else {
                Issue.record("accepted: \(line)")
                continue
            }
            #expect(e.source.hasSuffix(":2"), "\(line): \(e)")
            #expect(e.message.contains(expected), "\(line): \(e)")
        }
    }

    @Test func pressAndReleaseCountAutorepeatAndOtherKeysDoNot() throws {
        let space = try #require(SwitchKey.parse("space"))
        #expect(space.edge(keyCode: 57, value: 1) == true)
        #expect(space.edge(keyCode: 57, value: 0) == false)
        #expect(space.edge(keyCode: 57, value: 2) == nil, "autorepeat neither steps nor selects")
        #expect(space.edge(keyCode: 28, value: 1) == nil, "another key")
    }
}
