import Glibc
import KioskSystem
import KioskTestSupport
import Testing

@testable import KioskCards

/// `bench`'s whole-visit memory probe, run as the bench runs it: a fresh process of the built
/// executable with the app's allocator set-up.
@Suite struct BenchVisitMemoryTests {
    /// The cache evicts card images all visit long; each one freed goes back to the system
    /// (`ProcessMemory.setUpForKiosk` keeps them mapped on their own), so the visit ends with
    /// little free in malloc, and the cache never held more than its budget.
    @Test func aWholeStackVisitReturnsWhatTheCacheEvicted() throws {
        try #require(StoreTestSupport.executableExists, "build the executable: swift build --build-tests")
        let result = try #require(
            CommandLineTests.run(["bench", "--visit-probe", "--scene", "stack-visit", "--size", "800x480"]))
        #expect(result.status == 0, "\(result.stderr)")
        let v = Bench.values(result.stdout)
        let frames = try #require(v["frames"])
        #expect(frames > 100, "a whole visit of onboarding.json draws hundreds of frames")
        let peak = try #require(v["peak-rss-kb"])
        let libraries = try #require(v["end-libraries-kb"])
        #expect(peak > libraries)
        let budget = try #require(v["cache-budget-kb"])
        let cachePeak = try #require(v["cache-peak-kb"])
        #expect(cachePeak <= budget)
        // The cache filled and evicted: a visit of its cards needs more than the budget.
        #expect(cachePeak > budget * 0.8)
        // Without the large-block threshold glibc kept 2.4 MB of evicted 800×480 images free in
        // its heap (the debug build this test runs).
        let free = try #require(v["malloc-free-kb"])
        #expect(free < 1_536, "\(free) kB free in malloc at the end of the visit")
    }
}
