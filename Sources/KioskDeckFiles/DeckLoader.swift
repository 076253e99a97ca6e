import CardModel
import Glibc
import KioskSystem

/// Reads deck files from disk: the file, then `DeckParser`, with image paths checked against
/// the deck's folder.
///
/// Runs on the caller's thread. Images are read whole and verified (`ImageFile.check`: PNG
/// chunks and CRCs, JPEG markers, the pixel limit) but not decoded.
package enum DeckLoader {
    /// Reads and checks the deck at `path`.
    package static func load(path: String) -> Result<DeckFile, DeckProblems> {
        load(path: path, followDecks: true, confinedTo: nil)
    }

    /// Reads and checks a deck that came from elsewhere (a fleet server): every file it names
    /// (images, schedule windows' decks) must lie inside `root`, its version folder, also after
    /// symlinks; an absolute or escaping name is refused without being opened, and a refusal
    /// never quotes the contents of a file the deck names.
    package static func load(path: String, confinedTo root: String) -> Result<DeckFile, DeckProblems> {
        load(path: path, followDecks: true, confinedTo: root)
    }

    /// Parses a deck's bytes for its texts only (the report's card titles from the fleet's copy):
    /// images and schedule windows' decks are taken as named, not read.
    package static func parseTexts(bytes: [UInt8], path: String) -> Result<DeckFile, DeckProblems> {
        DeckParser.parse(bytes: bytes, path: path, checkImage: { .ok($0) }, checkDeck: { .success($0) })
    }

    /// `followDecks`: also read the decks a schedule's windows name (one level: those may not
    /// have schedules of their own). `confinedTo`: see `load(path:confinedTo:)`.
    static func load(path: String, followDecks: Bool, confinedTo root: String?) -> Result<DeckFile, DeckProblems> {
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
        return DeckParser.parse(
            bytes: bytes, path: path, checkImage: { checkImage($0, deckDirectory: directory) },
            checkDeck: { checkDeck($0, deckDirectory: directory, follow: followDecks, confinedTo: root) })
    }

    /// A schedule window's "deck" (relative to this deck's folder, or absolute): read and checked
    /// whole, so a missing or broken deck shows in `check-deck` with the window's line.
    static func checkDeck(_ name: String, deckDirectory: String, follow: Bool, confinedTo root: String? = nil)
        -> Result<String, DeckReferenceProblem>
    {
        let path = PathName.normalize(name.hasPrefix("/") ? name : deckDirectory + "/" + name)
        guard follow else {
            return .failure(
                DeckReferenceProblem(
                    "a deck named by a schedule window cannot name decks itself; remove its \"schedule\""))
        }
        if let root {
            // Decided on the name and the real paths before anything is opened.
            let base = PathName.normalize(root)
            let inside =
                !name.hasPrefix("/") && PathName.isInside(path, base)
                && PathName.realPath(base).map { realBase in
                    PathName.realPath(path).map { PathName.isInside($0, realBase) } ?? true
                } ?? false
            guard inside else {
                return .failure(
                    DeckReferenceProblem(
                        "the deck \"\(Excerpt.of(name))\" is outside this deck's folder; a published deck may only name "
                            + "decks beside it — fix the schedule window and publish it again"))
            }
            guard case .success(let file) = load(path: path, followDecks: false, confinedTo: base) else {
                return .failure(
                    DeckReferenceProblem(
                        "the deck \"\(Excerpt.of(name))\" is missing or not a valid deck — check it with check-deck "
                            + "and publish it again"))
            }
            guard file.schedule == nil else {
                return .failure(
                    DeckReferenceProblem(
                        "the deck \"\(Excerpt.of(name))\" has a \"schedule\" of its own, which would be ignored; remove it there"
                    ))
            }
            return .success(path)
        }
        switch load(path: path, followDecks: false, confinedTo: nil) {
        case .success(let file):
            if file.schedule != nil {
                return .failure(
                    DeckReferenceProblem(
                        "\(path) has a \"schedule\" of its own, which would be ignored; remove it there"))
            }
            return .success(path)
        case .failure(let problems):
            if problems.problems.first?.kind == .unreadableFile {
                return .failure(
                    DeckReferenceProblem(
                        "no deck file \(path): check the name (relative to this deck's folder)"))
            }
            let first = problems.problems.prefix(3).map { $0.formatted(file: path) }.joined(separator: "; ")
            return .failure(DeckReferenceProblem("the deck \(path) has problems: \(first)"))
        }
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
        guard st.st_size <= maxImageBytes else {
            let problem = ImageFile.Problem(
                .tooLarge, "is \(st.st_size >> 20) MB; the limit is \(maxImageBytes >> 20) MB — scale it down")
            return .invalid(real, problem)
        }
        guard let bytes = try? FileIO.readAll(real, limit: maxImageBytes) else { return .unsupported(real) }
        switch ImageFile.check(bytes, jpegSize: ImageFile.jpegSize) {
        case .success: return .ok(real)
        case .failure(let problem) where problem.kind == .unknownFormat: return .unsupported(real)
        case .failure(let problem): return .invalid(real, problem)
        }
    }

    /// The largest image file read (the renderer's limit too: a 4K JPEG is a few MB).
    static let maxImageBytes = 64 << 20

    /// The largest deck file read (a deck is a few kilobytes; this is a guard, not a budget).
    package static let maxDeckBytes = 16 << 20
}
