/// libFuzzer's entry point calls `body` with the input as bytes (shared by every harness).
func withFuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: ([UInt8]) -> Void) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    body(bytes)
    return 0
}
