import Glibc
import Testing

@testable import KioskSystem

/// Something a test needs from the machine: a PostgreSQL server, a writable /dev/uinput, the
/// built `KioskCards` executable. Where it is missing the test is skipped with the reason,
/// which swift-testing prints ("Test … skipped: …") and counts; with `KIOSK_REQUIRE_ALL=1`
/// (`.ci/run`: CI installs all of them) the test fails with the reason instead.
///
/// `@Test(TestRequirement.postgres.trait)`.
package struct TestRequirement: Sendable {
    /// Why it is missing and what to do about it; nil when it is there.
    package let missing: String?
    /// False for what no installation can provide on this machine (a kernel built without
    /// uinput, as in many containers): skipped with the reason even under KIOSK_REQUIRE_ALL=1.
    package var installable = true

    /// `KIOSK_REQUIRE_ALL=1`: a missing requirement fails instead of skipping.
    package static let requireAll: Bool = getenv("KIOSK_REQUIRE_ALL").map { String(cString: $0) } == "1"

    package struct Missing: Error, CustomStringConvertible {
        package var description: String
    }

    /// Runs the test when the requirement is met; skips it with the reason when not, or
    /// fails it (its condition throws) under `KIOSK_REQUIRE_ALL=1`.
    package var trait: ConditionTrait {
        guard let missing else { return .enabled(if: true) }
        guard Self.requireAll && installable else { return .enabled(if: false, Comment(rawValue: missing)) }
        let failure = Missing(description: "KIOSK_REQUIRE_ALL=1, and \(missing)")
        return .enabled(Comment(rawValue: failure.description)) { throw failure }
    }
}

extension TestRequirement {
    package static let postgres = TestRequirement(
        missing: PostgresTestServer.available ? nil : PostgresTestServer.unavailableMessage)

    /// Fails under KIOSK_REQUIRE_ALL=1 when the kernel has uinput (the node exists or the
    /// module is loaded) but it cannot be opened for writing; a kernel without it is a skip.
    package static let uinput: TestRequirement = {
        guard access("/dev/uinput", W_OK) != 0 else { return TestRequirement(missing: nil) }
        let reason =
            "/dev/uinput is not writable here (\(Errno.current)); the VM scenarios "
            + "deploy/vm/scenarios/9[1-8]-*.sh check the live input path on a real kernel"
        let kernelHasIt = access("/dev/uinput", F_OK) == 0 || access("/sys/module/uinput", F_OK) == 0
        return TestRequirement(missing: reason, installable: kernelHasIt)
    }()

    /// A benchmark suite (figures printed, never asserted) runs only when asked for with
    /// `KIOSK_BENCH=1`, so an ordinary `swift test` spends no time on it; not asking is a skip
    /// with this reason, also under KIOSK_REQUIRE_ALL=1.
    package static let benchmark = TestRequirement(
        missing: getenv("KIOSK_BENCH").map { String(cString: $0) } == "1"
            ? nil : "a benchmark, printing figures only: run it with KIOSK_BENCH=1 swift test --filter Benchmark",
        installable: false)

    package static let executable = TestRequirement(
        missing: StoreTestSupport.executableExists ? nil : "\(StoreTestSupport.executable) is not built: swift build")

    /// fontconfig's own matcher, the oracle for the configuration `CGraphics` loads.
    package static let fcMatch = TestRequirement(
        missing: access("/usr/bin/fc-match", X_OK) == 0 ? nil : "no /usr/bin/fc-match: apt install fontconfig")

    /// zbar's command-line decoder, the QR tests' reader from outside the code under test.
    package static let zbarimg = TestRequirement(
        missing: access("/usr/bin/zbarimg", X_OK) == 0 ? nil : "no /usr/bin/zbarimg: apt install zbar-tools")
}
