import Glibc
import Testing

@testable import KioskCards
@testable import KioskSystem

/// The staff PIN through the real libxcrypt, and `set-pin` through the real binary.
@Suite struct StaffPinTests {
    @Test func hashesAreSaltedYescryptAndVerify() throws {
        let a = try #require(StaffPin.hash("4711"))
        let b = try #require(StaffPin.hash("4711"))
        #expect(a.hasPrefix("$y$"))
        #expect(a != b)  // salted
        #expect(StaffPin.matches("4711", storedHash: a))
        #expect(StaffPin.matches("4711", storedHash: b))
        #expect(!StaffPin.matches("4712", storedHash: a))
        #expect(!StaffPin.matches("", storedHash: a))
        #expect(!StaffPin.matches("4711", storedHash: "garbage"))
        let sha = try #require(StaffPin.hash("4711", prefix: "$6$"))
        #expect(sha.hasPrefix("$6$") && StaffPin.matches("4711", storedHash: sha))
        #expect(StaffPin.isAcceptable("0000") && !StaffPin.isAcceptable("123") && !StaffPin.isAcceptable("12a4"))
    }

    @Test(TestRequirement.executable.trait) func setPinWritesTheHashIntoTheConfigKeepingOtherLines() throws {
        let dir = DeckFixtures.temporaryDirectory("set-pin")
        defer { DeckFixtures.removeTree(dir) }
        let conf = dir + "/kiosk.conf"
        DeckFixtures.write("# lobby kiosk\nidle-timeout = 90s\n", to: conf)
        let ok = system("printf '2468\\n' | '\(StoreTestSupport.executable)' set-pin --config '\(conf)' 2>/dev/null")
        #expect(ok == 0)
        let text = String(decoding: try FileIO.readAll(conf, limit: 1 << 16), as: UTF8.self)
        #expect(text.hasPrefix("# lobby kiosk\nidle-timeout = 90s\n"))
        #expect(!text.contains("2468"))
        var config = KioskConfig()
        #expect(KioskConfig.apply(file: text, name: conf, to: &config) == nil)
        let hash = try #require(config.staffPinHash)
        #expect(StaffPin.matches("2468", storedHash: hash))
        let bad = system("printf '12\\n' | '\(StoreTestSupport.executable)' set-pin --config '\(conf)' 2>/dev/null")
        #expect(bad >> 8 == 2)
    }
}
