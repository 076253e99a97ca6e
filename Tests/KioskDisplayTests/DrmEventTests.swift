import CardModel
import Testing

@testable import KioskDisplay

@Suite struct DrmEventTests {
    /// The bytes the kernel writes for one `struct drm_event_vblank` (little-endian, as on
    /// x86 and arm64), built field by field.
    static func vblankBytes(
        type: UInt32, userData: UInt64, sec: UInt32, usec: UInt32, sequence: UInt32, crtc: UInt32
    ) -> [UInt8] {
        var b: [UInt8] = []
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { b.append(contentsOf: $0) } }
        put(type)
        put(UInt32(32))
        put(userData)
        put(sec)
        put(usec)
        put(sequence)
        put(crtc)
        return b
    }

    @Test func parsesAFlipComplete() throws {
        let bytes = Self.vblankBytes(type: 2, userData: 7, sec: 1234, usec: 567_890, sequence: 99, crtc: 36)
        let (events, bad) = DrmEvent.parse(bytes)
        #expect(bad == 0)
        let event = try #require(events.first)
        guard case .flipComplete(let flip) = event else {
            Issue.record("expected a flip event, got \(event)")
            return
        }
        #expect(flip.userData == 7 && flip.sequence == 99 && flip.crtcID == 36)
        #expect(flip.instant == Instant(nanoseconds: 1234 * 1_000_000_000 + 567_890_000))
    }

    @Test func parsesARunOfEventsAndSkipsUnknownOnes() {
        var bytes = Self.vblankBytes(type: 1, userData: 1, sec: 1, usec: 2, sequence: 3, crtc: 4)
        // An unknown type of 12 bytes: header plus 4 payload bytes.
        bytes += [0x40, 0, 0, 0, 12, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD]
        bytes += Self.vblankBytes(type: 2, userData: 5, sec: 6, usec: 7, sequence: 8, crtc: 9)
        let (events, bad) = DrmEvent.parse(bytes)
        #expect(bad == 0)
        #expect(events.count == 3)
        #expect(events[1] == .other(type: 0x40, length: 12))
        if case .vblank(let v) = events[0] {
            #expect(v.crtcID == 4)
        } else {
            Issue.record("not a vblank: \(events[0])")
        }
        if case .flipComplete(let f) = events[2] { #expect(f.sequence == 8) } else { Issue.record("\(events[2])") }
    }

    @Test func parsesCrtcSequence() {
        var b: [UInt8] = []
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { b.append(contentsOf: $0) } }
        put(UInt32(3))
        put(UInt32(32))
        put(UInt64(11))
        put(Int64(5_000_000_123))
        put(UInt64(1 << 40))
        #expect(
            DrmEvent.parse(b).events == [.crtcSequence(userData: 11, nanoseconds: 5_000_000_123, sequence: 1 << 40)])
    }

    @Test(arguments: [0, 4, 8, 20, 31])
    func truncatedEventIsReportedNotRead(keep: Int) {
        let whole = Self.vblankBytes(type: 2, userData: 1, sec: 1, usec: 1, sequence: 1, crtc: 1)
        let bytes = whole + Array(whole.prefix(keep))
        let (events, bad) = DrmEvent.parse(bytes)
        #expect(events.count == 1)
        #expect(bad == keep)
    }

    @Test func impossibleLengthsStopTheParse() {
        // length 4 (< header) would loop forever if trusted; length 1000 runs past the data.
        #expect(DrmEvent.parse([2, 0, 0, 0, 4, 0, 0, 0]).malformedBytes == 8)
        #expect(DrmEvent.parse([2, 0, 0, 0, 0xE8, 3, 0, 0] + [UInt8](repeating: 0, count: 24)).malformedBytes == 32)
        // A flip event claiming 16 bytes is too short for its payload.
        #expect(DrmEvent.parse([2, 0, 0, 0, 16, 0, 0, 0] + [UInt8](repeating: 0, count: 8)).events.isEmpty)
    }
}
