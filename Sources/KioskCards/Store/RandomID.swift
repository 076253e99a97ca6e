import Glibc

/// Random identifiers from the kernel's CSPRNG (/dev/urandom).
enum RandomID {
    /// `count` random bytes from /dev/urandom (never blocks once the kernel's pool is ready
    /// at boot). Without the device — a broken chroot — falls back to the clocks and the pid
    /// mixed by a SplitMix generator: unique enough for ids, and logged.
    static func bytes(_ count: Int) -> [UInt8] {
        if let b = try? DeckLoader.readFile("/dev/urandom", limit: count), b.count == count { return b }
        Log.warning("cannot read /dev/urandom; ids fall back to clock-based values")
        var state =
            UInt64(bitPattern: WallClock.nowMilliseconds()) ^ UInt64(bitPattern: MonotonicClock.now().nanoseconds)
            ^ UInt64(getpid()) << 32
        var out: [UInt8] = []
        while out.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for k in 0..<8 where out.count < count { out.append(UInt8(truncatingIfNeeded: z >> (8 * k))) }
        }
        return out
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        s.reserveCapacity(bytes.count * 2)
        for b in bytes {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 0xF)])
        }
        return s
    }

    /// A random (version 4) UUID string, e.g. "1b4e28ba-2fa1-4d2e-9a6f-0e02b2c3d479".
    static func uuid() -> String {
        var b = bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let h = hex(b)
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20])
            + "-" + String(c[20..<32])
    }
}
