@testable import KioskDeckFiles

/// The deck parser over the JSON reader: any bytes give a deck or positioned problems, never
/// a trap. Image checks (the file system's part) answer from the path's length so every
/// outcome is reached.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzDeck(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    withFuzzInput(data, size) { bytes in
        let result = DeckParser.parse(bytes: bytes, path: "fuzz.json") { path in
            switch path.utf8.count % 4 {
            case 0: .ok("/decks/" + path)
            case 1: .missing(path)
            case 2: .outsideDeck(path)
            default: .unsupported(path)
            }
        }
        switch result {
        case .success(let deck): _ = deck
        case .failure(let problems):
            precondition(!problems.problems.isEmpty, "a failure without problems")
            _ = "\(problems)"
        }
    }
}
