import Glibc
import KioskTestSupport
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
        #expect(StaffPin.isAcceptable("000000") && !StaffPin.isAcceptable("12345") && !StaffPin.isAcceptable("12a456"))
        #expect(StaffPin.isAcceptable("123456789012") && !StaffPin.isAcceptable("1234567890123"))
    }

    @Test(TestRequirement.executable.trait) func setPinWritesTheHashIntoTheConfigKeepingOtherLines() throws {
        let dir = DeckFixtures.temporaryDirectory("set-pin")
        defer { DeckFixtures.removeTree(dir) }
        let conf = dir + "/kiosk.conf"
        DeckFixtures.write("# lobby kiosk\nidle-timeout = 90s\n", to: conf)
        let ok = system("printf '246824\\n' | '\(StoreTestSupport.executable)' set-pin --config '\(conf)' 2>/dev/null")
        #expect(ok == 0)
        let text = String(decoding: try FileIO.readAll(conf, limit: 1 << 16), as: UTF8.self)
        #expect(text.hasPrefix("# lobby kiosk\nidle-timeout = 90s\n"))
        #expect(!text.contains("246824"))
        var config = KioskConfig()
        #expect(KioskConfig.apply(file: text, name: conf, to: &config) == nil)
        let hash = try #require(config.staffPinHash)
        #expect(StaffPin.matches("246824", storedHash: hash))
        let bad = system("printf '12\\n' | '\(StoreTestSupport.executable)' set-pin --config '\(conf)' 2>/dev/null")
        #expect(bad >> 8 == 2)
    }

    /// A 4- or 5-digit PIN is refused with the rule and nothing is written.
    @Test(
        .enabled(if: StoreTestSupport.executableExists, "build the KioskCards executable first"),
        arguments: ["2468", "13579"])
    func setPinRefusesAShortPin(pin: String) throws {
        let dir = DeckFixtures.temporaryDirectory("set-pin-short")
        defer { DeckFixtures.removeTree(dir) }
        let conf = dir + "/kiosk.conf"
        DeckFixtures.write("idle-timeout = 90s\n", to: conf)
        let status = system(
            "printf '\(pin)\\n' | '\(StoreTestSupport.executable)' set-pin --config '\(conf)' 2>'\(dir)/stderr'")
        #expect(status >> 8 == 2)
        let message = String(decoding: try FileIO.readAll(dir + "/stderr", limit: 1 << 16), as: UTF8.self)
        #expect(message.contains("must be 6 to 12 digits"), "\(message)")
        #expect(String(decoding: try FileIO.readAll(conf, limit: 1 << 16), as: UTF8.self) == "idle-timeout = 90s\n")
    }

    /// The config holds the PIN hash: whatever its mode was (0644 here, as main left it), after
    /// set-pin no one but its owner and group kiosk (when there is one) can read it.
    @Test(.enabled(if: StoreTestSupport.executableExists, "build the KioskCards executable first"))
    func setPinLeavesTheConfigReadableOnlyByItsOwnerAndGroupKiosk() throws {
        let dir = DeckFixtures.temporaryDirectory("set-pin-mode")
        defer { DeckFixtures.removeTree(dir) }
        let conf = dir + "/kiosk.conf"
        DeckFixtures.write("idle-timeout = 90s\n", to: conf)
        #expect(chmod(conf, 0o644) == 0)
        let old = umask(0)  // the mode must not depend on the caller's umask
        defer { umask(old) }
        let status = system(
            "printf '246824\\n' | '\(StoreTestSupport.executable)' set-pin --config '\(conf)' 2>/dev/null")
        #expect(status == 0)
        var st = stat()
        #expect(stat(conf, &st) == 0)
        if let group = getgrnam("kiosk") {
            #expect(st.st_mode & 0o777 == 0o640)
            #expect(st.st_gid == group.pointee.gr_gid)
        } else {
            #expect(st.st_mode & 0o777 == 0o600)
        }
        #expect(st.st_uid == getuid())
    }
}
