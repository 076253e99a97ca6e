import Glibc
import KioskInput
import KioskSystem

/// Sets one `key = value` line in a `kiosk.conf` text, keeping every other line, comment and
/// blank line as it was (what `KioskCards calibrate` does to `touch-matrix`). Pure; the atomic
/// write is `ConfigEdit.writeAtomically`.
enum ConfigEdit {
    /// `text` with `key` set to `value`:
    /// - the active `key = …` line is replaced in place (its indentation and a trailing
    ///   ` # comment` are kept);
    /// - without one, the new line goes right after the last commented-out example of the key
    ///   (`# key = …`), where the documentation of the key is;
    /// - else it is appended at the end.
    /// The file's line ending style (`\n` or `\r\n`) is kept; the result ends with a newline.
    static func setting(_ key: String, to value: String, in text: String) -> String {
        // "\r\n" is one Character in Swift: split on both.
        let crlf = text.contains("\r\n")
        let newline = crlf ? "\r\n" : "\n"
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map(String.init)
        if text.isEmpty {
            lines = []
        } else if text.last == "\n" || text.last == "\r\n" {
            lines.removeLast()  // the empty piece after the last newline
        }

        if let i = lines.firstIndex(where: { activeKey(of: $0) == key }) {
            let line = lines[i]
            let indent = line.prefix { $0 == " " || $0 == "\t" }
            let comment = trailingComment(of: line).map { "  " + $0 } ?? ""
            lines[i] = "\(indent)\(key) = \(value)\(comment)"
            // The parser refuses a key set twice; drop later copies rather than leave a broken file.
            var j = lines.count - 1
            while j > i {
                if activeKey(of: lines[j]) == key { lines.remove(at: j) }
                j -= 1
            }
        } else if let i = lines.lastIndex(where: { commentedKey(of: $0) == key }) {
            lines.insert("\(key) = \(value)", at: i + 1)
        } else {
            if let last = lines.last, !last.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.append("") }
            lines.append("\(key) = \(value)")
        }
        return lines.joined(separator: newline) + newline
    }

    /// The key of an active `key = value` line; nil for comments, blank and other lines.
    static func activeKey(of line: String) -> String? {
        let body = line.drop { $0 == " " || $0 == "\t" }
        guard let first = body.first, first != "#", let eq = body.firstIndex(of: "=") else { return nil }
        let key = body[..<eq].reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        return key.isEmpty ? nil : String(key)
    }

    /// The key of a commented-out example line, `# key = value` or `#key=value`.
    static func commentedKey(of line: String) -> String? {
        let body = line.drop { $0 == " " || $0 == "\t" }
        guard body.first == "#" else { return nil }
        let rest = String(body.dropFirst().drop { $0 == " " || $0 == "\t" })
        guard let key = activeKey(of: rest), !key.contains(" ") else { return nil }
        return key
    }

    /// A trailing `# comment` of an active line (the parser's rule: '#' after whitespace).
    static func trailingComment(of line: String) -> String? {
        var previous: Character = "x"
        var index = line.startIndex
        var sawEquals = false
        while index < line.endIndex {
            let c = line[index]
            if c == "=" { sawEquals = true }
            if sawEquals && c == "#" && (previous == " " || previous == "\t") { return String(line[index...]) }
            previous = c
            index = line.index(after: index)
        }
        return nil
    }

    /// Who may read a config: its writer (root, for the installed one) and group `kiosk` (the
    /// service's user, which reads it) when that group exists; no one else.
    static var secretAccess: (mode: mode_t, group: gid_t?) {
        (0o640, getgrnam("kiosk").map { $0.pointee.gr_gid })
    }

    /// A matrix as the config writes it: six numbers with at most 6 decimals, in quotes.
    static func matrixValue(_ m: TouchMatrix) -> String { "\"\(m.configText)\"" }

    /// The config file's text for a tool to edit (nil: it does not exist yet), or exit
    /// status 1 after logging "`command`: cannot read PATH: why".
    static func readForEditing(_ path: String, command: String) -> Result<String?, ExitStatus> {
        switch KioskConfig.readConfigFile(path) {
        case .text(let text): return .success(text)
        case .missing: return .success(nil)
        case .unreadable(let reason):
            Log.error("\(command): cannot read \(path): \(reason)")
            return .failure(ExitStatus(code: 1))
        }
    }

    /// Writes `touch-matrix` into the config text and checks the result still reads as a
    /// valid config with that matrix before replacing the file.
    static func saveTouchMatrix(
        _ matrix: TouchMatrix, original: String?, path: String
    ) -> Result<String, ConfigEditError> {
        save("touch-matrix", value: matrixValue(matrix), original: original, path: path)
    }

    /// Writes `key = value` into the config text `original` and checks the result still reads
    /// as a valid config before replacing the file at `path` (atomically); the path written.
    static func save(_ key: String, value: String, original: String?, path: String) -> Result<String, ConfigEditError> {
        let text = setting(key, to: value, in: original ?? "")
        var check = KioskConfig()
        if let error = KioskConfig.apply(file: text, name: path, to: &check) {
            return .failure(
                ConfigEditError(path: path, errno: Errno(EINVAL), step: "the edited file would not read: \(error)"))
        }
        do {
            try ConfigEdit.writeAtomically(text, to: path)
        } catch {
            return .failure(error)
        }
        return .success(path)
    }

    /// Replaces the file at `path` with `text` atomically (`FileIO.replaceAtomically`: fsynced,
    /// renamed over it). A power cut leaves either the old or the new file, never half of one.
    /// The config may hold secrets (the PIN hash, fleet credentials), so whoever writes it, it
    /// ends up `secretAccess`: 0640 root:kiosk, or 0600 where there is no group `kiosk`.
    static func writeAtomically(_ text: String, to path: String) throws(ConfigEditError) {
        do {
            try FileIO.replaceAtomically(path: path, contents: Array(text.utf8), secret: secretAccess)
        } catch {
            throw ConfigEditError(path: path, errno: error.errno, step: "\(error.call) \(error.detail ?? path)")
        }
    }
}

/// The config file could not be written; says which step failed and what to do.
struct ConfigEditError: Error, CustomStringConvertible {
    var path: String
    var errno: Errno
    var step: String

    var description: String {
        var text = "cannot write \(path) (\(step)): \(errno)"
        switch errno {
        case .permissionDenied, Errno(EPERM), Errno(EROFS):
            text += " — run as root (sudo), or use --print and add the line yourself"
        case .noEntry:
            text += " — create the directory first, or give --config FILE"
        default: break
        }
        return text
    }
}
