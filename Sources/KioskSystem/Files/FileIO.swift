import Glibc

/// Whole-file reads without Foundation, for every layer (deck files, recordings, config,
/// udev database entries). Each read stops at `limit` bytes so a huge file or a device such
/// as /dev/zero cannot use up memory.
package enum FileIO {
    /// The file's bytes, at most `limit` of them.
    package static func readAll(_ path: String, limit: Int) throws(SystemCallError) -> [UInt8] {
        let fd = Int32(try retryingOnInterrupt("open", detail: path) { Int(open(path, O_RDONLY | O_CLOEXEC)) })
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while out.count < limit {
            let want = min(chunk.count, limit - out.count)
            let n = try retryingOnInterrupt("read", detail: path) {
                chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// The file as UTF-8 text (invalid bytes become U+FFFD), at most `limit` bytes of it.
    package static func readText(_ path: String, limit: Int = .max) throws(SystemCallError) -> String {
        String(decoding: try readAll(path, limit: limit), as: UTF8.self)
    }

    /// Whether `path` exists (any file type).
    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
