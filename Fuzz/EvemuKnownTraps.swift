import Glibc

/// Whether `text` reaches one of the evemu parser's overflow traps already filed as issue 15
/// part (A), which is fixing them: an `E:` time of 9223372036 s or more (seconds × 10⁹
/// overflows Int64) or more than 8 KiB of `P:` or per-type `B:` bytes (bit numbers beyond
/// UInt16). The harnesses skip such inputs so CI stays green and finds *other* crashes;
/// remove this file and its calls once (A) has landed.
///
/// Mirrors `EvemuParser`'s line handling, erring on the side of skipping: a line that would
/// fail to parse before the trap still counts. `KIOSKCARDS_FUZZ_KNOWN_TRAPS=1` turns the skip
/// off, to check (A)'s fix: `KIOSKCARDS_FUZZ_KNOWN_TRAPS=1 scripts/fuzz.sh evemu 60`.
func reachesKnownEvemuTrap(_ text: String) -> Bool {
    if skipsNothing { return false }
    let limitBytes = 8192
    var propertyBytes = 0
    var maskBytes: [Substring: Int] = [:]
    for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
        var line = raw
        if line.last == "\r" { line = line.dropLast() }
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.count >= 2, trimmed.dropFirst().first == ":", let kind = trimmed.first else { continue }
        let body =
            trimmed.dropFirst(2).split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let fields = body.split(whereSeparator: { $0 == " " || $0 == "\t" })
        switch kind {
        case "E":
            guard let time = fields.first else { continue }
            let seconds = time.split(separator: ".", omittingEmptySubsequences: false).first ?? ""
            if let s = Int64(seconds), s >= 9_223_372_036 { return true }
        case "P":
            propertyBytes += fields.count
            if propertyBytes > limitBytes { return true }
        case "B":
            guard let type = fields.first else { continue }
            // The parser keys by the parsed type number; "3" and "03" are one type.
            let key = Substring(String(UInt16(type, radix: 16) ?? 0xffff))
            maskBytes[key, default: 0] += fields.count - 1
            if maskBytes[key, default: 0] > limitBytes { return true }
        default: continue
        }
    }
    return false
}

private let skipsNothing = getenv("KIOSKCARDS_FUZZ_KNOWN_TRAPS").map { String(cString: $0) == "1" } ?? false
