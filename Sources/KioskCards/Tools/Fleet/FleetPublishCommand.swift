import KioskDeckFiles
import KioskFleet
import KioskSystem

/// `KioskCards fleet publish DECK.json --kiosk ID|--group G --postgres URL`, and
/// `fleet publish --rollback --kiosk ID|--group G`: decks to kiosks, server side; with
/// `--canary` a staged rollout (`FleetRollouts`).
enum FleetPublishCommand {
    struct Options: Equatable {
        var url = ""
        var deckPath: String?
        var kiosk: String?
        var group: String?
        var rollback = false
        var credentials: String?
        var canary: FleetRollouts.Canary?
        var holdSeconds: Int?
    }

    static let table = OptionTable<Options>(
        command: "fleet publish", summary: "check a deck, store it and its images by sha256, assign it to kiosks",
        usage: [
            "fleet publish DECK.json (--kiosk ID | --group G) --postgres URL",
            "fleet publish DECK.json --group G (--canary N | --canary P% | --canary-kiosks ID,…) [--hold 30m] --postgres URL",
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
            A staged rollout (--canary): the deck goes to the canaries first — the first N kiosks
            of the group by id, the first P % (at least one), or the ones named — and to the
            rest of the group after the hold (default \(FleetRollouts.defaultHoldSeconds / 60)m), once every
            canary's app shows it; a canary that refuses the deck stops the rollout at once, one
            silent at the hold's end stops it. 'fleet status' (and the fleet-check timer) promotes;
            'fleet rollout stop|resume G' is the operator's hand on it.
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
            CommandOption(name: "canary", value: "N|P%", help: "a staged rollout: N kiosks or P % of the group first") {
                o, v in
                guard let canary = FleetRollouts.parseCanary(v) else { return "a count (2) or a share (10%)" }
                o.canary = canary
                return nil
            },
            CommandOption(
                name: "canary-kiosks", value: "ID,…", help: "a staged rollout: these kiosks of the group first"
            ) { o, v in
                let ids = v.split(separator: ",").map(String.init)
                guard !ids.isEmpty, ids.allSatisfy(FleetAdmin.validKioskID) else { return "kiosk ids, comma-separated" }
                o.canary = .named(ids)
                return nil
            },
            CommandOption(
                name: "hold", value: "TIME", help: "how long canaries hold before the rest follows (30m, 2h, 1d)"
            ) { o, v in
                guard let seconds = FleetRollouts.parseDuration(v) else { return "a time such as 90s, 30m, 2h or 1d" }
                o.holdSeconds = seconds
                return nil
            },
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
            if o.canary != nil && (o.group == nil || o.rollback) {
                return "--canary and --canary-kiosks stage a publish to a --group (not --kiosk, not --rollback)"
            }
            if o.holdSeconds != nil && o.canary == nil { return "--hold needs --canary N or --canary-kiosks" }
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
                        deck: deckBytes, deckID: deck.id, version: deck.version, images: images, to: target,
                        canary: options.canary,
                        holdSeconds: options.holdSeconds ?? FleetRollouts.defaultHoldSeconds, on: db)
                } else {
                    try FleetDecks.rollback(target, on: db)
                }
            for a in made {
                print(
                    "\(a.kioskID): \(a.deckID)@\(a.version) sha256 \(a.deckSHA256)\(options.rollback ? " (rollback)" : "")"
                )
            }
            if let deck, options.canary != nil, let group = options.group {
                let rollout = try FleetRollouts.current(on: db).first { $0.group == group }
                print(
                    "rollout \(group): \(deck.id)@\(deck.version) to the canaries above; the rest follows after "
                        + (rollout.map { $0.holdUntil } ?? "the hold")
                        + " (fleet status promotes; fleet rollout stop \(group) holds it)")
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
