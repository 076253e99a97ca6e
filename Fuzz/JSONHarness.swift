import KioskSystem

/// The JSON reader: any bytes either parse or throw a positioned error, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    withFuzzInput(data, size) { bytes in
        do throws(JSONSyntaxError) {
            let node = try JSONReader.parse(bytes)
            _ = node.typeName
        } catch {
            precondition(error.position.line >= 1 && error.position.column >= 1, "error position \(error.position)")
            _ = error.description
        }
    }
}
