import CardModel
import Glibc
import KioskFleet
import KioskSystem

/// What the heartbeat reports about the running kiosk: the poll loop writes a snapshot (a few
/// stores under a lock held for nanoseconds), the sync worker reads it and adds the board's
/// readings (files under /sys and /proc, read on the worker's thread, never the loop's).
final class FleetHealth: @unchecked Sendable {
    struct Snapshot: Hashable, Sendable {
        var deckApplied: String?
        var lastFlipMs: Int64?
        var lastTouchMs: Int64?
        var framesPerSecond: Double?
        var storageFailing = false
        /// The schedule has the kiosk closed now (nil: no schedule).
        var scheduleClosed: Bool?
        /// While closed: when it opens again (wall clock, ms).
        var opensAtMs: Int64?
    }

    /// Input → flip latencies of the last `Heartbeat.InputToFlip.window` seconds (a ring,
    /// guarded by the mutex): when the flip completed and the milliseconds from the kernel's
    /// input timestamp.
    private var latencies: [(at: Instant, ms: Double)] = []
    private var latencyNext = 0
    /// At most one window of touches at 120 Hz.
    static let latencyCapacity = Int(Heartbeat.InputToFlip.window) * 120

    private var snapshot = Snapshot()
    /// When a flip and a touch were last noted (poll loop only).
    private var flipNoted: Instant?
    private var touchNoted: Instant?
    /// Asks the decision store whether it is failing (thread-safe); set once before the worker starts.
    var storageFailing: (@Sendable () -> Bool)?
    private var mutex = pthread_mutex_t()

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    /// Changes the snapshot (poll loop).
    func update(_ body: (inout Snapshot) -> Void) {
        pthread_mutex_lock(&mutex)
        body(&snapshot)
        pthread_mutex_unlock(&mutex)
    }

    /// A flip at `t` (poll loop): the heartbeat's proof that frames reach the screen, its wall
    /// time and the frame rate, noted at most once a second (a lock and a clock read).
    /// `input`: the kernel's timestamp of the earliest input this flip is the first to show
    /// (nil: no input), kept for the heartbeat's touch-to-flip figures.
    func noteFlip(at t: Instant, input: Instant? = nil, framesPerSecond: () -> Double) {
        if let input { noteLatency(at: t, milliseconds: t.seconds(since: input) * 1000) }
        guard flipNoted.map({ t.seconds(since: $0) >= 1 }) ?? true else { return }
        flipNoted = t
        let (wall, fps) = (WallClock.nowMilliseconds(), framesPerSecond())
        update {
            $0.lastFlipMs = wall
            $0.framesPerSecond = fps
        }
    }

    /// One input → flip latency (poll loop): a store under the lock.
    func noteLatency(at t: Instant, milliseconds: Double) {
        pthread_mutex_lock(&mutex)
        if latencies.count < Self.latencyCapacity {
            latencies.append((t, milliseconds))
        } else {
            latencies[latencyNext] = (t, milliseconds)
        }
        latencyNext = (latencyNext + 1) % Self.latencyCapacity
        pthread_mutex_unlock(&mutex)
    }

    /// The touch-to-flip figures of the window before `now` (worker thread: copies under the
    /// lock, sorts outside it).
    func inputToFlip(now: Instant = MonotonicClock.now()) -> Heartbeat.InputToFlip? {
        pthread_mutex_lock(&mutex)
        let samples = latencies
        pthread_mutex_unlock(&mutex)
        let recent = samples.filter { now.seconds(since: $0.at) <= Heartbeat.InputToFlip.window }.map { $0.ms }
        return Heartbeat.InputToFlip(milliseconds: recent)
    }

    /// The schedule now (poll loop, at each look): closed or open, and when a closed kiosk opens.
    func noteSchedule(closed: Bool?, opensAtMs: Int64?) {
        update {
            $0.scheduleClosed = closed
            $0.opensAtMs = closed == true ? opensAtMs : nil
        }
    }

    /// A touch at `t` (poll loop), noted at most once a second.
    func noteTouch(at t: Instant) {
        guard touchNoted.map({ t.seconds(since: $0) >= 1 }) ?? true else { return }
        touchNoted = t
        let wall = WallClock.nowMilliseconds()
        update { $0.lastTouchMs = wall }
    }

    var current: Snapshot {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return snapshot
    }

    /// The heartbeat from the snapshot and the board (worker thread).
    func heartbeat() -> Heartbeat {
        let s = current
        var h = Self.standalone()
        h.deckApplied = s.deckApplied
        h.lastFlipMs = s.lastFlipMs
        h.lastTouchMs = s.lastTouchMs
        h.framesPerSecond = s.framesPerSecond
        h.storageFailing = s.storageFailing || storageFailing?() == true
        h.source = .app
        h.scheduleClosed = s.scheduleClosed
        h.opensAtMs = s.opensAtMs
        h.inputToFlip = inputToFlip()
        return h
    }

    /// A heartbeat with what is known without the kiosk running (`fleet sync`): its source is
    /// `sync`, so it never makes the kiosk count as online.
    static func standalone() -> Heartbeat {
        Heartbeat(
            sentAtMs: WallClock.nowMilliseconds(), appVersion: kioskCardsVersion, uptimeSeconds: uptimeSeconds(),
            cpuTemperatureC: cpuTemperature(), throttled: throttledFlags())
    }

    /// Seconds since boot (CLOCK_BOOTTIME: counts suspend too).
    static func uptimeSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec)
    }

    /// The CPU's temperature in °C: the thermal zone whose type names the CPU or SoC
    /// (cpu-thermal on a Pi, x86_pkg_temp on a PC), else zone 0; nil where there is none.
    static func cpuTemperature(root: String = "/sys/class/thermal") -> Double? {
        var fallback: Double?
        for n in 0..<16 {
            let zone = "\(root)/thermal_zone\(n)"
            guard let type = readLine(zone + "/type") else { break }
            guard let milli = readLine(zone + "/temp").flatMap({ Double($0) }) else { continue }
            let celsius = milli / 1000
            let t = type.lowercased()
            if t.contains("cpu") || t.contains("soc") || t.contains("pkg") { return celsius }
            if fallback == nil { fallback = celsius }
        }
        return fallback
    }

    /// The Raspberry Pi firmware's throttled bits ("0x50005": under-voltage, capped, throttled,
    /// and the same since boot) from the firmware driver's sysfs file; nil on other boards.
    static func throttledFlags(
        path: String = "/sys/devices/platform/soc/soc:firmware/get_throttled"
    ) -> String? {
        guard let line = readLine(path) else { return nil }
        let text = line.hasPrefix("0x") ? String(line.dropFirst(2)) : line
        guard let value = UInt32(text, radix: 16) else { return nil }
        return "0x" + String(value, radix: 16)
    }

    /// The first line of a small /sys or /proc file, nil when absent.
    static func readLine(_ path: String) -> String? {
        guard let bytes = try? FileIO.readAll(path, limit: 4096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        let line = text.split(whereSeparator: { $0 == "\n" }).first.map(String.init) ?? ""
        return line.isEmpty ? nil : line.trimmingCharacters(in: " \t")
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
