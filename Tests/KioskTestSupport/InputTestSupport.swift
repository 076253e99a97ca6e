import CardModel
import Glibc
import Testing

@testable import KioskCards
@testable import KioskInput

/// The real touchscreen recordings the tests replay: `Fixtures/touch` in the checkout (their
/// sources and licences in its PROVENANCE.md).
enum TouchTestData {
    static let directory = RenderFixtures.directory + "/touch"

    /// The directory, or a test failure that says where it was looked for.
    static func requireDirectory(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            access(directory + "/PROVENANCE.md", R_OK) == 0, "touch recordings not found in \(directory)",
            sourceLocation: sourceLocation)
        return directory
    }

    /// Every `.evemu` file name in the directory, sorted.
    static var allFiles: [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".evemu") { names.append(name) }
        }
        return names.sorted()
    }

    static func load(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> EvemuRecording {
        let dir = try requireDirectory(sourceLocation: sourceLocation)
        return try EvemuRecording(contentsOf: dir + "/" + name)
    }

    static func replay(
        _ name: String, options: TouchReplayOptions = TouchReplayOptions(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> TouchReplay {
        try TouchReplay(load(name, sourceLocation: sourceLocation), options: options)
    }
}

/// One contact's life as frames reported it.
struct ContactHistory {
    var id: Int
    var phases: [TouchPhase] = []
    var positions: [Point] = []
    var times: [Instant] = []

    var start: Point { positions.first! }
    var end: Point { positions.last! }
    var duration: Double { times.last!.seconds(since: times.first!) }
    var maxDistanceFromStart: Double { positions.map { ($0 - start).length }.max() ?? 0 }
    var translation: Point { end - start }

    /// A short touch that barely moves.
    var isTap: Bool { duration < 0.5 && maxDistanceFromStart < 16 }

    static func collect(_ frames: [TouchFrame]) -> [ContactHistory] {
        var byID: [Int: ContactHistory] = [:]
        var order: [Int] = []
        for frame in frames {
            for c in frame.contacts {
                if byID[c.id] == nil { order.append(c.id) }
                byID[c.id, default: ContactHistory(id: c.id)].phases.append(c.phase)
                byID[c.id]!.positions.append(c.position)
                byID[c.id]!.times.append(frame.time)
            }
        }
        return order.map { byID[$0]! }
    }
}

/// The most contacts down in one frame.
func maxConcurrentContacts(_ frames: [TouchFrame]) -> Int {
    frames.map { f in f.contacts.filter { $0.phase == .began || $0.phase == .moved }.count }.max() ?? 0
}

/// Checks the `TouchFrame` contract on a whole sequence: each contact begins once, then moves,
/// then ends or is cancelled once and never reappears; a frame lists a contact at most once;
/// times never go backwards; every position is on the logical screen.
func expectWellFormed(
    _ frames: [TouchFrame], screen: Size, sourceLocation: SourceLocation = #_sourceLocation
) {
    var state: [Int: TouchPhase] = [:]
    var lastTime: Instant?
    for frame in frames {
        if let lastTime { #expect(frame.time >= lastTime, sourceLocation: sourceLocation) }
        lastTime = frame.time
        let ids = frame.contacts.map(\.id)
        #expect(Set(ids).count == ids.count, "contact listed twice in one frame", sourceLocation: sourceLocation)
        for c in frame.contacts {
            let before = state[c.id]
            switch c.phase {
            case .began:
                #expect(before == nil, "contact \(c.id) began twice", sourceLocation: sourceLocation)
            case .moved, .ended, .cancelled:
                #expect(
                    before == .began || before == .moved,
                    "contact \(c.id) \(c.phase) after \(String(describing: before))",
                    sourceLocation: sourceLocation)
            }
            state[c.id] = c.phase
            #expect(
                c.position.x >= 0 && c.position.x <= screen.width && c.position.y >= 0
                    && c.position.y <= screen.height, "contact \(c.id) off screen at \(c.position)",
                sourceLocation: sourceLocation)
        }
        // A down contact must appear in every frame until it ends.
        let listed = Set(ids)
        for (id, phase) in state where (phase == .began || phase == .moved) && !listed.contains(id) {
            #expect(Bool(false), "contact \(id) is down but missing from a frame", sourceLocation: sourceLocation)
            state[id] = .ended
        }
    }
}
