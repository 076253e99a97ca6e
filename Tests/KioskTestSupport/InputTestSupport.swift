import CEvdev
import CardModel
import Glibc
import Testing

@testable import KioskInput

/// The real touchscreen recordings the tests replay: `Tests/Fixtures/touch` in the checkout (their
/// sources and licences in its PROVENANCE.md).
package enum TouchTestData {
    package static let directory = DeckFixtures.fixtures + "/touch"

    /// The directory, or a test failure that says where it was looked for.
    package static func requireDirectory(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            access(directory + "/PROVENANCE.md", R_OK) == 0, "touch recordings not found in \(directory)",
            sourceLocation: sourceLocation)
        return directory
    }

    /// Every `.evemu` file name in the directory, sorted.
    package static var allFiles: [String] {
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

    package static func load(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> EvemuRecording
    {
        let dir = try requireDirectory(sourceLocation: sourceLocation)
        return try EvemuRecording(contentsOf: dir + "/" + name)
    }

    package static func replay(
        _ name: String, options: TouchReplayOptions = TouchReplayOptions(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> TouchReplay {
        try TouchReplay(load(name, sourceLocation: sourceLocation), options: options)
    }
}

/// One contact's life as frames reported it.
package struct ContactHistory {
    package var id: Int
    package var phases: [TouchPhase] = []
    package var positions: [Point] = []
    package var times: [Instant] = []

    package var start: Point { positions.first! }
    package var end: Point { positions.last! }
    package var duration: Double { times.last!.seconds(since: times.first!) }
    package var maxDistanceFromStart: Double { positions.map { ($0 - start).length }.max() ?? 0 }
    package var translation: Point { end - start }

    /// A short touch that barely moves.
    package var isTap: Bool { duration < 0.5 && maxDistanceFromStart < 16 }

    package static func collect(_ frames: [TouchFrame]) -> [ContactHistory] {
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
package func maxConcurrentContacts(_ frames: [TouchFrame]) -> Int {
    frames.map { f in f.contacts.filter { $0.phase == .began || $0.phase == .moved }.count }.max() ?? 0
}

/// Checks the `TouchFrame` contract on a whole sequence: each contact begins once, then moves,
/// then ends or is cancelled once and never reappears; a frame lists a contact at most once;
/// times never go backwards; every position is on the logical screen.
package func expectWellFormed(
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

/// The hand-written evemu files in `Tests/Fixtures` (no public recording contains SYN_DROPPED,
/// palms or keyboards), and the decoder's two test devices.
package enum InputFixtures {
    package static let directory = DeckFixtures.fixtures

    /// 0…1000 on both axes.
    package static let axis = AbsInfo(minimum: 0, maximum: 1000)
    package static let slotted = TouchProfile(
        touchProtocol: .slotted(slots: 5), xCode: EvdevCode.absMTPositionX, yCode: EvdevCode.absMTPositionY, x: axis,
        y: axis, hasTouchButton: true)
    package static let anonymous = TouchProfile(
        touchProtocol: .anonymous, xCode: EvdevCode.absMTPositionX, yCode: EvdevCode.absMTPositionY, x: axis,
        y: axis, hasTouchButton: true)

    package static func replay(_ name: String) throws -> TouchReplay {
        try TouchReplay(try EvemuRecording(contentsOf: directory + "/" + name))
    }
}

/// Builds event streams for the decoder, one frame at a time.
package struct EventScript {
    package var events: [InputEvent] = []
    package var time = Instant.seconds(1)

    package init() {}

    package mutating func abs(_ code: Int32, _ value: Int32) {
        events.append(InputEvent(time: time, EV_ABS, code, value))
    }
    package mutating func key(_ code: Int32, _ value: Int32) {
        events.append(InputEvent(time: time, EV_KEY, code, value))
    }
    package mutating func mtReport() { events.append(InputEvent(time: time, EV_SYN, SYN_MT_REPORT, 0)) }
    package mutating func dropped() { events.append(InputEvent(time: time, EV_SYN, SYN_DROPPED, 0)) }
    package mutating func report() {
        events.append(InputEvent(time: time, EV_SYN, SYN_REPORT, 0))
        time = time.advanced(bySeconds: 0.01)
    }

    package func decode(_ decoder: inout TouchDecoder) -> [DeviceTouchFrame] {
        events.compactMap { decoder.process($0) }
    }
}
