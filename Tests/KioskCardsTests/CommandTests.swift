import Testing

@testable import KioskCards

@Suite struct CommandTests {
    @Test func unknownCommandIsUsageError() {
        #expect(CommandLine.runKiosk(arguments: ["frobnicate"]) == 2)
        #expect(CommandLine.runKiosk(arguments: ["--version"]) == 0)
    }
}
