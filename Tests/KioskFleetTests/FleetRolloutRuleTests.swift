import Testing

@testable import KioskFleet

/// The rollout rule and its inputs, without a server.
@Suite struct FleetRolloutRuleTests {
    @Test func canaryAndHoldParse() {
        #expect(FleetRollouts.parseCanary("2") == .count(2))
        #expect(FleetRollouts.parseCanary("10%") == .percent(10))
        for bad in ["0", "-1", "100%", "0%", "x", "", "1.5", "%"] {
            #expect(FleetRollouts.parseCanary(bad) == nil, "\(bad)")
        }
        #expect(FleetRollouts.parseDuration("30m") == 1800)
        #expect(FleetRollouts.parseDuration("2h") == 7200)
        #expect(FleetRollouts.parseDuration("90") == 90)
        #expect(FleetRollouts.parseDuration("1d") == 86_400)
        for bad in ["", "m", "31d", "-5m", "1.5h", "5 m", "99999999999999999999"] {
            #expect(FleetRollouts.parseDuration(bad) == nil, "\(bad)")
        }
    }

    @Test func canariesAreChosenByIdAndLeaveSomeoneToFollow() throws {
        let group = (1...20).map { "k\($0)" }.shuffled()
        // Byte order: k1, k10, k11, … — the same whatever order the server listed them in.
        #expect(try FleetRollouts.choose(.count(2), from: group) == ["k1", "k10"])
        #expect(try FleetRollouts.choose(.percent(10), from: group) == ["k1", "k10"])
        #expect(try FleetRollouts.choose(.percent(1), from: group) == ["k1"])
        #expect(try FleetRollouts.choose(.named(["k7", "k3"]), from: group) == ["k3", "k7"])
        #expect(throws: FleetError.self) { try FleetRollouts.choose(.named(["elsewhere"]), from: group) }
        #expect(throws: FleetError.self) { try FleetRollouts.choose(.count(20), from: group) }
        #expect(throws: FleetError.self) { try FleetRollouts.choose(.percent(99), from: ["a", "b"]) }
    }

    @Test func refusalStopsAtOnceSilenceAtTheHoldsEnd() {
        typealias F = FleetRollouts.CanaryFacts
        let ok = F(kioskID: "a", state: .online, shown: true)
        let refused = F(kioskID: "b", state: .online, shown: false, refusal: "bad image")
        let silent = F(kioskID: "c", state: .silent, silentSince: "2026-01-01T00:00:00Z", shown: true)
        let pending = F(kioskID: "d", state: .online, shown: false)
        func v(_ passed: Bool, _ c: [F]) -> FleetRollouts.Verdict {
            FleetRollouts.verdict(deck: "x@2", holdPassed: passed, canaries: c)
        }
        #expect(v(false, [ok, refused]) == .stop("canary b refused x@2: bad image"))
        #expect(v(false, [ok, silent]) == .hold("2 of 2 canaries show it"))
        #expect(v(true, [ok, silent]) == .stop("canary c is silent since 2026-01-01T00:00:00Z"))
        #expect(v(true, [ok, pending]) == .hold("waiting for canary d to show x@2"))
        #expect(v(true, [ok]) == .promote)
    }
}
