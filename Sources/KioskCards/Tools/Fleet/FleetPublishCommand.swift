import KioskDeckFiles
import KioskFleet
import KioskSystem

/// `KioskCards fleet publish DECK.json --kiosk ID|--group G --postgres URL`, and
/// `fleet publish --rollback --kiosk ID|--group G`: decks to kiosks, server side.
enum FleetPublishCommand {
    struct Options: Equatable {
        var url = ""
        var deckPath: String?
        var kiosk: String?
        var group: String?
        var rollback = false
        var credentials: String?
    }

    static let table = OptionTable<Options>(
        command: "fleet publish", summary: "check a deck, store it and its images by sha256, assign it to kiosks",
        usage: [
            "fleet publish DECK.json (--kiosk ID | --group G) --postgres URL",
            "fleet publish --rollback (--kiosk ID | --group G) --postgres URL",
        ],
        details: """
            Runs the check-deck checks first: an invalid deck is refused with its problems (exit 2).
            Stores the deck file and every image it uses content-addressed (sha256, checked by
            the server) and assigns the deck to the kiosk or every kiosk of the group; every
            assignment is kept, and --rollback assigns each kiosk the deck it had before.
            Each kiosk's sync worker downloads its assigned deck, verifies every sha256 and the
            deck checks, and switches to it (docs/FLEET.md). One id@version is one content: a
            deck file or image changed under a published id@version is refused; raise "version".
            Exit status: 0 done, 1 server error, 2 usage, an invalid deck or changed content
            under a published version.
            """,
        options: [
            FleetCommand.postgresOption(\.url),
            FleetCommand.credentialsOption(\.credentials),
            CommandOption(name: "kiosk", value: "ID", help: "assign to this kiosk") { o, v in
                guard FleetAdmin.validKioskID(v) else { return "a kiosk id" }
                o.kiosk = v
                return nil
            },
            CommandOption.text(
                name: "group", value: "G", help: "assign to every kiosk of this group", expected: "a group name"
            ) { $0.group = $1 },
            .flag("rollback", help: "assign the deck each kiosk had before (no DECK.json)") { $0.rollback = true },
        ],
        positional: CommandPositional(name: "DECK.json", help: "the deck file", count: .optional) { o, v in
            o.deckPath = v
            return nil
        },
        validate: { o in
            if let problem = FleetCommand.requirePostgres(o.url) { return problem }
            if (o.kiosk == nil) == (o.group == nil) { return "give one of --kiosk ID or --group G" }
            if o.rollback && o.deckPath != nil { return "--rollback takes no DECK.json" }
            if !o.rollback && o.deckPath == nil { return "missing DECK.json (or --rollback)" }
            return nil
        })

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        let target: FleetDecks.Target = options.kiosk.map { .kiosk($0) } ?? .group(options.group ?? "")
        var deckBytes: [UInt8] = []
        var images: [FleetDecks.Image] = []
        var deck: DeckFile?
        if let path = options.deckPath {
            let outcome = CheckDeckCommand.evaluate(arguments: [path])
            guard outcome.status == 0 else {
                for line in outcome.problems { Log.raw(line) }
                Log.error("fleet publish: \(path) is not a valid deck; nothing was published")
                return 2
            }
            do {
                let loaded = try DeckLoader.load(path: path).get()
                deckBytes = try FileIO.readAll(path, limit: DeckLoader.maxDeckBytes)
                let directory = PathName.directory(of: PathName.normalize(path))
                for card in loaded.cards {
                    guard let image = card.imagePath, !images.contains(where: { $0.path == relative(image, directory) })
                    else { continue }
                    images.append(
                        FleetDecks.Image(
                            path: relative(image, directory), bytes: try FileIO.readAll(image, limit: 64 << 20)))
                }
                deck = loaded
            } catch {
                Log.error("fleet publish: \(error)")
                return 2
            }
        }
        guard let db = FleetCommand.connect(options.url, credentials: options.credentials, command: "publish") else {
            return 1
        }
        do throws(FleetError) {
            let made =
                if let deck {
                    try FleetDecks.publish(
                        deck: deckBytes, deckID: deck.id, version: deck.version, images: images, to: target, on: db)
                } else {
                    try FleetDecks.rollback(target, on: db)
                }
            for a in made {
                print(
                    "\(a.kioskID): \(a.deckID)@\(a.version) sha256 \(a.deckSHA256)\(options.rollback ? " (rollback)" : "")"
                )
            }
            if deck != nil {
                Log.info("fleet publish: \(images.count) image\(images.count == 1 ? "" : "s") stored by sha256")
            }
            return 0
        } catch  where error.sqlState == FleetDecks.versionConflict {
            Log.error("fleet publish: \(Escape.terminal(error.message)); nothing was published")
            return 2
        } catch {
            Log.error("fleet publish: \(error.operatorDescription)")
            return 1
        }
    }

    /// `path` relative to the deck's directory (images outside it keep their base name).
    static func relative(_ path: String, _ directory: String) -> String {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : PathName.baseName(of: path)
    }
}
