import Foundation
import Testing

@testable import CardModel

/// Real touchscreen recordings (`Tests/Fixtures/touch`, see its PROVENANCE.md)
/// replayed through the gesture model. A minimal reader: single-slot protocol-B files only
/// (these two never send ABS_MT_SLOT); the app's evdev layer has the full one.
@Suite struct RecordingTests {
    static func recording(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        // …/Tests/CardModelTests/RecordingTests.swift → …/Tests/Fixtures/touch
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/touch/" + name)
        let text = try? String(contentsOf: url, encoding: .utf8)
        return try #require(text, "recording \(url.path) not found", sourceLocation: sourceLocation)
    }

    /// Touch frames from an evemu recording of a 1 px = 1 pt panel.
    static func frames(_ text: String) -> [TouchFrame] {
        var out: [TouchFrame] = []
        var id: Int?
        var pendingID: Int?
        var x = 0.0
        var y = 0.0
        var began = false
        var lifted = false
        for line in text.split(separator: "\n") where line.hasPrefix("E: ") {
            let f = line.dropFirst(3).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard f.count >= 4, let sec = Double(f[0]), let type = Int(f[1], radix: 16),
                let code = Int(f[2], radix: 16), let value = Int(f[3])
            else { continue }
            switch (type, code) {
            case (3, 0x39):
                if value < 0 { lifted = true } else { pendingID = value }
            case (3, 0x35): x = Double(value)
            case (3, 0x36): y = Double(value)
            case (0, 0):
                let time = Instant.seconds(sec)
                if lifted, let current = id {
                    out.append(
                        TouchFrame(
                            time: time,
                            contacts: [TouchContact(id: current, position: Point(x: x, y: y), phase: .ended)]))
                    id = nil
                } else if let p = pendingID, id == nil {
                    id = p
                    began = true
                }
                if let current = id {
                    let phase: TouchPhase = began ? .began : .moved
                    out.append(
                        TouchFrame(
                            time: time, contacts: [TouchContact(id: current, position: Point(x: x, y: y), phase: phase)]
                        ))
                }
                began = false
                lifted = false
                pendingID = nil
            default: break
            }
        }
        return out
    }

    @Test func fastTapsAreNineTaps() throws {
        let frames = Self.frames(try Self.recording("atmel-mxt-800x480-one-finger-fast-taps.evemu"))
        var tracker = PrimaryGestureTracker(metrics: panel7)
        let summaries = frames.compactMap { tracker.handle($0) }
        #expect(summaries.count == 9)
        #expect(summaries.allSatisfy { $0.kind == .tap && $0.dismiss == nil })
    }

    @Test func dragUpAndDownScrollsTheListAndDismissesNothing() throws {
        let frames = Self.frames(try Self.recording("atmel-mxt-800x480-one-finger-drag-up-down.evemu"))
        var tracker = PrimaryGestureTracker(metrics: panel7)
        let summaries = frames.compactMap { tracker.handle($0) }
        #expect(summaries.map(\.kind) == [.drag])
        #expect(summaries.first?.dismiss == nil)

        var stack = StackDeck(cards: sampleCards(3), metrics: panel7)
        var list = ListDeck(cards: sampleCards(30), metrics: panel7, randomSeed: 1)
        var maxOffset = 0.0
        for f in frames {
            stack.handle(f)
            list.handle(f)
            maxOffset = max(maxOffset, list.scrollOffset(at: f.time))
        }
        #expect(stack.takeDecisions().isEmpty)
        #expect(list.takeDecisions().isEmpty, "a vertical drag neither opens nor deletes")
        #expect(maxOffset > 150, "the list scrolled with the finger (\(maxOffset) pt)")
    }
}
