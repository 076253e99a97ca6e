import Testing

@testable import CardModel

/// Scripted touch input for tests: fingers go down, move along paths at a panel's report rate,
/// wait and lift; the script records the `TouchFrame`s a touchscreen would deliver.
struct TouchScript {
    private(set) var frames: [TouchFrame] = []
    /// Frames before this index were already played.
    private var played = 0
    /// The script's clock.
    private(set) var now: Instant
    private var down: [Int: Point] = [:]

    init(at start: Instant = .seconds(1)) { now = start }

    private mutating func emit(_ changed: [TouchContact]) {
        var contacts = changed
        for (id, p) in down.sorted(by: { $0.key < $1.key }) where !changed.contains(where: { $0.id == id }) {
            contacts.append(TouchContact(id: id, position: p, phase: .moved))
        }
        frames.append(TouchFrame(time: now, contacts: contacts))
    }

    mutating func down(_ p: Point, id: Int = 1) {
        down[id] = p
        emit([TouchContact(id: id, position: p, phase: .began)])
    }

    /// Moves finger `id` to `p` in a straight line over `ms`, one frame every 1/`hz` s.
    mutating func move(to p: Point, over ms: Double, hz: Double = 60, id: Int = 1) {
        let from = down[id] ?? p
        path(over: ms, hz: hz, id: id) { f in from + (p - from) * f }
    }

    /// Moves finger `id` along `curve(f)` for f in (0, 1], reporting at `hz` for `ms`.
    mutating func path(over ms: Double, hz: Double = 60, id: Int = 1, _ curve: (Double) -> Point) {
        let start = now
        let steps = max(1, Int((ms / 1000 * hz).rounded()))
        for k in 1...steps {
            let f = Double(k) / Double(steps)
            now = start.advanced(bySeconds: ms / 1000 * f)
            down[id] = curve(f)
            emit([TouchContact(id: id, position: curve(f), phase: .moved)])
        }
    }

    /// Lets time pass with no report (a resting finger sends nothing).
    mutating func wait(_ ms: Double) { now = now.advanced(bySeconds: ms / 1000) }

    /// Lifts finger `id` one report later (`afterMs`), at its last position.
    mutating func up(id: Int = 1, afterMs: Double = 0) {
        wait(afterMs)
        guard let p = down.removeValue(forKey: id) else { return }
        emit([TouchContact(id: id, position: p, phase: .ended)])
    }

    /// The device lost finger `id` (e.g. unplugged).
    mutating func cancel(id: Int = 1) {
        guard let p = down.removeValue(forKey: id) else { return }
        emit([TouchContact(id: id, position: p, phase: .cancelled)])
    }

    /// The frames not yet played, marking them played.
    mutating func takeFrames() -> ArraySlice<TouchFrame> {
        defer { played = frames.count }
        return frames[played...]
    }

    /// A complete drag: down at `from`, move by `by` over `ms`, hold still `holdMs`, lift.
    mutating func drag(from: Point, by d: Point, over ms: Double, holdMs: Double = 100, hz: Double = 60) {
        down(from)
        move(to: from + d, over: ms, hz: hz)
        wait(holdMs)
        up(afterMs: 1000 / hz)
    }
}

extension CardDeck {
    /// Feeds the frames of `script` not played yet (in time order).
    mutating func play(_ script: inout TouchScript) {
        for f in script.takeFrames() { handle(f) }
    }

    /// Feeds `script` and draws a scene every 1/`hz` s from `start` to `end`, interleaved in time
    /// order as the app would; returns the scenes with their times.
    mutating func play(_ script: inout TouchScript, drawingAt hz: Int, from start: Instant, until end: Instant)
        -> [(time: Instant, scene: Scene)]
    {
        var out: [(Instant, Scene)] = []
        var frames = script.takeFrames()
        var k: Int64 = 0
        while true {
            // Integer nanoseconds, so frames of different rates meet exactly at common times.
            let t = Instant(nanoseconds: start.nanoseconds + k * 1_000_000_000 / Int64(hz))
            if t > end { break }
            while let f = frames.first, f.time <= t {
                handle(f)
                frames = frames.dropFirst()
            }
            out.append((t, scene(at: t)))
            k += 1
        }
        for f in frames { handle(f) }
        return out
    }
}

extension Scene {
    func element(_ id: String) -> SceneElement? { elements.first { $0.id == id } }
}

func expectClose(
    _ a: Double, _ b: Double, within tolerance: Double = 1e-9, _ what: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(abs(a - b) <= tolerance, "\(what) \(a) vs \(b) (±\(tolerance))", sourceLocation: sourceLocation)
}

func expectClose(
    _ a: Point, _ b: Point, within tolerance: Double = 1e-9, _ what: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect((a - b).length <= tolerance, "\(what) \(a) vs \(b) (±\(tolerance))", sourceLocation: sourceLocation)
}

/// A 7" 800×480 panel at 1 pt/px: 5.25 pt per mm (slop 10.5 pt).
let panel7 = ScreenMetrics(size: Size(width: 800, height: 480), pointsPerMillimetre: 5.25)

func sampleCards(_ n: Int) -> [Card] {
    (0..<n).map { Card(id: "c\($0)", title: "Card \($0)", color: Theme.allCases[$0 % 16].mainColor) }
}

/// A stack of `n` sample cards on `panel7` with the Nein / Ja buttons (the access tests' deck).
func buttonStack(_ n: Int = 4) -> StackDeck {
    StackDeck(
        cards: sampleCards(n), metrics: panel7,
        options: StackOptions(showButtons: true, leftLabel: "Nein", rightLabel: "Ja"))
}

let degrees = Double.pi / 180
