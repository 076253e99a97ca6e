import Glibc
import Testing

@testable import KioskSystem

/// The built `simulate` and `report`, as the report's tests and the fleet's report tests run them.
package enum ReportRuns {
    package static func number(_ node: JSONNode?) -> Double? {
        if case .number(let x)? = node?.value { return x }
        return nil
    }

    package static func report(_ arguments: [String]) throws -> JSONNode {
        let result = try #require(
            StoreTestSupport.run(["report"] + arguments + ["--format", "json"], environment: ["TZ=UTC"]))
        #expect(result.status == 0)
        return try JSONReader.parse(result.stdout)
    }

    package static func simulate(
        _ dir: String, seed: Int, visitors: Int, kiosk: String = "sim-kiosk", deck name: String = "seed-stack.json"
    ) throws {
        let deck = DeckFixtures.packageRoot + "/examples/" + name
        let result = try #require(
            StoreTestSupport.run([
                "simulate", "--deck", deck, "--data", dir, "--visitors", String(visitors), "--seed", String(seed),
                "--kiosk", kiosk,
            ]))
        #expect(result.status == 0)
    }
}
