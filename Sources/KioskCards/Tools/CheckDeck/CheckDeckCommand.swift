import CardModel
import KioskDeckFiles
import KioskRender
import KioskSystem

/// `KioskCards check-deck FILE…`: validates deck files and prints every problem.
enum CheckDeckCommand {
    /// The files to check and the kiosk's configured language.
    struct Options {
        var files: [String] = []
        var language: String?
        /// The moment a deck's schedule is judged at (Unix ms); nil: now.
        var atMs: Int64?
    }

    static let table = OptionTable<Options>(
        command: "check-deck", summary: "check deck files; print every problem with its line and field",
        details: """
            Checks deck files (format: schema/deck.schema.json) and prints every problem as
            FILE:LINE:COLUMN: error: FIELD: message. Exit status 0 when all are valid, 2 otherwise.
            A valid stack deck is also laid out as the kiosk draws it: a title longer than three
            lines or a subtitle longer than the card has room for is reported as
            FILE:LINE:COLUMN: warning: FIELD: … (the card is 320×440 points on every panel, so
            what is cut on the smallest panel is cut on all of them), and so is a text without
            a translation into a language the deck offers (docs/LANGUAGES.md), and with
            --language a deck that does not offer the kiosk's language; warnings keep status 0.
            A deck with a schedule gets a line saying whether it is open now (or at --at TIME)
            and when that changes, in the system's time zone (TZ, else /etc/localtime) and UTC.
            """,
        options: [
            CommandOption(
                name: "language", value: "TAG",
                help: "the kiosk's `language` (kiosk.conf): warn when a deck does not offer it"
            ) { o, v in
                guard DeckFile.isLanguageTag(v) else { return DeckFile.languageTagExpected }
                o.language = v
                return nil
            },
            CommandOption(
                name: "at", value: "TIME",
                help: "judge a deck's schedule at TIME instead of now: \(WallClock.timeForms)"
            ) { o, v in
                guard let ms = WallClock.parse(v, now: WallClock.nowMilliseconds()) else {
                    return "a time: \(WallClock.timeForms)"
                }
                o.atMs = ms
                return nil
            },
        ],
        positional: CommandPositional(name: "FILE", help: "a deck file (JSON)", count: .oneOrMore) { o, v in
            o.files.append(v)
            return nil
        })

    /// What `run` prints: summaries for stdout, problems for stderr.
    struct Outcome: Equatable {
        var status: Int32
        var summaries: [String]
        var problems: [String]
        /// Texts the kiosk would cut, with file, line and field.
        var warnings: [String] = []
    }

    /// Checks `arguments`' files without printing (tests call this).
    static func evaluate(arguments: [String]) -> Outcome {
        let options: Options
        switch table.parse(arguments, from: Options()) {
        case .success(let o): options = o
        case .help: return Outcome(status: 0, summaries: [table.helpText], problems: [])
        case .version: return Outcome(status: 0, summaries: ["KioskCards \(kioskCardsVersion)"], problems: [])
        case .failure(let e): return Outcome(status: 2, summaries: [], problems: ["\(e)"])
        }
        var outcome = Outcome(status: 0, summaries: [], problems: [])
        for file in options.files {
            switch DeckLoader.load(path: file) {
            case .success(let deck):
                let unfit = codesThatDoNotFit(deck, file: file)
                guard unfit.isEmpty else {
                    outcome.status = 2
                    outcome.problems += unfit
                    outcome.problems.append("\(file): \(unfit.count) problem\(unfit.count == 1 ? "" : "s")")
                    continue
                }
                outcome.summaries.append("\(file): valid — \(deck.summary)")
                if let schedule = deck.schedule {
                    outcome.summaries.append(
                        "\(file): "
                            + scheduleLine(schedule, atSeconds: (options.atMs ?? WallClock.nowMilliseconds()) / 1000))
                }
                outcome.warnings += deck.warnings.map { $0.formatted(file: file) }
                outcome.warnings += cutTexts(deck, file: file)
                let kioskDeck = deck.kioskDeck()
                let choice = LanguageChoice(
                    offered: kioskDeck.languages, deckLanguage: kioskDeck.language, configured: options.language)
                if let message = choice.configuredNotOfferedMessage(deck: "this deck") {
                    outcome.warnings.append("\(file): warning: language: " + message)
                }
            case .failure(let problems):
                outcome.status = 2
                outcome.problems += problems.problems.map { $0.formatted(file: file) }
                let n = problems.problems.count
                outcome.problems.append("\(file): \(n) problem\(n == 1 ? "" : "s"); the deck was not accepted")
            }
        }
        return outcome
    }

    /// Where `schedule` stands at Unix time `t`, on the system's local clock: "schedule at
    /// 2026-03-29 03:00 CEST (2026-03-29T01:00:00.000Z): open (window 2); closes 2026-03-29
    /// 08:00 CEST (…Z)", with the moment the state changes as the app takes it (`ScheduleClock`).
    static func scheduleLine(_ schedule: Schedule, atSeconds t: Int64) -> String {
        func both(_ s: Int64) -> String {
            "\(LocalTime.describe(epochSeconds: s)) (\(WallClock.iso8601(milliseconds: s * 1000)))"
        }
        guard let civil = LocalTime.civil(epochSeconds: t) else {
            return "schedule: the local time of \(WallClock.iso8601(milliseconds: t * 1000)) is unknown; check TZ"
        }
        let state = schedule.state(at: civil)
        let stateText: String
        switch state {
        case .open(let window): stateText = "open (window \(window))"
        case .closed: stateText = "closed"
        }
        let change: String
        if let next = schedule.nextChange(after: civil), let at = LocalTime.epochSeconds(next, notBefore: t) {
            change = (state == .closed ? "opens " : "closes ") + both(at)
        } else {
            change = "no change in the coming 8 days"
        }
        return "schedule at \(both(t)): \(stateText); \(change)"
    }

    /// Errors for every link whose QR code, at 25 mm with whole-pixel modules, would not fit
    /// on the card on some panel preset (with and without the buttons beside the stack).
    static func codesThatDoNotFit(_ deck: DeckFile, file: String) -> [String] {
        var links = deck.cards.compactMap { card in card.link.map { ("card \"\(card.id)\"", $0) } }
        if let l = deck.emptyLink { links.append(("the end state (\"emptyLink\")", l)) }
        var out: [String] = []
        for (owner, link) in links {
            guard let code = QRCode(link) else {
                do { _ = try QRencodeFunctions.shared.get() } catch {
                    out.append("\(file): error: \(owner): its link's QR code cannot be drawn: \(error)")
                    continue
                }
                out.append("\(file): error: \(owner): its link cannot be encoded as a QR code; shorten it")
                continue
            }
            let tight = PanelPreset.all.first { preset in
                let px = preset.logicalPixels
                let g = PanelGeometry(
                    pixelWidth: px.width, pixelHeight: px.height, millimetres: preset.logicalMillimetres)
                return [false, true].contains { buttons in
                    let layout = StackLayout(
                        screen: g.metrics.size, showButtons: buttons, pointsPerMillimetre: g.metrics.pointsPerMillimetre
                    )
                    return !LinkCode.fits(
                        card: StackLayout.cardSize, side: layout.linkCodeSide, modules: code.sideWithQuietZone,
                        pixelsPerPoint: g.scale * layout.fit, padding: CardTextFit.padding)
                }
            }
            if let tight {
                out.append(
                    "\(file): error: \(owner): its link's QR code (\(code.size) modules) does not fit on the card at"
                        + " \(Int(LinkCode.minimumMillimetres)) mm on panel '\(tight.name)'; shorten the link")
            }
        }
        return out
    }

    /// Warnings for every stack card whose title or subtitle `CardTextFit` would cut, at the
    /// field's position in the file.
    static func cutTexts(_ deck: DeckFile, file: String) -> [String] {
        guard deck.layout == .stack else { return [] }
        var nodes: [JSONNode] = []
        if let bytes = try? FileIO.readAll(file, limit: DeckLoader.maxDeckBytes),
            let root = try? JSONReader.parse(bytes)
        {
            nodes = root["cards"]?.elements ?? []
        }
        var out: [String] = []
        for (i, card) in deck.cards.enumerated() {
            let fit = CardTextFit.measure(card, size: StackLayout.cardSize)
            func warn(_ field: String, _ message: String) {
                let member = i < nodes.count ? nodes[i].members?.first { $0.key == field } : nil
                let place = member.map { "\(file):\($0.value.position.line):\($0.value.position.column)" } ?? file
                out.append("\(place): warning: cards[\(i)].\(field): \(message)")
            }
            if fit.titleIsCut {
                warn(
                    "title",
                    "the title takes more than \(CardTextFit.titleLines) lines and ends in \"…\" on the card; shorten it"
                )
            }
            if fit.subtitleIsCut {
                let room =
                    card.imagePath == nil
                    ? "" : " (the photo takes the card's upper \(Int(CardTextFit.imageShare * 100)) %)"
                warn("subtitle", "the subtitle does not fit on the card\(room) and ends in \"…\"; shorten it")
            }
        }
        return out
    }

    static func run(arguments: [String]) -> Int32 {
        let outcome = evaluate(arguments: arguments)
        for line in outcome.problems { Log.raw(line) }
        for line in outcome.warnings { Log.raw(line) }
        for line in outcome.summaries { print(line) }
        return outcome.status
    }
}
