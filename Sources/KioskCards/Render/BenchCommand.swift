func runBenchCommand(_ args: [String]) -> Int32 { 0 }
