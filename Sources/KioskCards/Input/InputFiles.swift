import Glibc

/// Small file reads for the input layer (recordings, udev database entries), without Foundation.
enum InputFiles {
    /// The whole file at `path` as UTF-8 text (invalid bytes become U+FFFD).
    static func readText(_ path: String) throws(SystemCallError) -> String {
        let fd = try retryingOnInterrupt("open", detail: path) { Int(open(path, O_RDONLY | O_CLOEXEC)) }
        defer { close(Int32(fd)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try retryingOnInterrupt("read", detail: path) {
                chunk.withUnsafeMutableBytes { read(Int32(fd), $0.baseAddress, $0.count) }
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `path` exists (any file type).
    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
