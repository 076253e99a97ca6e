import Glibc
import KioskSystem

/// The decks a fleet server sent this kiosk, kept in its data directory so that it always
/// boots from the last good one without waiting for the network:
///
///     DATA/fleet-decks/
///       current -> versions/SHA256           the deck on screen (a symlink replaced by rename(2))
///       versions/SHA256/deck.json, images…   each version complete and checked; three are kept
///       versions/SHA256/.fleet-version       "sha256 deck-id version", written last
///       staging-PID/                         a download in progress (removed on the next install)
///       .lock                                flock: one installer at a time (kiosk or fleet sync)
///
/// A version reaches `versions/` only after every byte matched its sha256 and the deck passed
/// the same checks as `check-deck` (`DeckLoader`), so `current` never points at a half-written
/// or invalid deck. The app loads and watches `deckPath` (`current/deck.json`); replacing
/// `current` is what hot-reloads it.
package struct ManagedDecks: Sendable {
    package let root: String

    /// Versions kept: the current one and the two before it (for `fleet publish --rollback`).
    package static let kept = 3

    package init(dataDirectory: String) {
        root = dataDirectory + "/fleet-decks"
    }

    package var currentLink: String { root + "/current" }
    /// The deck file the app loads and watches.
    package var deckPath: String { currentLink + "/deck.json" }
    var versionsDirectory: String { root + "/versions" }

    /// One version on disk.
    package struct Version: Hashable, Sendable, CustomStringConvertible {
        package var sha256: String
        package var deckID: String
        package var version: Int

        package var description: String { "\(deckID)@\(version) (sha256 \(sha256.prefix(12)))" }
    }

    /// What an install was given: the deck file's bytes and its images (paths relative to the
    /// deck file) with the sha256 each is supposed to have.
    package struct Incoming: Sendable {
        package var sha256: String
        package var deckID: String
        package var version: Int
        package var deck: [UInt8]
        package var images: [(path: String, sha256: String, bytes: [UInt8])]

        package init(
            sha256: String, deckID: String, version: Int, deck: [UInt8],
            images: [(path: String, sha256: String, bytes: [UInt8])]
        ) {
            self.sha256 = sha256
            self.deckID = deckID
            self.version = version
            self.deck = deck
            self.images = images
        }

        var name: String { "\(deckID)@\(version) (sha256 \(sha256.prefix(12)))" }
    }

    /// An image to install by streaming: its path relative to the deck file, the sha256 it
    /// must have and its size as the server states it (checked against the image limit
    /// before a byte is read, and held to while reading).
    package struct IncomingImage: Hashable, Sendable {
        package var path: String
        package var sha256: String
        package var byteCount: Int

        package init(path: String, sha256: String, byteCount: Int) {
            self.path = path
            self.sha256 = sha256
            self.byteCount = byteCount
        }
    }

    /// Why a deck was not installed: the message names the deck, what is wrong and what to do.
    package struct InstallError: Error, Hashable, Sendable, CustomStringConvertible {
        package enum Kind: String, Hashable, Sendable {
            case hashMismatch
            case badPath
            case tooLarge
            case invalidDeck
            case busy
            case io
        }

        package var kind: Kind
        package var message: String
        package var description: String { message }
    }

    // MARK: Reading

    /// The version `current` points at, nil: none yet (or the link is broken).
    package func current() -> Version? {
        guard let target = PathName.realPath(currentLink) else { return nil }
        return Self.readVersion(target)
    }

    /// Every complete version, the most recently applied first.
    package func versions() -> [Version] {
        entries(versionsDirectory).compactMap { name -> (Version, Int64)? in
            let dir = versionsDirectory + "/" + name
            guard let v = Self.readVersion(dir) else { return nil }
            return (v, Self.modified(dir))
        }.sorted { $0.1 > $1.1 }.map(\.0)
    }

    /// Whether `sha256` is complete on disk (a rollback then needs no download).
    package func has(_ sha256: String) -> Bool {
        Self.isHash(sha256) && Self.readVersion(versionsDirectory + "/" + sha256)?.sha256 == sha256
    }

    /// The deck to boot from: the current version when it loads, else nil (the configured deck).
    package func bootDeck() -> DeckFile? {
        guard current() != nil, case .success(let deck) = DeckLoader.load(path: deckPath, confinedTo: currentLink)
        else { return nil }
        return deck
    }

    // MARK: Installing

    /// Verifies `incoming` (every sha256, every path, the deck checks) in a staging directory,
    /// moves it into `versions/` and switches `current` to it, then prunes old versions.
    /// Nothing that fails reaches `current`. Returns the version now current.
    @discardableResult
    package func install(_ incoming: Incoming) throws(InstallError) -> Version {
        let images = incoming.images.map { IncomingImage(path: $0.path, sha256: $0.sha256, byteCount: $0.bytes.count) }
        do {
            return try install(
                sha256: incoming.sha256, deckID: incoming.deckID, version: incoming.version, deck: incoming.deck,
                images: images, fetch: { i, write in try write(incoming.images[i].bytes) })
        } catch let error as InstallError {
            throw error
        } catch {
            throw InstallError(kind: .io, message: "deck \(incoming.name): \(error)")
        }
    }

    /// `install(_:)` with the images streamed: `fetch(i, write)` reads image `i` and hands its
    /// bytes to `write` piece by piece, in order; each piece goes to its staging file and its
    /// hash at once, so memory stays one piece whatever the image's size. An image stated
    /// over the limit is refused before anything is read. Errors: `InstallError`, or what
    /// `fetch` threw (a server failure), after the staging folder is removed.
    @discardableResult
    package func install(
        sha256: String, deckID: String, version: Int, deck: [UInt8], images: [IncomingImage],
        fetch: (Int, ([UInt8]) throws -> Void) throws -> Void
    ) throws -> Version {
        try ensureDirectories()
        let lock = try takeLock()
        defer { close(lock) }
        removeStaging()
        if !has(sha256) {
            let incoming = Incoming(sha256: sha256, deckID: deckID, version: version, deck: deck, images: [])
            try stage(incoming, images: images, fetch: fetch)
        }
        return try switchTo(sha256)
    }

    /// Switches `current` to a version already on disk (a rollback without a download).
    @discardableResult
    package func activate(_ sha256: String) throws(InstallError) -> Version {
        try ensureDirectories()
        let lock = try takeLock()
        defer { close(lock) }
        removeStaging()
        return try switchTo(sha256)
    }

    private func stage(
        _ incoming: Incoming, images: [IncomingImage], fetch: (Int, ([UInt8]) throws -> Void) throws -> Void
    ) throws {
        let what = incoming.name
        guard Self.isHash(incoming.sha256) else {
            throw InstallError(kind: .badPath, message: "deck \(what): '\(incoming.sha256)' is not a sha256")
        }
        let got = SHA256.hex(incoming.deck)
        guard got == incoming.sha256 else {
            throw InstallError(
                kind: .hashMismatch,
                message:
                    "deck \(what): the deck file from the server has sha256 \(got.prefix(12)), not \(incoming.sha256.prefix(12)) — "
                    + "the server's copy is damaged; publish the deck again (fleet publish), the kiosk keeps its current deck"
            )
        }
        let limit = DeckLoader.maxImageBytes
        for image in images {
            guard Self.isSafeRelative(image.path) else {
                throw InstallError(
                    kind: .badPath,
                    message:
                        "deck \(what): image path '\(Excerpt.of(image.path))' leaves the deck's folder — publish the deck again with images beside it"
                )
            }
            guard image.byteCount <= limit else {
                throw InstallError(
                    kind: .tooLarge,
                    message:
                        "deck \(what): image \(image.path) on the server is \(image.byteCount >> 20) MB; an image may be at most "
                        + "\(limit >> 20) MB — scale it down and publish the deck again; nothing was downloaded, the kiosk keeps its current deck"
                )
            }
        }
        let staging = root + "/staging-\(getpid())"
        do {
            try Self.makeDirectory(staging)
            for (i, image) in images.enumerated() {
                var hash = SHA256()
                var count = 0
                try Self.writeFile(staging + "/" + image.path, makingParentsIn: staging) { fd in
                    try fetch(i) { piece throws in
                        count += piece.count
                        guard count <= image.byteCount else {
                            throw InstallError(
                                kind: .hashMismatch,
                                message:
                                    "deck \(what): image \(image.path) from the server is longer than the \(image.byteCount) bytes it "
                                    + "stated — the server's copy is damaged; publish the deck again, the kiosk keeps its current deck"
                            )
                        }
                        hash.update(piece)
                        try FileIO.writeAll(fd: fd, bytes: piece, detail: staging + "/" + image.path)
                    }
                }
                let sum = hash.finalHex()
                guard sum == image.sha256 else {
                    throw InstallError(
                        kind: .hashMismatch,
                        message:
                            "deck \(what): image \(image.path) from the server has sha256 \(sum.prefix(12)), not \(image.sha256.prefix(12)) "
                            + "(\(count) bytes) — the server's blob is damaged; publish the deck again (fleet publish), "
                            + "the kiosk keeps its current deck")
                }
            }
            try Self.writeFile(staging + "/deck.json", incoming.deck, makingParentsIn: staging)
        } catch let error as SystemCallError {
            Self.removeTree(staging)
            throw InstallError(
                kind: .io, message: "deck \(what): cannot write \(staging): \(error) — check the data disk")
        } catch {
            Self.removeTree(staging)
            throw error
        }
        switch DeckLoader.load(path: staging + "/deck.json", confinedTo: staging) {
        case .success: break
        case .failure(let problems):
            Self.removeTree(staging)
            let list = problems.problems.map { $0.formatted(file: "deck.json") }.joined(separator: "; ")
            throw InstallError(
                kind: .invalidDeck,
                message:
                    "deck \(what) fails the deck checks: \(list) — fix it (KioskCards check-deck) and publish it again; "
                    + "the kiosk keeps its current deck")
        }
        let final = versionsDirectory + "/" + incoming.sha256
        do throws(SystemCallError) {
            let stamp = "\(incoming.sha256) \(incoming.deckID) \(incoming.version)\n"
            try Self.writeFile(staging + "/.fleet-version", Array(stamp.utf8), makingParentsIn: staging)
            Self.syncDirectory(staging)
            Self.removeTree(final)  // an incomplete leftover (no .fleet-version) of an older run
            try retryingOnInterrupt("rename", detail: final) { Int(rename(staging, final)) }
            Self.syncDirectory(versionsDirectory)
        } catch {
            Self.removeTree(staging)
            throw InstallError(kind: .io, message: "deck \(what): cannot move it into \(final): \(error)")
        }
    }

    private func switchTo(_ sha256: String) throws(InstallError) -> Version {
        let dir = versionsDirectory + "/" + sha256
        guard let version = Self.readVersion(dir) else {
            throw InstallError(kind: .io, message: "deck sha256 \(sha256.prefix(12)) is not on this kiosk")
        }
        if current()?.sha256 != sha256 {
            let temporary = root + "/current.new-\(getpid())"
            unlink(temporary)
            do throws(SystemCallError) {
                try retryingOnInterrupt("symlink", detail: temporary) { Int(symlink("versions/" + sha256, temporary)) }
                try retryingOnInterrupt("rename", detail: currentLink) { Int(rename(temporary, currentLink)) }
            } catch {
                unlink(temporary)
                throw InstallError(kind: .io, message: "deck \(version): cannot switch \(currentLink): \(error)")
            }
            Self.syncDirectory(root)
        }
        // The applied order is the directories' modification time (prune keeps the newest).
        _ = utimensat(AT_FDCWD, dir, nil, 0)
        prune(keeping: sha256)
        return version
    }

    /// Removes all but the `kept` most recently applied versions (never `current`).
    private func prune(keeping current: String) {
        let all = versions()
        var keep: Set<String> = [current]
        for v in all where keep.count < Self.kept { keep.insert(v.sha256) }
        for name in entries(versionsDirectory) where !keep.contains(name) {
            Self.removeTree(versionsDirectory + "/" + name)
        }
    }

    /// Removes staging directories left by an installer that was killed (the lock is held, so
    /// none is in use).
    private func removeStaging() {
        for name in entries(root) where name.hasPrefix("staging-") || name.hasPrefix("current.new-") {
            Self.removeTree(root + "/" + name)
        }
    }

    private func ensureDirectories() throws(InstallError) {
        do throws(SystemCallError) {
            // A fresh kiosk may get its deck before its first decision made the data directory.
            if mkdir(PathName.directory(of: root), 0o750) != 0 && errno != EEXIST {
                throw SystemCallError(call: "mkdir", errno: .current, detail: PathName.directory(of: root))
            }
            try Self.makeDirectory(root)
            try Self.makeDirectory(versionsDirectory)
        } catch {
            throw InstallError(
                kind: .io, message: "cannot create \(versionsDirectory): \(error) — check the data directory")
        }
    }

    private func takeLock() throws(InstallError) -> Int32 {
        let path = root + "/.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw InstallError(kind: .io, message: "cannot open \(path): \(Errno.current)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw InstallError(kind: .busy, message: "another process is installing a deck in \(root); trying later")
        }
        return fd
    }

    // MARK: Files

    static func isHash(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// A path relative to the deck's folder that stays inside it: no "/", "." or ".." parts,
    /// no empty part, no NUL.
    static func isSafeRelative(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.utf8.contains(0) else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return false }
        // The deck file and the version stamp are the installer's own names.
        return !(parts.count == 1 && (parts[0] == "deck.json" || parts[0].hasPrefix(".fleet")))
    }

    static func readVersion(_ dir: String) -> Version? {
        guard let bytes = try? FileIO.readAll(dir + "/.fleet-version", limit: 4096) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard parts.count == 3, isHash(String(parts[0])), let n = Int(parts[2]) else { return nil }
        return Version(sha256: String(parts[0]), deckID: String(parts[1]), version: n)
    }

    static func modified(_ path: String) -> Int64 {
        var st = stat()
        guard stat(path, &st) == 0 else { return 0 }
        return Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }

    private func entries(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func makeDirectory(_ path: String) throws(SystemCallError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw SystemCallError(call: "mkdir", errno: .current, detail: path)
        }
    }

    /// Writes a new file and fsyncs it; missing folders between `base` and it are made.
    static func writeFile(_ path: String, _ bytes: [UInt8], makingParentsIn base: String) throws(SystemCallError) {
        do {
            try writeFile(path, makingParentsIn: base) { fd in try FileIO.writeAll(fd: fd, bytes: bytes, detail: path) }
        } catch let error as SystemCallError {
            throw error
        } catch {
            throw SystemCallError(call: "write", errno: Errno(EIO), detail: "\(path): \(error)")
        }
    }

    /// Creates a new file, lets `fill` write it through its descriptor, then fsyncs it (and its
    /// folder); missing folders between `base` and it are made. Throws what `fill` threw.
    static func writeFile(_ path: String, makingParentsIn base: String, fill: (Int32) throws -> Void) throws {
        var dir = PathName.directory(of: path)
        var missing: [String] = []
        while dir.count > base.count && !FileIO.exists(dir) {
            missing.append(dir)
            dir = PathName.directory(of: dir)
        }
        for d in missing.reversed() { try makeDirectory(d) }
        let fd = Int32(
            try retryingOnInterrupt("open", detail: path) {
                Int(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644))
            })
        defer { close(fd) }
        try fill(fd)
        try retryingOnInterrupt("fsync", detail: path) { Int(fsync(fd)) }
        syncDirectory(PathName.directory(of: path))
    }

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// `rm -rf path`, depth first, never following a symlink (lstat).
    static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            unlink(path)
            return
        }
        if let d = opendir(path) {
            var names: [String] = []
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(d)
            for name in names { removeTree(path + "/" + name) }
        }
        rmdir(path)
    }
}
