import Glibc

/// Path string helpers (no Foundation).
package enum PathName {
    /// The folder part of `path` ("." for a bare name).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The name part of `path`.
    package static func baseName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Removes ".", empty components and resolves ".." lexically; a leading ".." is kept.
    package static func normalize(_ path: String) -> String {
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
    package static func isInside(_ path: String, _ base: String) -> Bool {
        if base == "." { return !(path == ".." || path.hasPrefix("../")) && !path.hasPrefix("/") }
        if base == "/" { return path.hasPrefix("/") }
        return path.hasPrefix(base + "/")
    }

    /// realpath(3): the absolute path with symlinks resolved; nil when it does not exist.
    package static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }
}
