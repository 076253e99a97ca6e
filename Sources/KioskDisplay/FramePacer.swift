import CardModel
import KioskSystem

/// When the next frame is drawn and its page flip issued: a pure policy over flip times and
/// frame costs (wlroots and weston pace the same way, mutter's frame clock latches late the
/// same way; the numbers are ours).
///
/// At most one flip is in flight. On drivers with real vblank (vc4, vkms) a flip completes at
/// the next vblank, so the flip event itself paces the frames. On drivers whose flips complete
/// as soon as they are issued (virtio-gpu, bochs, many SPI panels) that would run as fast as the
/// CPU allows, so the next flip waits until one refresh period after the previous one. Which
/// kind of driver this is comes from a hint (whether `drmWaitVBlank` works) and is confirmed by
/// flip timing: flips that keep completing within a quarter period of being issued *and* less
/// than ¾ of a period after the previous flip mean there is no vblank wait. Latency alone
/// proves nothing: with vblank, a frame that took most of a period to draw is issued just
/// before the next vblank and completes a moment later — but on the vblank grid, at least a
/// period after the previous flip, which no vblank-waiting flip can beat.
///
/// **Latching late** (vblank drivers). A frame drawn as soon as a flip completes is shown a
/// period later, and a touch that arrives while it is drawn waits for the frame after it: up
/// to two periods from touch to screen. The pacer knows the vblank grid (the last flip's
/// timestamp plus whole periods) and what frames cost (from the frame callback to the flip
/// issued; the longest of the last `costsKept`), so it starts each frame `latchBudget` before
/// the next vblank — that longest frame plus a margin for the driver's commit and the
/// scheduler — and the frame shows the newest touch yet makes that vblank. A frame issued in
/// time that still missed its vblank widens the margin; a run of frames on time narrows it
/// again. When frames cost most of a period there is nothing to gain: they are drawn at once.
package struct FramePacer: Sendable {
    package enum Kind: Hashable, Sendable {
        /// Flips wait for vblank: issue on each flip event.
        case vblank
        /// Flips complete at once: issue one period after the previous flip.
        case immediate
    }

    enum Decision: Hashable, Sendable {
        /// Issue the flip (or draw the frame) now.
        case now
        /// Wait until this instant (set a timer), then issue (or draw).
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

    /// The costs of the last frames (frame callback → flip issued), nanoseconds, oldest first.
    private(set) var recentCosts: [Int64] = []
    /// How many frame costs the latch budget looks back over (half a second at 60 Hz).
    static let costsKept = 30
    /// Frames measured before the pacer latches late at all.
    static let costsToLatch = 4
    /// Time kept free before the vblank on top of the longest recent frame, nanoseconds.
    private(set) var marginNanoseconds: Int64
    /// The vblank the frame in flight was drawn for, when the grid was known.
    private var target: Instant?
    /// Latched frames in a row that made their vblank (to narrow a widened margin again).
    private var onTimeStreak = 0
    /// Frames issued before their vblank that still missed it (each widened the margin).
    private(set) var lateFlips = 0
    /// How long after a flip its vblank grid is trusted for latching (beyond: draw at once).
    static let gridHorizonNanoseconds: Int64 = 1_000_000_000
    /// On-time latched frames after which a widened margin narrows by one step.
    static let onTimeToNarrow = 120

    init(periodNanoseconds: Int64, kind: Kind, mayHaveVblank: Bool = true, watchdogNanoseconds: Int64 = 1_000_000_000) {
        self.periodNanoseconds = max(1, periodNanoseconds)
        self.kind = mayHaveVblank ? kind : .immediate
        self.mayHaveVblank = mayHaveVblank
        self.watchdogNanoseconds = watchdogNanoseconds
        marginNanoseconds = Self.baseMargin(period: self.periodNanoseconds)
    }

    /// The margin latching starts with: an eighth of a period, at least 2 ms.
    static func baseMargin(period: Int64) -> Int64 { max(2_000_000, period / 8) }

    var isFlipPending: Bool { issuedAt != nil }

    /// May a flip be issued at `now`?
    func decision(now: Instant) -> Decision {
        if issuedAt != nil { return .waitForFlip }
        guard kind == .immediate, let lastFlip else { return .now }
        let next = Instant(nanoseconds: lastFlip.nanoseconds + periodNanoseconds)
        return now >= next ? .now : .at(next)
    }

    /// When to draw the next frame that is wanted at `now`: on timer-paced drivers when its flip
    /// may go; with vblank at the latch point before the next vblank (`.now` once that passed,
    /// or when the grid or the frames' cost is not known).
    func frameDecision(now: Instant) -> Decision {
        let mayFlip = decision(now: now)
        guard mayFlip == .now, kind == .vblank, let latch = latchPoint(after: now), latch > now else { return mayFlip }
        return .at(latch)
    }

    /// What is kept free before a vblank: the longest recent frame plus the margin; nil until
    /// `costsToLatch` frames were measured.
    var latchBudgetNanoseconds: Int64? {
        guard recentCosts.count >= Self.costsToLatch, let longest = recentCosts.max() else { return nil }
        return longest + marginNanoseconds
    }

    /// The next vblank after `now` on the grid of the last flip; nil when there was none
    /// within `gridHorizonNanoseconds` (or the clock went backwards).
    func nextVblank(after now: Instant) -> Instant? {
        guard let lastFlip else { return nil }
        let since = now.nanoseconds - lastFlip.nanoseconds
        guard since >= 0, since < Self.gridHorizonNanoseconds else { return nil }
        return Instant(nanoseconds: lastFlip.nanoseconds + (since / periodNanoseconds + 1) * periodNanoseconds)
    }

    /// The instant a frame must start to make the next vblank after `now`; nil when latching
    /// does not apply (no grid, no costs yet, or frames that take (nearly) a whole period).
    func latchPoint(after now: Instant) -> Instant? {
        guard let budget = latchBudgetNanoseconds, budget < periodNanoseconds, let vblank = nextVblank(after: now)
        else { return nil }
        return Instant(nanoseconds: vblank.nanoseconds - budget)
    }

    /// When the flip in flight counts as lost; nil when none is in flight.
    var watchdogDeadline: Instant? {
        issuedAt.map { Instant(nanoseconds: $0.nanoseconds + watchdogNanoseconds) }
    }

    /// A flip was issued at `now`, for a frame whose callback began at `frameStarted` (nil: a
    /// present outside a frame callback; its cost is not known).
    mutating func flipIssued(at now: Instant, frameStarted: Instant? = nil) {
        precondition(issuedAt == nil, "a second flip while one is in flight")
        issuedAt = now
        target = nil
        guard let frameStarted, now >= frameStarted else { return }
        recentCosts.append(now.nanoseconds - frameStarted.nanoseconds)
        if recentCosts.count > Self.costsKept { recentCosts.removeFirst(recentCosts.count - Self.costsKept) }
        if kind == .vblank, let vblank = nextVblank(after: frameStarted), now < vblank { target = vblank }
    }

    /// The flip in flight completed with the event's `timestamp`.
    mutating func flipCompleted(timestamp: Instant) {
        guard let issued = issuedAt else { return }
        issuedAt = nil
        noteDeadline(timestamp: timestamp)
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

    /// A frame issued before the vblank it was drawn for, whose flip completed half a period
    /// or more after it, missed it: the margin was too small for this driver and system.
    private mutating func noteDeadline(timestamp: Instant) {
        guard let target else { return }
        self.target = nil
        if timestamp.nanoseconds >= target.nanoseconds + periodNanoseconds / 2 {
            lateFlips += 1
            onTimeStreak = 0
            marginNanoseconds = min(periodNanoseconds, marginNanoseconds + periodNanoseconds / 8)
        } else {
            onTimeStreak += 1
            let base = Self.baseMargin(period: periodNanoseconds)
            if onTimeStreak >= Self.onTimeToNarrow, marginNanoseconds > base {
                marginNanoseconds = max(base, marginNanoseconds - periodNanoseconds / 8)
                onTimeStreak = 0
            }
        }
    }

    /// The watchdog fired: the flip in flight is given up (the driver lost it); pacing goes on
    /// as if it had completed at `now`.
    mutating func flipLost(now: Instant) {
        issuedAt = nil
        target = nil
        lastFlip = now
        quickStreak = 0
        slowStreak = 0
    }
}
