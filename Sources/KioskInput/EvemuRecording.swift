import CardModel
import Glibc
import KioskSystem

/// A device description and its events, read from the text `evemu-record` and
/// `evemu-describe` write.
///
/// Accepted: every header generation found in the wild — EVEMU 1.3 and 1.2 (`A:` with a
/// resolution), EVEMU 1.1 (`A:` with min/max/fuzz/flat only) and the old headerless files —,
/// `#` comment lines anywhere and trailing `#` comments on data lines, zero-padded values
/// (`-001`), and UTF-8 device names. Line format: `N: name`, `I: bus vendor product version`
/// (hex), `P: 8 hex bytes` (properties, repeated), `B: type 8 hex bytes` (capability bits,
/// repeated per type), `A: code min max fuzz flat [resolution]` (code hex, rest decimal),
/// `E: sec.usec type code value` (type/code hex, value decimal).
package struct EvemuRecording: Sendable {
    package var device: DeviceDescription
    package var events: [InputEvent]

    /// Parses `text`; `source` names the file in errors.
    init(parsing text: String, source: String = "<recording>") throws(EvemuError) {
        try self.init(all: EvemuReader(parsing: text, source: source))
    }

    /// The longest line read; evemu lines are short (a `B:` line of a keyboard is ~100 bytes).
    package static let maxLineBytes = 64 << 10

    /// Reads the whole file at `path` into memory (tests and small files; the tools stream it
    /// with `EvemuReader`). Regular files only, and a line over `maxLineBytes` is an error.
    package init(contentsOf path: String) throws(EvemuError) {
        try self.init(all: EvemuReader(contentsOf: path))
    }

    private init(all reader: EvemuReader) throws(EvemuError) {
        var events: [InputEvent] = []
        while let e = try reader.next() { events.append(e) }
        device = reader.device
        self.events = events
    }
}

/// An evemu recording read as a stream: the description at once, then one event per `next()`,
/// parsed as its line is read. Memory is flat in the recording's length: one 64 KiB read
/// buffer and at most one line of `EvemuRecording.maxLineBytes` are held, never the file or
/// its events, so `replay` of a day-long flight recording needs no more memory than of a tap.
///
/// The description (`N:`/`I:`/`P:`/`B:`/`A:` lines) must come before the first event, as
/// `evemu-record` writes it; description lines after it are still checked but change nothing.
package final class EvemuReader {
    /// The device as described before the first event.
    package private(set) var device = DeviceDescription()
    private var lines: EvemuLineReader
    private var parser: EvemuParser
    /// The first event, read while looking for the end of the description.
    private var first: InputEvent?
    /// Common `E:` lines through `EvemuFastEvent`; false sends every line to the general
    /// parser (the tests compare the two).
    package var fastEvents = true

    /// Opens the file at `path` (regular files only: `replay /dev/zero` is refused at once)
    /// and reads its description.
    package convenience init(contentsOf path: String) throws(EvemuError) {
        let fd: Int32
        do { fd = try FileIO.openRegularFile(path, what: "the recording") } catch {
            throw EvemuError(source: path, line: 0, message: "cannot read the file: \(error.reason)")
        }
        try self.init(lines: EvemuLineReader(fd: fd, source: path))
    }

    /// Reads `text` as a recording; `source` names it in errors.
    package convenience init(parsing text: String, source: String = "<recording>") throws(EvemuError) {
        try self.init(lines: EvemuLineReader(text: text, source: source))
    }

    private init(lines: EvemuLineReader) throws(EvemuError) {
        self.lines = lines
        parser = EvemuParser(source: lines.source)
        // Every line up to the first event is description; the first event is kept for next().
        while first == nil, let line = try self.lines.next() {
            first = try parser.parse(
                line: Substring(String(decoding: line, as: UTF8.self)), number: self.lines.lineNumber)
        }
        guard parser.sawDescription else {
            throw EvemuError(
                source: lines.source, line: max(1, parser.firstEventLine ?? 1),
                message:
                    "no device description (N:/I:/P:/B:/A: lines) before the events — record with "
                    + "'evemu-record', which writes both, or put the output of 'evemu-describe' first")
        }
        device = parser.device
    }

    /// The next event, nil at the end of the recording; throws for a bad line (naming it).
    package func next() throws(EvemuError) -> InputEvent? {
        if let e = first {
            first = nil
            return e
        }
        while let line = try lines.next() {
            if fastEvents, let e = EvemuFastEvent.parse(line) { return e }
            let text = Substring(String(decoding: line, as: UTF8.self))
            if let e = try parser.parse(line: text, number: lines.lineNumber) { return e }
        }
        return nil
    }
}

/// Lines of a file (or a string), one at a time through a 64 KiB buffer; a line longer than
/// `EvemuRecording.maxLineBytes` is an error naming it. Owns and closes the descriptor.
private final class EvemuLineReader {
    let source: String
    /// The number of the line last returned (1-based).
    private(set) var lineNumber = 0
    private let fd: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end: Int
    private var pending: [UInt8] = []
    private var atEOF: Bool
    private var done = false

    init(fd: Int32, source: String) {
        self.fd = fd
        self.source = source
        buffer = [UInt8](repeating: 0, count: 64 << 10)
        end = 0
        atEOF = false
    }

    init(text: String, source: String) {
        fd = -1
        self.source = source
        buffer = Array(text.utf8)
        end = buffer.count
        atEOF = true
    }

    deinit { if fd >= 0 { close(fd) } }

    private func checkLength(_ count: Int) throws(EvemuError) {
        guard count <= EvemuRecording.maxLineBytes else {
            throw EvemuError(
                source: source, line: lineNumber + 1,
                message:
                    "line is longer than \(FileIO.sizeText(EvemuRecording.maxLineBytes)); this is not an evemu recording"
            )
        }
    }

    /// The next line without its newline; after the last newline the (empty) rest is a line
    /// too, as `split(separator:omittingEmptySubsequences: false)` would give it. Nil at the end.
    func next() throws(EvemuError) -> ArraySlice<UInt8>? {
        while true {
            if let i = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
                let line: ArraySlice<UInt8>
                if pending.isEmpty {
                    try checkLength(i - start)
                    line = buffer[start..<i]
                } else {
                    pending += buffer[start..<i]
                    try checkLength(pending.count)
                    line = pending[...]
                    pending = []
                }
                start = i + 1
                lineNumber += 1
                return line
            }
            pending += buffer[start..<end]
            start = 0
            end = 0
            try checkLength(pending.count)
            if atEOF {
                if done { return nil }
                done = true
                lineNumber += 1
                let line = pending[...]
                pending = []
                return line
            }
            let n: Int
            do {
                n = try retryingOnInterrupt("read", detail: source) {
                    buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                }
            } catch { throw EvemuError(source: source, line: 0, message: "cannot read the file: \(error)") }
            if n == 0 { atEOF = true } else { end = n }
        }
    }
}

/// The common `E:` line (`E: 12.345678 0003 0035 1041  # comment`) read straight from its
/// bytes (`replay` of 2 M events in a debug build: 14 s, 48 s through the general parser). Anything unusual (signs,
/// long fields, a value out of range) returns nil and goes to `EvemuParser`, which accepts or
/// rejects it with its message; so this only ever agrees with it.
enum EvemuFastEvent {
    static func parse(_ line: ArraySlice<UInt8>) -> InputEvent? {
        var i = line.startIndex
        var end = line.endIndex
        if end > i, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard end - i > 2, line[i] == UInt8(ascii: "E"), line[i + 1] == UInt8(ascii: ":") else { return nil }
        i += 2
        func isSpace(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
        func skipSpaces() { while i < end, isSpace(line[i]) { i += 1 } }
        /// Decimal digits (at most `limit`); nil when there are none or more.
        func digits(_ limit: Int) -> (value: Int64, count: Int)? {
            var v: Int64 = 0
            var n = 0
            while i < end, line[i] >= UInt8(ascii: "0"), line[i] <= UInt8(ascii: "9") {
                n += 1
                if n > limit { return nil }
                v = v * 10 + Int64(line[i] - UInt8(ascii: "0"))
                i += 1
            }
            return n == 0 ? nil : (v, n)
        }
        func hex4() -> UInt16? {
            var v: UInt16 = 0
            var n = 0
            while i < end, !isSpace(line[i]) {
                let b = line[i]
                let d: UInt8
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
                default: return nil
                }
                n += 1
                if n > 4 { return nil }
                v = v << 4 | UInt16(d)
                i += 1
            }
            return n == 0 ? nil : v
        }
        skipSpaces()
        guard let sec = digits(10), sec.value <= EvemuParser.maxSeconds, i < end, line[i] == UInt8(ascii: ".")
        else { return nil }
        i += 1
        guard let usec = digits(6), i < end, isSpace(line[i]) else { return nil }
        skipSpaces()
        guard let type = hex4(), i < end else { return nil }
        skipSpaces()
        guard let code = hex4(), i < end else { return nil }
        skipSpaces()
        var negative = false
        if i < end, line[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        guard let magnitude = digits(9) else { return nil }  // nine digits always fit an Int32
        // The rest: nothing, or blanks and/or a comment.
        skipSpaces()
        guard i == end || line[i] == UInt8(ascii: "#") else { return nil }
        let value = Int32(negative ? -magnitude.value : magnitude.value)
        return InputEvent(
            time: Instant(nanoseconds: sec.value * 1_000_000_000 + usec.value * 1000), type: type, code: code,
            value: value)
    }
}

/// A recording that cannot be used, with the line that is wrong (0: the file itself).
package struct EvemuError: Error, CustomStringConvertible, Equatable {
    var source: String
    var line: Int
    var message: String

    package var description: String {
        line > 0 ? "\(source):\(line): \(message)" : "\(source): \(message)"
    }
}

private struct EvemuParser {
    let source: String
    var device = DeviceDescription()
    var sawDescription = false
    var firstEventLine: Int?
    /// Bytes already read per `B:` type (each line carries the next 8 bytes of its bitmask).
    private var maskOffset: [UInt16: Int] = [:]
    private var propertyOffset = 0

    init(source: String) { self.source = source }

    /// Parses one line; returns the event of an `E:` line.
    ///
    /// The line is read by Unicode scalars, not by characters: a '#', ':' or blank followed by a
    /// combining mark is one character, and must still end the data, mark the line type or
    /// separate fields as it does for `EvemuFastEvent`, which reads bytes.
    mutating func parse(line raw: Substring, number: Int) throws(EvemuError) -> InputEvent? {
        var line = raw.unicodeScalars[...]
        if line.last == "\r" { line = line.dropLast() }
        func isBlank(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" }
        let trimmed = line.drop(while: isBlank)
        if trimmed.isEmpty || trimmed.first == "#" { return nil }
        guard trimmed.count >= 2, trimmed.dropFirst().first == ":", let kind = trimmed.first else {
            throw fail(
                number,
                "not an evemu line: '\(Substring(trimmed.prefix(40)))' (expected 'N:', 'I:', 'P:', 'B:', 'A:' or 'E:')")
        }
        let rest = trimmed.dropFirst(2)
        if kind == "N" {
            // Names may contain '#': no trailing-comment stripping here.
            var name = rest.drop(while: isBlank)
            while let last = name.last, isBlank(last) { name = name.dropLast() }
            device.name = String(Substring(name))
            sawDescription = true
            return nil
        }
        let body = rest[..<(rest.firstIndex(of: "#") ?? rest.endIndex)]
        let fields = body.split(whereSeparator: isBlank).map { Substring($0) }
        switch kind {
        case "I": try parseID(fields, number)
        case "P": try parseProperties(fields, number)
        case "B": try parseMask(fields, number)
        case "A": try parseAbs(fields, number)
        case "E": return try parseEvent(fields, number)
        case "L", "S":
            // LED and switch states of newer evemu versions: nothing the touch path uses.
            return nil
        default:
            let shown = Excerpt.of(String(kind))
            throw fail(number, "unknown line type '\(shown):' (expected 'N:', 'I:', 'P:', 'B:', 'A:' or 'E:')")
        }
        return nil
    }

    /// The largest event or property code a mask may set (codes are 16-bit).
    static let maxCode = Int(UInt16.max)
    /// The latest timestamp whose nanoseconds fit an Int64 with a whole second to spare.
    static let maxSeconds: Int64 = Int64.max / 1_000_000_000 - 1

    private func fail(_ line: Int, _ message: String) -> EvemuError {
        EvemuError(source: source, line: line, message: message)
    }

    private func hex<T: FixedWidthInteger>(_ s: Substring, _ what: String, _ line: Int) throws(EvemuError) -> T {
        guard let v = T(s, radix: 16) else {
            throw fail(line, "\(what) '\(Excerpt.of(s))' is not a hexadecimal number of at most \(T.bitWidth) bits")
        }
        return v
    }

    private func decimal(_ s: Substring, _ what: String, _ line: Int) throws(EvemuError) -> Int32 {
        guard let v = Int32(s) else { throw fail(line, "\(what) '\(Excerpt.of(s))' is not a 32-bit decimal number") }
        return v
    }

    private mutating func parseID(_ f: [Substring], _ line: Int) throws(EvemuError) {
        guard f.count == 4 else { throw fail(line, "'I:' needs 4 hex numbers: bus vendor product version") }
        device.id = DeviceID(
            bus: try hex(f[0], "bus", line), vendor: try hex(f[1], "vendor", line),
            product: try hex(f[2], "product", line), version: try hex(f[3], "version", line))
        sawDescription = true
    }

    private mutating func parseProperties(_ f: [Substring], _ line: Int) throws(EvemuError) {
        for (i, s) in f.enumerated() {
            let byte: UInt8 = try hex(s, "property byte", line)
            for bit in 0..<8 where byte & (1 << bit) != 0 {
                let property = (propertyOffset + i) * 8 + bit
                // INPUT_PROP_MAX is 0x1f; a longer mask is not a recording of a real device.
                guard property <= Self.maxCode else {
                    throw fail(
                        line,
                        "'P:' byte \(i + 1) sets property \(property), beyond \(Self.maxCode) (the 'P:' lines are too long)"
                    )
                }
                device.properties.insert(UInt16(property))
            }
        }
        propertyOffset += f.count
        sawDescription = true
    }

    private mutating func parseMask(_ f: [Substring], _ line: Int) throws(EvemuError) {
        guard let first = f.first else { throw fail(line, "'B:' needs an event type and mask bytes") }
        let type: UInt16 = try hex(first, "event type", line)
        guard type <= 0x1f else { throw fail(line, "event type 0x\(first) is beyond EV_MAX (0x1f)") }
        let offset = maskOffset[type, default: 0]
        for (i, s) in f.dropFirst().enumerated() {
            let byte: UInt8 = try hex(s, "mask byte", line)
            for bit in 0..<8 where byte & (1 << bit) != 0 {
                let code = (offset + i) * 8 + bit
                // KEY_MAX is 0x2ff; a mask past 0xffff (8 KiB of bits) is not from a device.
                guard code <= Self.maxCode else {
                    throw fail(
                        line,
                        "'B:' byte \(i + 1) sets code \(code) of type 0x\(first), beyond \(Self.maxCode) (the 'B:' lines are too long)"
                    )
                }
                if type == EvdevCode.evSyn {
                    // The EV_SYN mask lists the supported event *types*.
                    device.eventTypes.insert(UInt16(code))
                } else {
                    device.enable(type: type, code: UInt16(code))
                }
            }
        }
        maskOffset[type] = offset + f.count - 1
        sawDescription = true
    }

    private mutating func parseAbs(_ f: [Substring], _ line: Int) throws(EvemuError) {
        guard f.count == 5 || f.count == 6 else {
            throw fail(line, "'A:' needs code min max fuzz flat [resolution], got \(f.count) fields")
        }
        let code: UInt16 = try hex(f[0], "axis code", line)
        guard code <= 0x3f else { throw fail(line, "axis code 0x\(f[0]) is beyond ABS_MAX (0x3f)") }
        let info = AbsInfo(
            minimum: try decimal(f[1], "minimum", line), maximum: try decimal(f[2], "maximum", line),
            fuzz: try decimal(f[3], "fuzz", line), flat: try decimal(f[4], "flat", line),
            resolution: f.count == 6 ? try decimal(f[5], "resolution", line) : 0)
        guard info.maximum >= info.minimum else {
            throw fail(line, "axis 0x\(f[0]) has maximum \(info.maximum) below minimum \(info.minimum)")
        }
        device.absInfo[code] = info
        sawDescription = true
    }

    private mutating func parseEvent(_ f: [Substring], _ line: Int) throws(EvemuError) -> InputEvent {
        if firstEventLine == nil { firstEventLine = line }
        guard f.count == 4 else { throw fail(line, "'E:' needs sec.usec type code value, got \(f.count) fields") }
        let parts = f[0].unicodeScalars.split(separator: ".", omittingEmptySubsequences: false).map { Substring($0) }
        guard parts.count == 2, let sec = Int64(parts[0]), sec >= 0, parts[1].utf8.count <= 6,
            let usec = Int64(parts[1]), usec >= 0
        else { throw fail(line, "time '\(Excerpt.of(f[0]))' is not seconds.microseconds") }
        // Nanoseconds in an Int64 end at 9223372036 s (year 2262); later is not a real clock.
        guard sec <= Self.maxSeconds else {
            throw fail(
                line,
                "time '\(Excerpt.of(f[0]))' is beyond \(Self.maxSeconds) seconds; timestamps are CLOCK_MONOTONIC seconds"
            )
        }
        let type: UInt16 = try hex(f[1], "event type", line)
        let code: UInt16 = try hex(f[2], "event code", line)
        let value = try decimal(f[3], "value", line)
        return InputEvent(
            time: Instant(nanoseconds: sec * 1_000_000_000 + usec * 1000), type: type, code: code, value: value)
    }
}
