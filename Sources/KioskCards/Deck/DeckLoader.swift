import CardModel
import Glibc

/// Reads deck files from disk: the file, then `DeckParser`, with image paths checked against
/// the deck's folder.
///
/// Runs on the caller's thread and reads small files (a deck is a few kilobytes; images are
/// only probed for their 8-byte PNG signature, not decoded).
enum DeckLoader {
    /// Reads and checks the deck at `path`.
    static func load(path: String) -> Result<DeckFile, DeckProblems> {
        let bytes: [UInt8]
        do {
            bytes = try readFile(path)
        } catch {
            var message = "cannot read the deck file: \(error.errno.message)"
            if error.errno == .noEntry { message += "; check the path (config key 'deck' or --deck)" }
            if error.errno == .permissionDenied { message += "; make it readable by the kiosk user" }
            let problem = DeckProblem(kind: .unreadableFile, path: "", position: nil, message: message)
            return .failure(DeckProblems(file: path, problems: [problem]))
        }
        let directory = PathName.directory(of: path)
        return DeckParser.parse(bytes: bytes, path: path) { checkImage($0, deckDirectory: directory) }
    }

    /// Where `relative` (from a card's "image") lands, and whether it may be used.
    static func checkImage(_ relative: String, deckDirectory: String) -> DeckImageCheck {
        if relative.hasPrefix("/") { return .outsideDeck(relative) }
        let joined = PathName.normalize(deckDirectory + "/" + relative)
        let base = PathName.normalize(deckDirectory)
        guard PathName.isInside(joined, base) else { return .outsideDeck(joined) }
        // Symlinks may still lead out: compare the real paths too.
        guard let realBase = PathName.realPath(base) else { return .missing(joined) }
        guard let real = PathName.realPath(joined) else { return .missing(joined) }
        guard PathName.isInside(real, realBase) else { return .outsideDeck(real) }
        var st = stat()
        guard stat(real, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return .unsupported(real) }
        guard let head = try? readFile(real, limit: 8), head == pngSignature else { return .unsupported(real) }
        return .ok(real)
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The whole file (or its first `limit` bytes).
    static func readFile(_ path: String, limit: Int = 16 << 20) throws(SystemCallError) -> [UInt8] {
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
}

/// Path string helpers (no Foundation in the executable).
enum PathName {
    /// The folder part of `path` ("." for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The name part of `path`.
    static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Removes ".", empty components and resolves ".." lexically; a leading ".." is kept.
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for c in path.split(separator: "/", omittingEmptySubsequences: true) {
            if c == "." { continue }
            if c == ".." {
                if let last = parts.last, last != ".." {
                    parts.removeLast()
                } else if !absolute {
                    parts.append(c)
                }
                continue
            }
            parts.append(c)
        }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    /// Whether `path` is `base` or below it (both normalised the same way).
    static func isInside(_ path: String, _ base: String) -> Bool {
        if base == "." { return !(path == ".." || path.hasPrefix("../")) && !path.hasPrefix("/") }
        if base == "/" { return path.hasPrefix("/") }
        return path.hasPrefix(base + "/")
    }

    /// realpath(3): the absolute path with symlinks resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
