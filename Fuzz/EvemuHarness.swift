@testable import KioskInput

/// The evemu parser: any text gives a recording or an error naming a line, never a trap; and
/// the fast `E:` reader gives exactly what the general parser gives, line for line.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzEvemu(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    withFuzzInput(data, size) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(EvemuError) {
            let recording = try EvemuRecording(parsing: text, source: "fuzz.evemu")
            _ = recording.device.classify()
            var events: [InputEvent] = []
            do throws(EvemuError) {
                let general = try EvemuReader(parsing: text, source: "fuzz.evemu")
                general.fastEvents = false
                while let e = try general.next() { events.append(e) }
            } catch {
                preconditionFailure("the fast E: reader read a line the parser rejects: \(error)")
            }
            precondition(events == recording.events, "the fast E: reader disagrees with the parser")
        } catch {
            precondition(error.line >= 1, "an error without a line: \(error)")
            _ = error.description
        }
    }
}
