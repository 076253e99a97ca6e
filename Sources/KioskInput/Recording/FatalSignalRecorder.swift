import CardModel
import Glibc
import KioskSystem

/// The flight recorder's last resort, for a crash: the raw events of every touch device also
/// go into a small preallocated ring, and a handler for the fatal signals (SIGSEGV, SIGBUS,
/// SIGFPE, SIGABRT, and SIGILL/SIGTRAP — what a Swift runtime trap raises) writes it as evemu
/// files into the data directory before the signal takes its normal course (the previous
/// handler, e.g. the Swift backtracer, or the default: core dump and exit; systemd restarts).
///
/// A signal handler may only call async-signal-safe functions, so everything it needs exists
/// before: the ring, each device's evemu header and file path as C strings, a scratch buffer.
/// It formats numbers by hand and uses only `open`, `write`, `fsync`, `close`, `sigaction` and
/// `raise`. A file starts after the first frame that lifted every finger known to be down (a
/// replay then starts with no touch in progress), else after the first SYN_REPORT.
///
/// Used from the loop thread only (`record`, `register`); the handler reads what that thread
/// wrote, which is safe for a synchronous fault on that thread and good enough for a signal
/// from outside.
package enum FatalSignalRecorder {
    struct Entry {
        var microseconds: Int64
        var type: UInt16
        var code: UInt16
        var value: Int32
        var slot: Int32
    }

    /// Events kept in all (16 bytes each): about 40 s of a busy five-finger panel, minutes of
    /// one finger.
    static let capacity = 1 << 16
    static let maxDevices = 8
    static let fatalSignals: [Int32] = [SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT]

    nonisolated(unsafe) private static var ring: UnsafeMutablePointer<Entry>?
    nonisolated(unsafe) private static var next = 0
    nonisolated(unsafe) private static var count = 0
    nonisolated(unsafe) private static var headerPointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    nonisolated(unsafe) private static var pathPointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    nonisolated(unsafe) private static var devices = 0
    nonisolated(unsafe) private static var scratch: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) private static var previous: UnsafeMutablePointer<sigaction>?
    nonisolated(unsafe) private static var directory = ""
    /// The pieces of the handler's stderr line, made at install.
    nonisolated(unsafe) private static var messages: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    private static let scratchSize = 1 << 16

    /// Prepares the buffers and installs the handler; files go into `directory`. Idempotent.
    package static func install(directory: String) {
        self.directory = directory
        guard ring == nil else { return }
        ring = .allocate(capacity: capacity)
        headerPointers = .allocate(capacity: maxDevices)
        headerPointers!.initialize(repeating: nil, count: maxDevices)
        pathPointers = .allocate(capacity: maxDevices)
        pathPointers!.initialize(repeating: nil, count: maxDevices)
        scratch = .allocate(capacity: scratchSize)
        messages = .allocate(capacity: 3)
        messages![0] = strdup("flight recorder: fatal signal ")
        messages![1] = strdup("; the last touch input written to ")
        messages![2] = strdup(" file(s) input-crash-*.evemu in \(directory)\n")
        previous = .allocate(capacity: 65)
        previous!.initialize(repeating: sigaction(), count: 65)
        for signal in fatalSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in FatalSignalRecorder.handle(signal) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)  // 0x80000000
            sigaction(signal, &action, previous! + Int(signal))
        }
    }

    /// A touch device opened: its evemu header and file name are made now; returns its slot
    /// for `record` (nil when not installed). Slots are reused round robin past `maxDevices`.
    static func register(path: String, device: DeviceDescription) -> Int32? {
        guard let headerPointers, let pathPointers else { return nil }
        let slot = devices % maxDevices
        devices += 1
        let name = path.split(separator: "/").last.map(String.init) ?? "input"
        let file = "\(directory)/input-crash-\(getpid())-\(name)-\(slot).evemu"
        let header = FlightRecorder.evemuText(
            device: device, events: [],
            note: "written by the fatal-signal handler; device \(path); it may start in the middle of a touch")
        free(headerPointers[slot])
        free(pathPointers[slot])
        headerPointers[slot] = strdup(header)
        pathPointers[slot] = strdup(file)
        // Events of the slot's previous device must not end up in this device's file.
        for i in 0..<count where ring![(next - count + i + capacity) % capacity].slot == Int32(slot) {
            ring![(next - count + i + capacity) % capacity].slot = -1
        }
        return Int32(slot)
    }

    /// Adds one raw event of the device in `slot`. O(1), no allocation.
    @inline(__always)
    static func record(_ event: InputEvent, slot: Int32) {
        guard let ring else { return }
        ring[next] = Entry(
            microseconds: event.time.nanoseconds / 1000, type: event.type, code: event.code, value: event.value,
            slot: slot)
        next = (next + 1) % capacity
        count = min(count + 1, capacity)
    }

    /// The signal handler: dump, put the previous handler back, let the signal take its course.
    private static func handle(_ signal: Int32) {
        let written = dump()
        note(signal: signal, files: written)
        sigaction(signal, previous! + Int(signal), nil)
        raise(signal)
    }

    /// Writes one file per device with events; returns how many were written. Async-signal-safe.
    @discardableResult
    static func dump() -> Int {
        guard let ring, let headerPointers, let pathPointers, let scratch else { return 0 }
        var written = 0
        for slot in 0..<min(devices, maxDevices) {
            guard let path = pathPointers[slot], let header = headerPointers[slot] else { continue }
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
            guard fd >= 0 else { continue }
            _ = Glibc.write(fd, header, strlen(header))
            var used = 0
            let first = startIndex(slot: Int32(slot))
            for i in first..<count {
                let e = ring[(next - count + i + capacity) % capacity]
                guard e.slot == Int32(slot) else { continue }
                if used > scratchSize - 64 {
                    _ = Glibc.write(fd, scratch, used)
                    used = 0
                }
                used = format(e, into: scratch, at: used)
            }
            _ = Glibc.write(fd, scratch, used)
            fsync(fd)
            close(fd)
            written += 1
        }
        return written
    }

    /// Where the device's file starts (an index into the kept events): after the first frame
    /// that reports fingers up (a lift, or the state at open) with none known down — a replay
    /// then starts with no touch in progress; without such a frame, after the first SYN_REPORT.
    private static func startIndex(slot: Int32) -> Int {
        guard let ring else { return 0 }
        var firstSyn: Int?
        var current: UInt16 = 0
        var down: UInt64 = 0
        var button = false
        var released = false
        for i in 0..<count {
            let e = ring[(next - count + i + capacity) % capacity]
            guard e.slot == slot else { continue }
            switch (e.type, e.code) {
            case (EvdevCode.evAbs, EvdevCode.absMTSlot): current = UInt16(truncatingIfNeeded: e.value) & 63
            case (EvdevCode.evAbs, EvdevCode.absMTTrackingID):
                if e.value < 0 {
                    // The kernel sends -1 only for a contact that ended (or in the state at open):
                    // this slot is known to be up now.
                    released = true
                    down &= ~(1 << current)
                } else {
                    down |= 1 << current
                }
            case (EvdevCode.evKey, EvdevCode.btnTouch), (EvdevCode.evKey, EvdevCode.btnLeft):
                released = released || e.value == 0
                button = e.value != 0
            case (EvdevCode.evSyn, EvdevCode.synReport):
                if released && down == 0 && !button { return i + 1 }
                released = false
                if firstSyn == nil { firstSyn = i + 1 }
            default: break
            }
        }
        return firstSyn ?? count
    }

    /// "E: 123.000456 0003 0035 1200\n" at `i`; returns the new end. No allocation: the
    /// helpers below take the buffer and the index (a closure capturing `i` might box it).
    private static func format(_ e: Entry, into b: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        var i = put(b, start, 69)  // E
        i = put(b, i, 58)  // :
        i = put(b, i, 32)
        i = decimal(b, i, e.microseconds / 1_000_000, width: 1)
        i = put(b, i, 46)  // .
        i = decimal(b, i, e.microseconds % 1_000_000, width: 6)
        i = put(b, i, 32)
        i = hex4(b, i, e.type)
        i = put(b, i, 32)
        i = hex4(b, i, e.code)
        i = put(b, i, 32)
        i = decimal(b, i, Int64(e.value), width: 1)
        return put(b, i, 10)
    }

    @inline(__always)
    private static func put(_ b: UnsafeMutablePointer<UInt8>, _ i: Int, _ c: UInt8) -> Int {
        b[i] = c
        return i + 1
    }

    /// `v` in decimal, zero-padded to `width` digits.
    private static func decimal(_ b: UnsafeMutablePointer<UInt8>, _ start: Int, _ v: Int64, width: Int) -> Int {
        var i = start
        if v < 0 { i = put(b, i, 45) }
        var n = v.magnitude
        var digits = 1
        var power: UInt64 = 1
        while n / power >= 10 {
            power *= 10
            digits += 1
        }
        for _ in digits..<max(digits, width) { i = put(b, i, 48) }
        while power > 0 {
            i = put(b, i, UInt8(48 + n / power))
            n %= power
            power /= 10
        }
        return i
    }

    private static func hex4(_ b: UnsafeMutablePointer<UInt8>, _ start: Int, _ v: UInt16) -> Int {
        var i = start
        var shift: UInt16 = 12
        while true {
            let nibble = UInt8((v >> shift) & 0xF)
            i = put(b, i, nibble < 10 ? 48 + nibble : 87 + nibble)
            if shift == 0 { return i }
            shift -= 4
        }
    }

    /// Copies the NUL-terminated `text` to `i`.
    private static func copy(_ b: UnsafeMutablePointer<UInt8>, _ start: Int, _ text: UnsafePointer<CChar>) -> Int {
        var i = start
        var p = text
        while p.pointee != 0 {
            i = put(b, i, UInt8(bitPattern: p.pointee))
            p += 1
        }
        return i
    }

    /// One line on stderr: "flight recorder: fatal signal 11; touch input written to N file(s) in DIR".
    private static func note(signal: Int32, files: Int) {
        guard let scratch, let messages else { return }
        var i = copy(scratch, 0, messages[0]!)
        i = decimal(scratch, i, Int64(signal), width: 1)
        i = copy(scratch, i, messages[1]!)
        i = decimal(scratch, i, Int64(files), width: 1)
        i = copy(scratch, i, messages[2]!)
        _ = Glibc.write(2, scratch, i)
    }
}
