import CardModel
import Glibc
import KioskSystem

/// Reads deck files from disk: the file, then `DeckParser`, with image paths checked against
/// the deck's folder.
///
/// Runs on the caller's thread and reads small files (a deck is a few kilobytes; images are
/// only probed for their 8-byte PNG signature, not decoded).
package enum DeckLoader {
    /// Reads and checks the deck at `path`.
    package static func load(path: String) -> Result<DeckFile, DeckProblems> {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readAll(path, limit: maxDeckBytes, what: PathName.baseName(of: path))
        } catch {
            var message = "cannot read the deck file: \(error.reason)"
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
        guard let head = try? FileIO.readPrefix(real, count: 8), head == pngSignature else { return .unsupported(real) }
        return .ok(real)
    }

    /// The largest deck file read (a deck is a few kilobytes; this is a guard, not a budget).
    package static let maxDeckBytes = 16 << 20

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}
