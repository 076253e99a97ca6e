/// 16-bit mono PCM in a RIFF/WAVE file (what `say --out` writes and the tests read back).
package enum WAV {
    /// The file bytes: a 44-byte header, then `samples` little-endian.
    package static func encode(samples: [Int16], sampleRate: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(44 + samples.count * 2)
        func u32(_ v: UInt32) {
            out += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
        }
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        let dataBytes = UInt32(samples.count * 2)
        out += Array("RIFF".utf8)
        u32(36 + dataBytes)
        out += Array("WAVEfmt ".utf8)
        u32(16)
        u16(1)  // PCM
        u16(1)  // mono
        u32(UInt32(sampleRate))
        u32(UInt32(sampleRate * 2))  // bytes per second
        u16(2)  // block align
        u16(16)  // bits per sample
        out += Array("data".utf8)
        u32(dataBytes)
        for s in samples { u16(UInt16(bitPattern: s)) }
        return out
    }

    /// What a header says, for checking a file: nil when `bytes` is no 16-bit mono PCM WAVE file.
    package struct Info: Hashable, Sendable {
        package var sampleRate: Int
        package var sampleCount: Int
        package var seconds: Double { Double(sampleCount) / Double(sampleRate) }
    }

    package static func info(_ bytes: [UInt8]) -> Info? {
        guard bytes.count >= 44, Array(bytes[0..<4]) == Array("RIFF".utf8),
            Array(bytes[8..<16]) == Array("WAVEfmt ".utf8)
        else { return nil }
        func u32(_ i: Int) -> Int {
            Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24
        }
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        guard u16(20) == 1, u16(22) == 1, u16(34) == 16, Array(bytes[36..<40]) == Array("data".utf8) else { return nil }
        let n = u32(40)
        guard n <= bytes.count - 44, u32(24) > 0 else { return nil }
        return Info(sampleRate: u32(24), sampleCount: n / 2)
    }
}
