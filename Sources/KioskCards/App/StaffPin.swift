import CCrypt
import Glibc
import KioskStore
import KioskSystem

/// libxcrypt's functions, looked up in libcrypt.so.1 when a PIN is first set or checked: a
/// kiosk without a staff PIN never maps the library. `CCrypt` links nothing; each field's type
/// is the one Swift imports from crypt.h.
struct CryptFunctions: Sendable {
    let cryptR:
        @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<crypt_data>?) ->
            UnsafeMutablePointer<CChar>?
    let gensaltRN:
        @convention(c) (UnsafePointer<CChar>?, UInt, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<CChar>?, Int32)
            -> UnsafeMutablePointer<CChar>?

    init(_ lib: DynamicLibrary) throws(DynamicLibraryError) {
        cryptR = try lib.function("crypt_r")
        gensaltRN = try lib.function("crypt_gensalt_rn")
    }

    /// The process's one table (Debian's libcrypt1, essential in bookworm and trixie).
    static let shared = LibraryFunctions<CryptFunctions> {
        do throws(DynamicLibraryError) {
            return .success(try CryptFunctions(DynamicLibrary("libcrypt.so.1", debianPackage: "libcrypt1")))
        } catch {
            return .failure(error)
        }
    }

    /// The table, or nil after logging why it cannot be loaded.
    static func loaded() -> CryptFunctions? {
        do { return try shared.get() } catch {
            Log.error("staff PIN: \(error)")
            return nil
        }
    }
}

/// The staff PIN as a salted crypt(3) hash (libxcrypt: yescrypt `$y$`, else SHA-512 `$6$`),
/// the form `kiosk.conf` keeps in `staff-pin-hash`.
enum StaffPin {
    /// 6 to 12 digits: a 4-digit PIN's hash, read off a stolen card, falls to an offline guess in
    /// minutes (10,000 tries of yescrypt); 6 digits take a hundred times longer.
    static let digits = 6...12

    static func isAcceptable(_ pin: String) -> Bool {
        digits.contains(pin.count) && pin.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// A new salted hash of `pin` (`crypt_gensalt_rn` with the kernel's random bytes, then
    /// `crypt_r`); nil if libxcrypt cannot make one.
    static func hash(_ pin: String, prefix: String = "$y$") -> String? {
        guard let lib = CryptFunctions.loaded() else { return nil }
        var salt = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        let random = RandomID.bytes(32).map { CChar(bitPattern: $0) }
        guard lib.gensaltRN(prefix, 0, random, Int32(random.count), &salt, Int32(salt.count)) != nil else {
            return prefix == "$6$" ? nil : hash(pin, prefix: "$6$")
        }
        return crypted(
            pin, setting: String(decoding: salt.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Whether `pin` matches `storedHash` (`crypt_r` with the hash as its setting).
    static func matches(_ pin: String, storedHash: String) -> Bool {
        guard storedHash.hasPrefix("$"), let again = crypted(pin, setting: storedHash) else { return false }
        // Constant-time compare: the hash length is public, the bytes are not.
        let a = Array(again.utf8)
        let b = Array(storedHash.utf8)
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }

    private static func crypted(_ pin: String, setting: String) -> String? {
        guard let lib = CryptFunctions.loaded() else { return nil }
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer {
            memset(data, 0, MemoryLayout<crypt_data>.size)  // the PIN passed through here
            data.deallocate()
        }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard let out = lib.cryptR(pin, setting, data) else { return nil }
        let text = String(cString: out)
        // libxcrypt returns a string starting with "*" on failure.
        return text.hasPrefix("*") ? nil : text
    }
}
