import KioskSystem

/// The config file parser (compiled from the executable's App/Config*.swift, which is pure:
/// the file comes through a closure): any text gives a config or an error naming its line.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    withFuzzInput(data, size) { bytes in
        // As readConfigFile: a file that is not UTF-8 is refused before parsing.
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        let result = KioskConfig.parse(arguments: ["--config", "fuzz.conf"]) { _ in .text(text) }
        switch result {
        case .success(let invocation): _ = invocation
        case .failure(let error):
            precondition(error.source.hasPrefix("fuzz.conf:"), "error without a line: \(error)")
            _ = error.description
        }
    }
}

// The executable's Tools/Subcommands.swift defines these for Config+Parsing.swift.
struct ExitStatus: Error, Hashable {
    var code: Int32
}
let kioskCardsVersion = "fuzz"
