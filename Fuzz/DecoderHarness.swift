import CardModel
@testable import KioskInput

/// The touch decoder fed with the events of an evemu text: every recording that parses and
/// describes a touch device decodes without a trap, and the frames keep the decoder's
/// contract — a contact begins once, then moves, then ends or is cancelled once; ids in a
/// frame are unique; what is down matches `activeContactCount`; nothing is down after
/// `cancelAll`. The mapped (screen-space) frames are computed too, as `replay` does.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    withFuzzInput(data, size) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        guard let recording = try? EvemuRecording(parsing: text, source: "fuzz.evemu"),
            let profile = recording.device.classify().touchProfile
        else { return }
        let mapping = TouchMapping(
            profile: profile, panel: TouchReplayOptions.defaultScreen, rotation: .deg90, calibration: .identity)
        var decoder = TouchDecoder(profile: profile)
        var down: Set<Int> = []
        func check(_ frame: DeviceTouchFrame) {
            var seen: Set<Int> = []
            for c in frame.contacts {
                precondition(seen.insert(c.id).inserted, "contact \(c.id) twice in one frame")
                switch c.phase {
                case .began: precondition(down.insert(c.id).inserted, "contact \(c.id) began while down")
                case .moved: precondition(down.contains(c.id), "contact \(c.id) moved while up")
                case .ended, .cancelled: precondition(down.remove(c.id) != nil, "contact \(c.id) ended while up")
                }
            }
            _ = mapping.map(frame)
        }
        for (i, event) in recording.events.enumerated() {
            // Every other SYN_DROPPED as a live device's (the reader resyncs and does not pass
            // the drop itself on), the rest as a recording's.
            if event.type == EvdevCode.evSyn && event.code == EvdevCode.synDropped && i % 2 == 1 {
                decoder.beginLiveResync()
                continue
            }
            if let frame = decoder.process(event) { check(frame) }
            precondition(
                decoder.activeContactCount == down.count,
                "decoder has \(decoder.activeContactCount) down, frames say \(down.count)")
        }
        if let last = recording.events.last, let frame = decoder.cancelAll(at: last.time) { check(frame) }
        precondition(decoder.activeContactCount == 0, "contacts down after cancelAll")
    }
}
