import Glibc

/// File plumbing without Foundation, for every layer: whole-file reads (deck files,
/// recordings, config, udev database entries), complete writes and atomic replacement.
///
/// Every read is bounded: the file is opened without blocking (a FIFO with no writer cannot
/// hang the caller, nor the event loop during a hot reload), checked to be a regular file
/// (a FIFO, a device such as /dev/zero, a directory or a socket is refused by name), and a
/// file over `limit` is an error that states both sizes — never a silent cut.
package enum FileIO {
    /// Which kinds of file a read accepts.
    package enum Accept: Sendable {
        /// Regular files only (everything a user names: decks, config, recordings, images).
        /// /proc, /sys and udev database entries are regular files too.
        case regularFiles
        /// Any file a read(2) works on (a device or FIFO read on purpose); still bounded by
        /// `limit`.
        case anyFileType
    }

    /// The file's bytes; throws if it is not a regular file (unless `accept` says otherwise)
    /// or holds more than `limit` bytes. `what` names the file in messages ("deck.json",
    /// "the config file"); the path by default.
    package static func readAll(
        _ path: String, limit: Int, accept: Accept = .regularFiles, what: String? = nil
    ) throws(FileReadError) -> [UInt8] {
        let name = what ?? path
        let (fd, st) = try openForReading(path, accept: accept, what: what)
        defer { close(fd) }
        let type = st.st_mode & S_IFMT
        // A regular file states its size; /proc and /sys files say 0 and are read to EOF.
        if type == S_IFREG && Int(st.st_size) > limit {
            throw .tooLarge(name: name, size: Int(st.st_size), limit: limit)
        }
        if type != S_IFREG {
            // A device or FIFO read on purpose: back to blocking reads.
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // One byte past the limit tells "exactly at the limit" from "over it".
            let want = min(chunk.count, limit - out.count + 1)
            let n: Int
            do {
                n = try retryingOnInterrupt("read", detail: path) {
                    chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
                }
            } catch { throw .system(error) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if out.count > limit { throw .tooLarge(name: name, size: nil, limit: limit) }
        }
        return out
    }

    /// The file as UTF-8 text (invalid bytes become U+FFFD); the same checks as `readAll`.
    package static func readText(
        _ path: String, limit: Int, accept: Accept = .regularFiles, what: String? = nil
    ) throws(FileReadError) -> String {
        String(decoding: try readAll(path, limit: limit, accept: accept, what: what), as: UTF8.self)
    }

    /// "a FIFO", "a directory"… for `st_mode & S_IFMT`.
    static func fileKind(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a directory"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// A size in words: "512 bytes", "17 KB", "17 MB" (binary units). A file's size rounds
    /// up and a limit down, so that a file just over its limit never reads as equal to it.
    package static func sizeText(_ bytes: Int, roundingUp: Bool = true) -> String {
        func unit(_ shift: Int) -> Int { roundingUp ? (bytes + (1 << shift) - 1) >> shift : bytes >> shift }
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1 << 20 { return "\(unit(10)) KB" }
        if bytes < 1 << 30 { return "\(unit(20)) MB" }
        return "\(unit(30)) GB"
    }

    /// Opens a regular file for reading without blocking (a FIFO cannot hang the caller) and
    /// returns the fd, which the caller closes; anything else is refused by name.
    package static func openRegularFile(_ path: String, what: String? = nil) throws(FileReadError) -> Int32 {
        try openForReading(path, accept: .regularFiles, what: what).fd
    }

    /// Opens `path` without blocking and checks its type against `accept`; the caller closes
    /// the fd. Refused types close it here and are named in the error.
    private static func openForReading(
        _ path: String, accept: Accept, what: String?
    ) throws(FileReadError) -> (fd: Int32, stat: stat) {
        let fd: Int32
        do {
            fd = Int32(
                try retryingOnInterrupt("open", detail: path) {
                    Int(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC))
                })
        } catch { throw .system(error) }
        var st = stat()
        do {
            try retryingOnInterrupt("fstat", detail: path) { Int(fstat(fd, &st)) }
        } catch {
            close(fd)
            throw .system(error)
        }
        let type = st.st_mode & S_IFMT
        if accept == .regularFiles && type != S_IFREG {
            close(fd)
            throw .notRegular(name: what ?? path, kind: fileKind(type))
        }
        return (fd, st)
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
    /// With `secret`, the old file's permissions are not kept: the file gets `secret.mode` and
    /// group `secret.group` (owner root when running as root), set before it takes the name,
    /// so the secret is never readable by others, not even for a moment; where the group
    /// cannot be given (the writer is not in it), mode 0600.
    package static func replaceAtomically(
        path: String, contents: [UInt8], permissions: mode_t = 0o644, secret: (mode: mode_t, group: gid_t?)? = nil
    ) throws(SystemCallError) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let temporary = path + ".tmp-\(getpid())"
        var old = stat()
        let existed = stat(path, &old) == 0
        // A temporary left by a power cut under the same pid (a service after a reboot) goes first.
        unlink(temporary)
        let mode =
            secret.map { $0.group == nil ? 0o600 : $0.mode } ?? (existed ? old.st_mode & 0o7777 : permissions)
        let fd = Int32(
            try retryingOnInterrupt("open", detail: temporary) {
                Int(open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode))
            })
        do throws(SystemCallError) {
            defer { close(fd) }
            try writeAll(fd: fd, bytes: contents, detail: temporary)
            if let secret {
                // open() applied the umask: the mode is set exactly here.
                var exact = secret.group == nil ? mode_t(0o600) : mode
                if let group = secret.group, fchown(fd, getuid() == 0 ? 0 : uid_t.max, group) != 0 { exact = 0o600 }
                try retryingOnInterrupt("fchmod", detail: temporary) { Int(fchmod(fd, exact)) }
            } else if existed && getuid() == 0 {
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

/// Why a bounded read failed: the call that failed, or a file that is not one to read.
package enum FileReadError: Error, CustomStringConvertible {
    case system(SystemCallError)
    /// `kind` is "a FIFO", "a character device", "a directory"…
    case notRegular(name: String, kind: String)
    /// `size` is nil when the file did not state it (it was read past the limit).
    case tooLarge(name: String, size: Int?, limit: Int)

    /// The errno of a failed call; nil for a file of the wrong kind or size.
    package var errno: Errno? {
        if case .system(let e) = self { return e.errno }
        return nil
    }

    /// The reason without the file's name, for messages that already name it.
    package var reason: String {
        switch self {
        case .system(let e): e.errno.message
        case .notRegular(_, let kind): "it is \(kind), not a regular file — give the path of a file"
        case .tooLarge(_, let size, let limit): "it is \(Self.sizes(size, limit))"
        }
    }

    package var description: String {
        switch self {
        case .system(let e): "\(e)"
        case .notRegular(let name, let kind): "\(name) is \(kind), not a regular file — give the path of a file"
        case .tooLarge(let name, let size, let limit): "\(name) is \(Self.sizes(size, limit))"
        }
    }

    /// "17 MB; the limit is 16 MB", or "over the limit of 4 KB" when the size is unknown.
    private static func sizes(_ size: Int?, _ limit: Int) -> String {
        let limitText = FileIO.sizeText(limit, roundingUp: false)
        guard let size else { return "over the limit of \(limitText)" }
        return "\(FileIO.sizeText(size)); the limit is \(limitText)"
    }
}
