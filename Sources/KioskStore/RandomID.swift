import Glibc
import KioskSystem

/// Random identifiers from the kernel's CSPRNG.
package enum RandomID {
    /// `count` random bytes from the standard library's system generator (getrandom(2), the
    /// kernel's CSPRNG; it never blocks once the pool is ready at boot).
    package static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
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
    package static func uuid() -> String {
        var b = bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let h = hex(b)
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20])
            + "-" + String(c[20..<32])
    }
}
