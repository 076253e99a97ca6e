import Glibc
import KioskTestSupport
import Testing

@testable import KioskCards
@testable import KioskSystem

/// `render --gesture` with absurd numbers is refused with a message, never a trap; the largest
/// accepted numbers still render.
@Suite struct RenderGestureBoundsTests {
    func render(_ gesture: String) throws -> (status: Int32, stderr: String) {
        let dir = DeckFixtures.temporaryDirectory("render-bounds")
        defer { DeckFixtures.removeTree(dir) }
        let log = dir + "/stderr"
        let result = try #require(
            StoreTestSupport.run(
                [
                    "render", "--deck", DeckFixtures.packageRoot + "/examples/seed-stack.json", "--gesture", gesture,
                    "--out", dir + "/frame.png",
                ], stderrPath: log))
        return (result.status, (try? FileIO.readText(log, limit: 1 << 16, what: log)) ?? "")
    }

    @Test(
        .enabled(if: StoreTestSupport.executableExists, "build the KioskCards executable first"),
        arguments: [
            ("drag 1e308 1e308", "DX is 1e308"), ("release 0 -1e300", "DY is -1e300"), ("tap inf 3", "X is inf"),
            ("flick nan 0", "DX is nan"), ("drag 100000.5 0", "DX is 100000.5"),
        ])
    func absurdNumbersAreRefusedNamingTheField(gesture: String, field: String) throws {
        let (status, stderr) = try render(gesture)
        #expect(status == 2, "\(stderr)")
        #expect(stderr.contains(field) && stderr.contains("from -100000 to 100000"), "\(stderr)")
    }

    @Test(
        .enabled(if: StoreTestSupport.executableExists, "build the KioskCards executable first"),
        arguments: ["drag 100000 -100000", "release -100000 100000", "tap 100000 100000"])
    func theBoundsThemselvesRender(gesture: String) throws {
        let (status, stderr) = try render(gesture)
        #expect(status == 0, "\(stderr)")
    }
}
