import CardModel
import KioskTestSupport
import Testing

@testable import KioskInput

@Suite struct StoreFlightRecorderTests {
    /// Recordings with events (the `.desc.evemu` files are descriptions only).
    static var recordings: [String] { TouchTestData.allFiles.filter { !$0.hasSuffix(".desc.evemu") } }

    func load(_ name: String) throws -> EvemuRecording {
        try EvemuRecording(contentsOf: try TouchTestData.requireDirectory() + "/" + name)
    }

    /// Frames with contact ids renumbered by first appearance (a decoder started later counts
    /// from 1 again) and times kept.
    func normalised(_ frames: [TouchFrame]) -> [TouchFrame] {
        var ids: [Int: Int] = [:]
        return frames.map { f in
            TouchFrame(
                time: f.time,
                contacts: f.contacts.map { c in
                    let id = ids[c.id] ?? (ids.count + 1)
                    ids[c.id] = id
                    return TouchContact(id: id, position: c.position, phase: c.phase)
                })
        }
    }

    @Test(arguments: recordings)
    func everythingKeptReplaysToTheSameFrames(file: String) throws {
        let original = try load(file)
        var recorder = FlightRecorder(window: 1e9, capacity: original.events.count + 1)
        for e in original.events { recorder.record(e) }
        let text = recorder.evemuText(device: original.device, note: "test")
        let dumped = try EvemuRecording(parsing: text, source: file)
        #expect(dumped.device.name == original.device.name)
        #expect(dumped.device.id == original.device.id)
        #expect(dumped.device.properties == original.device.properties)
        #expect(dumped.device.codes == original.device.codes)
        #expect(dumped.device.absInfo == original.device.absInfo)
        #expect(dumped.device.classify() == original.device.classify())
        #expect(dumped.events == original.events)
        if original.device.classify().touchProfile != nil {
            #expect(try TouchReplay(dumped).frames == TouchReplay(original).frames)
        }
    }

    @Test func aShortWindowStartsAtAQuietMomentAndReplaysTheSameTail() throws {
        let original = try load("atmel-mxt-800x480-one-finger-fast-taps.evemu")
        let full = try TouchReplay(original).frames
        let span = original.events.last!.time.seconds(since: original.events.first!.time)
        var recorder = FlightRecorder(window: span / 2)
        for e in original.events { recorder.record(e) }
        let all = recorder.replayableEvents
        // A state frame (axis values sent before the window), then the original events.
        let preambleEnd = try #require(all.firstIndex { $0.isSynReport })
        #expect(all[..<preambleEnd].allSatisfy { $0.type == EvdevCode.evAbs && $0.code != EvdevCode.absMTTrackingID })
        let kept = Array(all[(preambleEnd + 1)...])
        #expect(!kept.isEmpty)
        #expect(kept.count < original.events.count)
        let first = try #require(kept.first)
        #expect(first.time >= original.events.last!.time.advanced(bySeconds: -span / 2))
        // The events are exactly the original's from that point on.
        let start = try #require(original.events.firstIndex(of: first))
        #expect(Array(original.events[start...]) == kept)

        let dumped = try EvemuRecording(parsing: recorder.evemuText(device: original.device, note: "tail"))
        let replayed = try TouchReplay(dumped)
        #expect(replayed.cancelledAtEnd == 0)
        let tail = full.filter { $0.time >= first.time }
        #expect(normalised(replayed.frames) == normalised(tail))
        // Every replayed touch starts with .began: nothing starts mid-touch.
        var seen: Set<Int> = []
        for f in replayed.frames {
            for c in f.contacts where !seen.contains(c.id) {
                #expect(c.phase == .began)
                seen.insert(c.id)
            }
        }
    }

    @Test func aTouchCutByTheWindowIsLeftOutWhole() {
        // A long press from 0 s to 10 s, then a tap at 20 s; a 15 s window at 21 s keeps the
        // press's end but not its start, so the file starts after the press.
        func ev(_ t: Double, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
            InputEvent(time: .seconds(t), type: type, code: code, value: value)
        }
        let syn = (EvdevCode.evSyn, EvdevCode.synReport)
        var events: [InputEvent] = []
        for (t, down) in [(0.0, true), (10.0, false), (20.0, true), (20.1, false)] {
            events.append(ev(t, EvdevCode.evAbs, EvdevCode.absMTTrackingID, down ? 7 : -1))
            if down { events.append(ev(t, EvdevCode.evAbs, EvdevCode.absMTPositionX, 100)) }
            events.append(ev(t, EvdevCode.evKey, EvdevCode.btnTouch, down ? 1 : 0))
            events.append(ev(t, syn.0, syn.1, 0))
        }
        for t in stride(from: 1.0, through: 9.0, by: 1.0) {
            events.insert(ev(t, EvdevCode.evAbs, EvdevCode.absMTPositionX, Int32(100 + t)), at: events.count - 8)
            events.insert(ev(t, syn.0, syn.1, 0), at: events.count - 8)
        }
        events.sort { $0.time < $1.time }
        var recorder = FlightRecorder(window: 15)
        for e in events { recorder.record(e) }
        let kept = recorder.replayableEvents.filter { $0.time == .seconds(20) || $0.time == .seconds(20.1) }
        #expect(recorder.replayableEvents.allSatisfy { $0.time >= .seconds(20) })
        // The state frame restates x = 109 (the press's last value) before the tap.
        #expect(recorder.replayableEvents.contains { $0.code == EvdevCode.absMTPositionX && $0.value == 109 })
        #expect(kept.contains { $0.code == EvdevCode.absMTTrackingID && $0.value == 7 })
    }

    @Test func capacityBoundsTheRing() {
        var recorder = FlightRecorder(window: 1e9, capacity: 100)
        for n in 0..<1000 {
            recorder.record(
                InputEvent(time: .milliseconds(Double(n)), type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0))
            #expect(recorder.count <= 100)
        }
        let kept = recorder.replayableEvents
        #expect(kept.count == 100)
        #expect(kept.first?.time == .milliseconds(900))
        #expect(kept.last?.time == .milliseconds(999))
    }

    @Test func fileIsWrittenAtomically() throws {
        let dir = DeckFixtures.temporaryDirectory("flight")
        defer { DeckFixtures.removeTree(dir) }
        let original = try load("egalax-empia-pcap-one-finger-tap.evemu")
        var recorder = FlightRecorder()
        for e in original.events { recorder.record(e) }
        let path = dir + "/input.evemu"
        #expect(FlightRecorder.write(recorder.evemuText(device: original.device, note: "file"), to: path))
        let back = try EvemuRecording(contentsOf: path)
        #expect(back.events == original.events)
        #expect(!FlightRecorder.write("x", to: dir + "/missing/input.evemu"))
    }
}
