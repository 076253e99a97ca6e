import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskDeckFiles
@testable import KioskSystem

/// The kiosk's local fleet decks (`ManagedDecks`) on real files, the app's `DeckWatcher`
/// following its `current` symlink with real inotify, and the SHA-256 they rely on.
@Suite struct DeckManagedTests {
    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let two = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hex(two) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // Fed in odd pieces: the same digest as at once (every padding length 0…129).
        var generator = SplitMix64(seed: 3)
        for length in 0..<130 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var h = SHA256()
            var i = 0
            while i < bytes.count {
                let n = min(bytes.count - i, 1 + Int(generator.next() % 70))
                h.update(Array(bytes[i..<(i + n)]))
                i += n
            }
            let whole = SHA256.hex(bytes)
            #expect(h.finalHex() == whole, "length \(length)")
        }
        #expect(
            SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func incoming(_ id: String, version: Int, title: String) -> ManagedDecks.Incoming {
        let deck = Array(
            """
            {"id": "\(id)", "version": \(version), "title": "\(title)", "layout": "stack",
             "cards": [{"id": "a", "title": "A", "color": "#336699", "image": "img/dot.png"}]}
            """.utf8)
        let dot = (try? FileIO.readAll(DeckFixtures.good("img/dot.png"), limit: 1 << 20)) ?? []
        return ManagedDecks.Incoming(
            sha256: SHA256.hex(deck), deckID: id, version: version, deck: deck,
            images: [("img/dot.png", SHA256.hex(dot), dot)])
    }

    @Test func installRefusesBadHashesPathsAndDecksAndKeepsCurrent() throws {
        let dir = DeckFixtures.temporaryDirectory("managed")
        defer { DeckFixtures.removeTree(dir) }
        let decks = ManagedDecks(dataDirectory: dir)
        #expect(decks.current() == nil && decks.bootDeck() == nil)
        let good = incoming("good", version: 1, title: "Gut")
        let v = try decks.install(good)
        #expect(v.deckID == "good" && decks.current() == v && decks.bootDeck()?.id == "good")

        func refused(_ x: ManagedDecks.Incoming) -> ManagedDecks.InstallError.Kind? {
            do throws(ManagedDecks.InstallError) {
                try decks.install(x)
                return nil
            } catch {
                return error.kind
            }
        }
        var image = incoming("img", version: 2, title: "Bild")
        image.images[0].bytes[40] ^= 1
        #expect(refused(image) == .hashMismatch)
        var deck = incoming("deck", version: 3, title: "Deck")
        deck.deck[5] ^= 1
        #expect(refused(deck) == .hashMismatch)
        for path in ["../escape.png", "/etc/passwd", "img/../../x.png", "", "deck.json", ".fleet-version", "a//b"] {
            var p = incoming("path", version: 4, title: "Pfad")
            p.images[0].path = path
            #expect(refused(p) == .badPath, "\(path)")
        }
        var invalid = incoming("invalid", version: 5, title: "Kaputt")
        invalid.deck = Array(#"{"id": "invalid", "version": 5, "cards": []}"#.utf8)
        invalid.sha256 = SHA256.hex(invalid.deck)
        #expect(refused(invalid) == .invalidDeck)
        #expect(decks.current() == v && decks.versions() == [v])
        #expect(!FileIO.exists(decks.root + "/staging-\(getpid())"))
    }

    @Test func watcherReloadsWhenCurrentIsReplaced() throws {
        let dir = DeckFixtures.temporaryDirectory("managed-watch")
        defer { DeckFixtures.removeTree(dir) }
        let decks = ManagedDecks(dataDirectory: dir)
        _ = mkdir(decks.root, 0o755)
        let loop = EventLoop()
        var received: [DeckFile] = []
        // Watching before any fleet deck exists (the kiosk booted its configured deck).
        let watcher = try DeckWatcher(path: decks.deckPath, current: nil, loop: loop, debounce: 0.05) {
            received.append($0)
        }
        defer { watcher.stop() }
        func drive(until condition: () -> Bool) {
            let deadline = MonotonicClock.now().advanced(bySeconds: 5)
            while !condition() && MonotonicClock.now() < deadline { loop.runOnce(maxWait: 0.02) }
        }
        try decks.install(incoming("first", version: 1, title: "Erste"))
        drive { received.count == 1 }
        #expect(received.map(\.id) == ["first"])
        try decks.install(incoming("second", version: 2, title: "Zweite"))
        drive { received.count == 2 }
        #expect(received.map(\.id) == ["first", "second"])
        // Back to a version on disk (a rollback): reloads too.
        try decks.activate(try #require(decks.versions().first { $0.deckID == "first" }).sha256)
        drive { received.count == 3 }
        #expect(received.map(\.id) == ["first", "second", "first"])
        #expect(received.last?.cards.first?.imagePath.map { FileIO.exists($0) } == true)
    }
}
