import CardModel
import Glibc
import KioskDeckFiles
import KioskStore
import KioskSystem

/// Seeded visitors on a simulated clock, driving the kiosk's own rules (`Kiosk`, as the app and
/// `render` do) with touch frames, on-screen button taps and keys.
///
/// Everything the model sees is a parameter: time is `now`, randomness is one `SplitMix64`, so
/// one seed gives one sequence of decisions. The kinds of visitor:
/// - ordinary (most): think for a log-normal while (median ≈ 2.4 s), then swipe (or tap a
///   button, or press a key); each card has its own chance of a right swipe; now and then a
///   too-short drag springs back and is tried again, a decision is undone and redone, or the
///   visitor walks away mid-deck (the idle timeout then ends the visit);
/// - button-mashers (about 5 %): hit ✓ (or ✗) every 120–280 ms through the whole deck.
///
/// Each visitor also picks one of the deck's languages on its language key (its own about 60 %,
/// the others sharing the rest) and turns high contrast on by keypad in about 8 % of visits;
/// these come from a second generator, so they leave the first one's sequence of decisions as it was.
struct VisitorSimulation {
    struct Summary: Hashable {
        var visitors = 0
        var visits = 0
        var decisions = 0
        var mashers = 0
        var endWallMs: Int64 = 0
    }

    let deckFile: DeckFile
    let options: SimulateCommand.Options
    private var random: SplitMix64
    /// The visits' language and accessibility mode (see above).
    private var visitRandom: SplitMix64
    private var kiosk: Kiosk
    private var recorder: VisitRecorder
    /// The simulated monotonic clock (starts at 1000 s, like a kiosk some minutes after boot).
    private var now = Instant.seconds(1000)
    private let origin = Instant.seconds(1000)
    private var nextContactID = 1
    private var summary = Summary()
    /// Each card's chance of a right swipe, drawn once from the seed.
    private var appeal: [String: Double] = [:]
    private var emit: (StoreItem, Double) -> Void = { _, _ in }
    /// Touch frames are 120 Hz, like a good panel.
    static let frameInterval = 1.0 / 120

    init(deck file: DeckFile, options: SimulateCommand.Options) {
        deckFile = file
        self.options = options
        random = SplitMix64(seed: options.seed ^ 0x5EED_0F_715170)
        visitRandom = SplitMix64(seed: options.seed ^ 0x1A96_0A6E_0F_715170)
        let metrics = ScreenMetrics(size: Size(width: 800, height: 480), pointsPerMillimetre: 800 / 154.0)
        var counter = 0
        let prefix = "sim-\(options.seed)-\(options.kioskID)-"
        kiosk = Kiosk(
            deck: file.kioskDeck(), metrics: metrics, settings: Kiosk.Settings(showsButtons: true), seed: options.seed,
            at: .seconds(1000),
            newSessionID: {
                counter += 1
                return prefix + String(counter)
            })
        recorder = VisitRecorder(
            kioskID: options.kioskID, deckID: file.id, deckVersion: file.version, deckCardCount: file.cards.count)
        for card in file.cards { appeal[card.id] = 0.15 + 0.75 * uniform() }
    }

    private var stack: StackDeck? { kiosk.deck as? StackDeck }
    private var remainingCards: [Card] { stack?.remainingCards ?? [] }

    // MARK: Randomness

    private mutating func uniform() -> Double { Self.unit(&random) }

    /// A uniform draw in [0, 1) from `generator`.
    private static func unit(_ generator: inout SplitMix64) -> Double {
        Double(generator.next() >> 11) / Double(1 << 53)
    }

    /// A standard normal (Box–Muller).
    private mutating func normal() -> Double {
        let u = max(uniform(), 1e-12)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * uniform())
    }

    private mutating func chance(_ p: Double) -> Bool { uniform() < p }

    /// The visitor's language (the deck's own about 60 %) on its key, and high contrast by
    /// keypad in about 8 % of visits.
    private mutating func pickLanguageAndMode() {
        let u = Self.unit(&visitRandom)
        let others = deckFile.languages.filter { $0 != deckFile.language }
        if u >= 0.6 && !others.isEmpty {
            feed(.language(others[min(others.count - 1, Int((u - 0.6) / 0.4 * Double(others.count)))]))
        }
        if Self.unit(&visitRandom) < 0.08 {
            for key: AccessKey in [.accessibility, .down, .enter, .escape] {
                now = now.advanced(bySeconds: 0.4)
                feed(.key(key))
            }
        }
    }

    // MARK: Clock

    private func wallMs(_ t: Instant) -> Int64 { options.startMs + (t.nanoseconds - origin.nanoseconds) / 1_000_000 }

    private var simulatedSeconds: Double { now.seconds(since: origin) }

    /// Moves the clock to `t`, letting the session's timers (countdown, idle reset) fire on the way.
    private mutating func advance(to t: Instant) {
        for _ in 0..<1000 {
            guard let deadline = kiosk.session.nextDeadline, deadline <= t else { break }
            now = max(now, deadline)
            feed(.tick)
        }
        now = max(now, t)
    }

    /// Gives `input` to the kiosk's rules at the simulated now; stores what they decide.
    private mutating func feed(_ input: KioskInput) {
        for effect in kiosk.handle(input, at: now) {
            switch effect {
            case .visit(let event):
                if case .started = event { summary.visits += 1 }
                let (start, zero) = (options.startMs, origin.nanoseconds)
                for item in recorder.record(event, wallMs: { start + ($0.nanoseconds - zero) / 1_000_000 }) {
                    emit(item, simulatedSeconds)
                }
            case .decision(let k):
                recorder.note(k.decision)
                let record = DecisionRecord(k, kioskID: options.kioskID, wallNow: wallMs(now), monotonicNow: now)
                summary.decisions += 1
                emit(.decision(record), simulatedSeconds)
            default: break
            }
        }
    }

    // MARK: Input

    private mutating func send(_ contacts: [TouchContact]) { feed(.touch(TouchFrame(time: now, contacts: contacts))) }

    /// A drag from the card's centre by `dx` over `duration` seconds, in 120 Hz frames.
    private mutating func swipe(dx: Double, duration: Double) {
        let id = nextContactID
        nextContactID += 1
        let start = stack?.layout.cardFrame.center ?? .zero
        let dy = normal() * 12
        send([TouchContact(id: id, position: start, phase: .began)])
        let steps = max(2, Int((duration / Self.frameInterval).rounded()))
        for k in 1...steps {
            now = now.advanced(bySeconds: Self.frameInterval)
            // Ease-out: fast at first, like a flick.
            let f = 1 - pow(1 - Double(k) / Double(steps), 2)
            let p = Point(x: start.x + dx * f, y: start.y + dy * f)
            send([TouchContact(id: id, position: p, phase: k == steps ? .ended : .moved)])
        }
    }

    /// A tap on an on-screen button (about 70 ms down).
    private mutating func tap(_ role: ButtonRole) {
        guard let frame = stack?.layout.frame(of: role) else { return }
        let id = nextContactID
        nextContactID += 1
        let p = Point(x: frame.center.x + normal() * 4, y: frame.center.y + normal() * 4)
        send([TouchContact(id: id, position: p, phase: .began)])
        now = now.advanced(bySeconds: 0.07)
        send([TouchContact(id: id, position: p, phase: .ended)])
    }

    private mutating func key(_ key: AccessKey) { feed(.key(key)) }

    // MARK: Visitors

    /// Visitors per hour at `wall` (UTC): none outside 08–20, a noon peak, busier weekends.
    static func arrivalsPerHour(wallMs: Int64) -> Double {
        let seconds = wallMs / 1000
        let hour = Int((seconds % 86_400) / 3600)
        let weekday = Int(((seconds / 86_400) + 3) % 7)  // 0 = Monday (1970-01-01 was a Thursday)
        guard hour >= 8 && hour < 20 else { return 0 }
        let noon = exp(-pow(Double(hour) + 0.5 - 13, 2) / 8)
        let week = weekday >= 5 ? 1.6 : (weekday == 0 ? 0.7 : 1)
        return (1.5 + 4.5 * noon) * week
    }

    /// The next arrival after the clock: thinning of a Poisson process with the hourly rate.
    private mutating func nextArrival() -> Instant {
        let maxRate = 6.0 * 1.6
        var t = now
        for _ in 0..<100_000 {
            t = t.advanced(bySeconds: -log(max(uniform(), 1e-12)) / maxRate * 3600)
            if uniform() * maxRate < Self.arrivalsPerHour(wallMs: wallMs(t)) { return t }
        }
        return t
    }

    /// One visitor: arrives, works through (some of) the deck, leaves.
    private mutating func visitor() {
        summary.visitors += 1
        advance(to: nextArrival())
        pickLanguageAndMode()
        if chance(0.05) {
            masher()
            return
        }
        // Most do as the attract screen says and tap to start; the first card's time to decide
        // then counts from that tap. The others decide the first card with their first touch:
        // it was on show since the attract screen appeared, and counts from there.
        if chance(0.8) {
            let id = nextContactID
            nextContactID += 1
            let p = stack?.layout.cardFrame.center ?? .zero
            send([TouchContact(id: id, position: p, phase: .began)])
            now = now.advanced(bySeconds: 0.09)
            send([TouchContact(id: id, position: p, phase: .ended)])
        }
        let patience = chance(0.25) ? Int(uniform() * Double(deckFile.cards.count)) : Int.max
        var decided = 0
        var retries = 0
        while let top = remainingCards.first, retries < 20 {
            if decided >= patience { return }  // walks away; the idle timeout ends the visit
            let think = exp(log(2.2) + 0.6 * normal()) * (chance(0.04) ? 0.08 : 1)
            advance(to: now.advanced(bySeconds: think))
            let right = chance(appeal[top.id] ?? 0.5)
            let before = remainingCards.count
            let how = uniform()
            if how < 0.84 {
                let short = chance(0.06)
                let distance = short ? 30 + uniform() * 40 : 170 + uniform() * 170
                swipe(dx: right ? distance : -distance, duration: 0.12 + uniform() * 0.18)
            } else if how < 0.95 {
                tap(right ? .dismissRight : .dismissLeft)
            } else {
                key(right ? .right : .left)
            }
            if remainingCards.count == before {
                retries += 1  // sprang back: try again
                continue
            }
            decided += 1
            if chance(0.05) {
                advance(to: now.advanced(bySeconds: 0.6 + uniform()))
                if chance(0.7) { tap(.undo) } else { key(.backspace) }
                decided -= 1
            }
        }
    }

    /// Hits one button as fast as a hand can, through the whole deck.
    private mutating func masher() {
        summary.mashers += 1
        let role: ButtonRole = chance(0.7) ? .dismissRight : .dismissLeft
        var presses = 0
        while !remainingCards.isEmpty && presses < 200 {
            advance(to: now.advanced(bySeconds: 0.05 + uniform() * 0.16))
            tap(role)
            presses += 1
        }
    }

    /// Runs every visitor, then lets the last visit time out; `emit` gets each item with the
    /// simulated seconds since the start.
    mutating func run(_ emit: @escaping (StoreItem, Double) -> Void) -> Summary {
        self.emit = emit
        feed(.tick)
        for _ in 0..<options.visitors { visitor() }
        advance(to: now.advanced(bySeconds: kiosk.session.policy.idleTimeout + 1))
        summary.endWallMs = wallMs(now)
        self.emit = { _, _ in }
        return summary
    }
}
