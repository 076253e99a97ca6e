import Glibc

/// Writes diagnostics to stderr, one line per call, in a journald-friendly form
/// (no colours; a `<N>` priority prefix is added by `log` when running under systemd).
package enum Log {
    enum Level: Int {
        case error = 3
        case warning = 4
        case info = 6
        case debug = 7
    }

    /// Writes `text` to stderr unbuffered, so lines from several places never interleave.
    package static func raw(_ text: String) {
        var bytes = Array(text.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        // Nowhere to report a failure to write stderr.
        try? FileIO.writeAll(fd: 2, bytes: bytes)
    }

    static func log(_ level: Level, _ message: String) {
        let prefix = underJournal ? "<\(level.rawValue)>" : ""
        raw(prefix + message)
    }

    package static func error(_ message: String) { log(.error, message) }
    package static func warning(_ message: String) { log(.warning, message) }
    package static func info(_ message: String) { log(.info, message) }

    /// systemd sets JOURNAL_STREAM when stderr is connected to the journal.
    static let underJournal: Bool = getenv("JOURNAL_STREAM") != nil
}
