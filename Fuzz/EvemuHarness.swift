@testable import KioskInput

/// The evemu parser: any text gives a recording or an error naming a line, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzEvemu(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    withFuzzInput(data, size) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(EvemuError) {
            let recording = try EvemuRecording(parsing: text, source: "fuzz.evemu")
            _ = recording.device.classify()
        } catch {
            precondition(error.line >= 1, "an error without a line: \(error)")
            _ = error.description
        }
    }
}
