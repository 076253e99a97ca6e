import CardModel
import KioskSystem

/// When the next page flip may be issued: a pure policy over flip times (wlroots and
/// weston pace the same way; the numbers are ours).
///
/// At most one flip is in flight. On drivers with real vblank (vc4, vkms) a flip completes at
/// the next vblank, so the flip event itself paces the frames and the next flip may go at
/// once. On drivers whose flips complete as soon as they are issued (virtio-gpu, bochs, many SPI
/// panels) that would run as fast as the CPU allows, so the next flip waits until one refresh
/// period after the previous one. Which kind of driver this is comes from a hint (whether
/// `drmWaitVBlank` works) and is confirmed by flip timing: flips that keep completing within a
/// quarter period of being issued *and* less than ¾ of a period after the previous flip mean
/// there is no vblank wait. Latency alone proves nothing: with vblank, a frame that took most of
/// a period to draw is issued just before the next vblank and completes a moment later — but on
/// the vblank grid, at least a period after the previous flip, which no vblank-waiting flip can
/// beat.
package struct FramePacer: Sendable {
    package enum Kind: Hashable, Sendable {
        /// Flips wait for vblank: issue on each flip event.
        case vblank
        /// Flips complete at once: issue one period after the previous flip.
        case immediate
    }

    enum Decision: Hashable, Sendable {
        /// Issue the flip now.
        case now
        /// Wait until this instant (set a timer), then issue.
        case at(Instant)
        /// A flip is in flight; its completion (or the watchdog) decides.
        case waitForFlip
    }

    /// One refresh period of the mode, in nanoseconds.
    let periodNanoseconds: Int64
    /// How long a flip may stay in flight before the watchdog declares it lost.
    let watchdogNanoseconds: Int64
    private(set) var kind: Kind
    /// When the flip in flight was issued.
    private(set) var issuedAt: Instant?
    /// The timestamp of the last completed flip.
    private(set) var lastFlip: Instant?
    /// Consecutive flips that completed quickly (or slowly), for switching `kind`.
    private var quickStreak = 0
    private var slowStreak = 0
    /// Flips in a row that must agree before `kind` changes.
    static let streakToSwitch = 3

    /// False when the driver has no vblank at all (`drmWaitVBlank` fails): its flips cannot
    /// wait for one, so `kind` stays `.immediate` however long a flip takes on a busy system.
    let mayHaveVblank: Bool

    init(periodNanoseconds: Int64, kind: Kind, mayHaveVblank: Bool = true, watchdogNanoseconds: Int64 = 1_000_000_000) {
        self.periodNanoseconds = max(1, periodNanoseconds)
        self.kind = mayHaveVblank ? kind : .immediate
        self.mayHaveVblank = mayHaveVblank
        self.watchdogNanoseconds = watchdogNanoseconds
    }

    var isFlipPending: Bool { issuedAt != nil }

    /// May a flip be issued at `now`?
    func decision(now: Instant) -> Decision {
        if issuedAt != nil { return .waitForFlip }
        guard kind == .immediate, let lastFlip else { return .now }
        let next = Instant(nanoseconds: lastFlip.nanoseconds + periodNanoseconds)
        return now >= next ? .now : .at(next)
    }

    /// When the flip in flight counts as lost; nil when none is in flight.
    var watchdogDeadline: Instant? {
        issuedAt.map { Instant(nanoseconds: $0.nanoseconds + watchdogNanoseconds) }
    }

    /// A flip was issued at `now`.
    mutating func flipIssued(at now: Instant) {
        precondition(issuedAt == nil, "a second flip while one is in flight")
        issuedAt = now
    }

    /// The flip in flight completed with the event's `timestamp`.
    mutating func flipCompleted(timestamp: Instant) {
        guard let issued = issuedAt else { return }
        issuedAt = nil
        let latency = timestamp.nanoseconds - issued.nanoseconds
        // A flip is "quick" when it did not wait for a vblank: it completed soon after it was
        // issued, sooner after the previous flip than the next vblank could come. (Without a
        // previous flip, latency is all there is.) Three quick ones in a row are not chance.
        let sincePrevious = lastFlip.map { timestamp.nanoseconds - $0.nanoseconds }
        let beatTheRefresh = sincePrevious.map { $0 < periodNanoseconds * 3 / 4 } ?? true
        if latency < periodNanoseconds / 4, beatTheRefresh {
            quickStreak += 1
            slowStreak = 0
        } else if latency > periodNanoseconds / 2 {
            slowStreak += 1
            quickStreak = 0
        }
        if kind == .vblank, quickStreak >= Self.streakToSwitch {
            kind = .immediate
        } else if kind == .immediate, mayHaveVblank, slowStreak >= Self.streakToSwitch {
            kind = .vblank
        }
        // A timestamp before the previous one (a clock mix-up) must not stall pacing.
        if let last = lastFlip, timestamp < last {
            lastFlip = issued
        } else {
            lastFlip = timestamp
        }
    }

    /// The watchdog fired: the flip in flight is given up (the driver lost it); pacing goes on
    /// as if it had completed at `now`.
    mutating func flipLost(now: Instant) {
        issuedAt = nil
        lastFlip = now
        quickStreak = 0
        slowStreak = 0
    }
}
