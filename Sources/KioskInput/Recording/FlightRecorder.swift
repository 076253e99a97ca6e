import CardModel
import Glibc
import KioskSystem

/// The input flight recorder: the last minutes of one device's raw evdev events in a bounded
/// ring, written as an evemu file on request (SIGUSR2) or on a fatal error, so a problem seen
/// in the field replays exactly (`KioskCards replay FILE`).
///
/// Pure and O(1) per event: a fixed-size ring evicts the oldest event when full or older than
/// `window` seconds. The file starts at a *quiet* frame boundary — a SYN_REPORT after which no
/// contact was down — so the replay never begins in the middle of a touch whose start was
/// evicted. To know that for the oldest kept events, the contact state of the evicted events is
/// carried along.
struct FlightRecorder {
    /// Seconds of input kept (measured back from the newest event).
    let window: Double
    /// At most this many events are kept, however short the window.
    let capacity: Int

    private var ring: [InputEvent]
    private var head = 0
    private(set) var count = 0
    /// Contact state after every evicted event.
    private var stateAtHead = ContactState()

    /// 180 s and 300 000 events (about 5 MB) by default: a busy five-finger panel reports about
    /// 1 600 events per second.
    init(window: Double = 180, capacity: Int = 300_000) {
        self.window = window
        self.capacity = max(1, capacity)
        ring = []
        ring.reserveCapacity(self.capacity)
    }

    /// Adds one event (events arrive in time order, as a device reports them).
    mutating func record(_ event: InputEvent) {
        let oldestAllowed = event.time.advanced(bySeconds: -window)
        while count > 0 && (count >= capacity || self[0].time < oldestAllowed) { evictOldest() }
        if ring.count < capacity {
            ring.append(event)
        } else {
            ring[(head + count) % capacity] = event
        }
        count += 1
    }

    private mutating func evictOldest() {
        stateAtHead.apply(self[0])
        head = (head + 1) % capacity
        count -= 1
    }

    private subscript(i: Int) -> InputEvent { ring[(head + i) % capacity] }

    /// The kept events from the first quiet frame boundary on (empty when there is none),
    /// preceded by a state frame: the axis values the device reported before that point (a
    /// device sends only changes, so a decoder starting there would not know a finger's y when
    /// only its x changed — libevdev resynchronises the same way after SYN_DROPPED).
    var replayableEvents: [InputEvent] {
        var state = stateAtHead
        var start: Int? = state.isQuiet ? 0 : nil
        var i = 0
        while start == nil && i < count {
            let e = self[i]
            state.apply(e)
            i += 1
            if e.isSynReport && state.isQuiet { start = i }
        }
        guard let start, start < count else { return [] }
        let preamble = state.stateFrame(at: self[start].time)
        return preamble + (start..<count).map { self[$0] }
    }

    /// The evemu text for `device` and the replayable events (EVEMU 1.3 layout: masks and
    /// properties 8 bytes per line, as `evemu-record` writes them). Event times stay on the
    /// monotonic clock, so they line up with `journalctl -o short-monotonic`.
    func evemuText(device: DeviceDescription, note: String) -> String {
        Self.evemuText(device: device, events: replayableEvents, note: note)
    }

    static func evemuText(device: DeviceDescription, events: [InputEvent], note: String) -> String {
        func hex(_ v: Int, _ width: Int) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        func maskLines(prefix: String, bits: Set<UInt16>, minimumBytes: Int) -> [String] {
            let highest = Int(bits.max() ?? 0)
            let bytes = max(minimumBytes, ((highest / 8) / 8 + 1) * 8)
            var mask = [UInt8](repeating: 0, count: bytes)
            for b in bits { mask[Int(b) / 8] |= 1 << (b % 8) }
            return stride(from: 0, to: bytes, by: 8).map { offset in
                prefix + mask[offset..<offset + 8].map { hex(Int($0), 2) }.joined(separator: " ")
            }
        }
        var lines = [
            "# EVEMU 1.3",
            "# Input device name: \"\(device.name)\"",
            "# KioskCards flight recorder: \(note)",
            "# Replay: KioskCards replay FILE   (times are CLOCK_MONOTONIC seconds)",
            "N: \(device.name.isEmpty ? "unknown" : device.name)",
            "I: \(hex(Int(device.id.bus), 4)) \(hex(Int(device.id.vendor), 4)) \(hex(Int(device.id.product), 4))"
                + " \(hex(Int(device.id.version), 4))",
        ]
        lines += maskLines(prefix: "P: ", bits: device.properties, minimumBytes: 8)
        lines += maskLines(prefix: "B: 00 ", bits: device.eventTypes.union([EvdevCode.evSyn]), minimumBytes: 8)
        for type in device.eventTypes.sorted() where type != EvdevCode.evSyn {
            lines += maskLines(prefix: "B: \(hex(Int(type), 2)) ", bits: device.codes[type] ?? [], minimumBytes: 8)
        }
        for (code, info) in device.absInfo.sorted(by: { $0.key < $1.key }) {
            lines.append(
                "A: \(hex(Int(code), 2)) \(info.minimum) \(info.maximum) \(info.fuzz) \(info.flat) \(info.resolution)")
        }
        for e in events {
            let ns = e.time.nanoseconds
            let us = String(ns % 1_000_000_000 / 1000)
            lines.append(
                "E: \(ns / 1_000_000_000).\(String(repeating: "0", count: 6 - us.count))\(us)"
                    + " \(hex(Int(e.type), 4)) \(hex(Int(e.code), 4)) \(e.value)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes `text` to `path` atomically (`FileIO.replaceAtomically`); logs the outcome.
    /// Returns whether it worked.
    @discardableResult
    static func write(_ text: String, to path: String) -> Bool {
        do {
            try FileIO.replaceAtomically(path: path, contents: Array(text.utf8), permissions: 0o640)
        } catch {
            Log.error(
                "flight recorder: writing \(path) failed: \(error) — is the data directory writable, the disk full?")
            return false
        }
        Log.info("flight recorder: wrote \(path) (replay: KioskCards replay \(path))")
        return true
    }
}

/// Which contacts are down and the last value of every axis, from the raw events (multitouch
/// protocol B slots, protocol A frames, single-touch BTN_TOUCH): enough to find quiet frame
/// boundaries and to restate the device's state there.
private struct ContactState {
    var slot = 0
    var activeSlots: Set<Int> = []
    var buttonDown = false
    /// Protocol A: contacts reported in the frame being read, and in the last complete one.
    var protocolAContacts = 0
    var protocolAInLastFrame = 0
    /// Last value per slot of each ABS_MT_* axis except the slot and tracking id.
    var slotValues: [Int: [UInt16: Int32]] = [:]
    /// Last value of each other absolute axis (ABS_X, ABS_Y, ABS_PRESSURE, …).
    var axisValues: [UInt16: Int32] = [:]

    var isQuiet: Bool { activeSlots.isEmpty && !buttonDown && protocolAInLastFrame == 0 }

    mutating func apply(_ e: InputEvent) {
        switch (e.type, e.code) {
        case (EvdevCode.evAbs, EvdevCode.absMTSlot):
            slot = Int(e.value)
        case (EvdevCode.evAbs, EvdevCode.absMTTrackingID):
            if e.value < 0 { activeSlots.remove(slot) } else { activeSlots.insert(slot) }
        case (EvdevCode.evAbs, let code) where code >= 0x2f && code <= 0x3f:  // ABS_MT_*
            slotValues[slot, default: [:]][code] = e.value
        case (EvdevCode.evAbs, let code):
            axisValues[code] = e.value
        case (EvdevCode.evKey, EvdevCode.btnTouch), (EvdevCode.evKey, EvdevCode.btnLeft):
            buttonDown = e.value != 0
        case (EvdevCode.evSyn, EvdevCode.synMTReport):
            protocolAContacts += 1
        case (EvdevCode.evSyn, EvdevCode.synReport):
            protocolAInLastFrame = protocolAContacts
            protocolAContacts = 0
        default:
            break
        }
    }

    /// Events that put a fresh decoder into this (quiet) state, ending in a SYN_REPORT; empty
    /// when nothing is known yet.
    func stateFrame(at time: Instant) -> [InputEvent] {
        var events: [InputEvent] = []
        for s in slotValues.keys.sorted() {
            events.append(InputEvent(time: time, type: EvdevCode.evAbs, code: EvdevCode.absMTSlot, value: Int32(s)))
            for (code, value) in slotValues[s]!.sorted(by: { $0.key < $1.key }) {
                events.append(InputEvent(time: time, type: EvdevCode.evAbs, code: code, value: value))
            }
        }
        if !slotValues.isEmpty {
            events.append(InputEvent(time: time, type: EvdevCode.evAbs, code: EvdevCode.absMTSlot, value: Int32(slot)))
        }
        for (code, value) in axisValues.sorted(by: { $0.key < $1.key }) {
            events.append(InputEvent(time: time, type: EvdevCode.evAbs, code: code, value: value))
        }
        guard !events.isEmpty else { return [] }
        events.append(InputEvent(time: time, type: EvdevCode.evSyn, code: EvdevCode.synReport, value: 0))
        return events
    }
}
