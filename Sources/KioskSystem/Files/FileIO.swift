import Glibc

/// File plumbing without Foundation, for every layer: whole-file reads (deck files,
/// recordings, config, udev database entries), complete writes and atomic replacement. Each
/// read stops at `limit` bytes so a huge file or a device such as /dev/zero cannot use up
/// memory.
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

    /// Writes all of `bytes` to `fd` (swift-system's `FileDescriptor.writeAll`): `write(2)`
    /// again after EINTR and after a short write, until every byte is written or one fails.
    /// A write that makes no progress is reported as EIO rather than retried for ever.
    package static func writeAll(fd: Int32, bytes: [UInt8], detail: String? = nil) throws(SystemCallError) {
        var failure: SystemCallError?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    failure = SystemCallError(call: "write", errno: n < 0 ? .current : Errno(EIO), detail: detail)
                    return
                }
                offset += n
            }
        }
        if let failure { throw failure }
    }

    /// Replaces the file at `path` with `contents` so that a power cut leaves either the old
    /// file or the new one, never half of one: a temporary file beside it, the old file's
    /// permissions (and owner, when running as root), fsync, rename over it, fsync of the
    /// directory. A new file gets `permissions`. On failure nothing is left beside `path`.
    package static func replaceAtomically(
        path: String, contents: [UInt8], permissions: mode_t = 0o644
    ) throws(SystemCallError) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let temporary = path + ".tmp-\(getpid())"
        var old = stat()
        let existed = stat(path, &old) == 0
        // A temporary left by a power cut under the same pid (a service after a reboot) goes first.
        unlink(temporary)
        let mode = existed ? old.st_mode & 0o7777 : permissions
        let fd = Int32(
            try retryingOnInterrupt("open", detail: temporary) {
                Int(open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode))
            })
        do throws(SystemCallError) {
            defer { close(fd) }
            try writeAll(fd: fd, bytes: contents, detail: temporary)
            if existed && getuid() == 0 {
                try retryingOnInterrupt("fchown", detail: temporary) { Int(fchown(fd, old.st_uid, old.st_gid)) }
            }
            try retryingOnInterrupt("fsync", detail: temporary) { Int(fsync(fd)) }
        } catch {
            unlink(temporary)
            throw error
        }
        do throws(SystemCallError) {
            try retryingOnInterrupt("rename", detail: path) { Int(rename(temporary, path)) }
        } catch {
            unlink(temporary)
            throw error
        }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}
