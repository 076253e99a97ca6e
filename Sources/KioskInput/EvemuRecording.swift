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
        var parser = EvemuParser(source: source)
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            try parser.parse(line: line, number: lineNumber)
        }
        try self.init(finishing: parser, source: source)
    }

    private init(finishing parser: EvemuParser, source: String) throws(EvemuError) {
        guard parser.sawDescription else {
            throw EvemuError(
                source: source, line: max(1, parser.firstEventLine ?? 1),
                message:
                    "no device description (N:/I:/P:/B:/A: lines) before the events — record with "
                    + "'evemu-record', which writes both, or put the output of 'evemu-describe' first")
        }
        device = parser.device
        events = parser.events
    }

    /// The longest line read; evemu lines are short (a `B:` line of a keyboard is ~100 bytes).
    package static let maxLineBytes = 64 << 10

    /// Reads and parses the file at `path` line by line, 64 KiB at a time: the file's text is
    /// never held whole (only the decoded events are). Regular files only (`replay /dev/zero`
    /// is refused at once), and a line over `maxLineBytes` is an error naming it.
    package init(contentsOf path: String) throws(EvemuError) {
        let fd: Int32
        do { fd = try FileIO.openRegularFile(path, what: "the recording") } catch {
            throw EvemuError(source: path, line: 0, message: "cannot read the file: \(error.reason)")
        }
        defer { close(fd) }
        var parser = EvemuParser(source: path)
        var lineNumber = 0
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        func checkLength(_ count: Int) throws(EvemuError) {
            guard count <= Self.maxLineBytes else {
                throw EvemuError(
                    source: path, line: lineNumber + 1,
                    message: "line is longer than \(FileIO.sizeText(Self.maxLineBytes)); this is not an evemu recording"
                )
            }
        }
        func parse(_ bytes: ArraySlice<UInt8>) throws(EvemuError) {
            try checkLength(bytes.count)
            lineNumber += 1
            try parser.parse(line: Substring(String(decoding: bytes, as: UTF8.self)), number: lineNumber)
        }
        while true {
            let n: Int
            do {
                n = try retryingOnInterrupt("read", detail: path) {
                    chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                }
            } catch { throw EvemuError(source: path, line: 0, message: "cannot read the file: \(error)") }
            if n == 0 { break }
            var start = 0
            for i in 0..<n where chunk[i] == UInt8(ascii: "\n") {
                if pending.isEmpty {
                    try parse(chunk[start..<i])
                } else {
                    pending += chunk[start..<i]
                    try parse(pending[...])
                    pending.removeAll(keepingCapacity: true)
                }
                start = i + 1
            }
            pending += chunk[start..<n]
            try checkLength(pending.count)
        }
        try parse(pending[...])  // the last line (empty after a final newline, as in `parsing:`)
        try self.init(finishing: parser, source: path)
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
    var events: [InputEvent] = []
    var sawDescription = false
    var firstEventLine: Int?
    /// Bytes already read per `B:` type (each line carries the next 8 bytes of its bitmask).
    private var maskOffset: [UInt16: Int] = [:]
    private var propertyOffset = 0

    init(source: String) { self.source = source }

    mutating func parse(line raw: Substring, number: Int) throws(EvemuError) {
        var line = raw
        if line.last == "\r" { line = line.dropLast() }
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.isEmpty || trimmed.first == "#" { return }
        guard trimmed.count >= 2, trimmed.dropFirst().first == ":" else {
            throw fail(
                number, "not an evemu line: '\(trimmed.prefix(40))' (expected 'N:', 'I:', 'P:', 'B:', 'A:' or 'E:')")
        }
        let kind = trimmed.first!
        let rest = trimmed.dropFirst(2)
        if kind == "N" {
            // Names may contain '#': no trailing-comment stripping here.
            device.name = String(
                rest.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
            sawDescription = true
            return
        }
        let body = rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let fields = body.split(whereSeparator: { $0 == " " || $0 == "\t" })
        switch kind {
        case "I": try parseID(fields, number)
        case "P": try parseProperties(fields, number)
        case "B": try parseMask(fields, number)
        case "A": try parseAbs(fields, number)
        case "E": try parseEvent(fields, number)
        case "L", "S":
            // LED and switch states of newer evemu versions: nothing the touch path uses.
            return
        default:
            let shown = Excerpt.of(String(kind))
            throw fail(number, "unknown line type '\(shown):' (expected 'N:', 'I:', 'P:', 'B:', 'A:' or 'E:')")
        }
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

    private mutating func parseEvent(_ f: [Substring], _ line: Int) throws(EvemuError) {
        if firstEventLine == nil { firstEventLine = line }
        guard f.count == 4 else { throw fail(line, "'E:' needs sec.usec type code value, got \(f.count) fields") }
        let parts = f[0].split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let sec = Int64(parts[0]), sec >= 0, parts[1].count <= 6,
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
        events.append(
            InputEvent(
                time: Instant(nanoseconds: sec * 1_000_000_000 + usec * 1000), type: type, code: code, value: value))
    }
}
