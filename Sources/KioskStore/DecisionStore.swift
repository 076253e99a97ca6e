import Glibc
import KioskSystem

/// Stores decisions durably without ever blocking the frame loop.
///
/// `enqueue` appends to an in-memory inbox under a lock held for a few instructions and
/// returns; the writer thread swaps the whole inbox for an empty one (O(1) under the lock),
/// writes it in batches, one SQLite transaction each (WAL, synchronous=FULL), and only then
/// drops them and counts them stored. So a decision reported stored (`status.storedThrough`, `onStored`) is on disk,
/// and one not yet stored is still in memory.
///
/// When the database cannot be written (disk full, read-only, directory missing or not
/// writable) the writer logs what is wrong and how to fix it, keeps the decisions queued (up
/// to `capacity`; beyond that new ones are refused and counted in `dropped`), and retries every
/// `retryInterval` seconds. Batches carry unique ids and are inserted with INSERT OR IGNORE, so
/// a retry after a COMMIT whose outcome was unknown never duplicates a row.
package final class DecisionStore: @unchecked Sendable {
    /// What the store has done so far (a snapshot).
    package struct Status: Hashable, Sendable {
        /// Accepted and not yet committed (in memory).
        package var pending: Int
        /// Decisions committed since this store started (visits and events are not counted).
        package var stored: Int
        /// Every ticket up to and including this one is committed (0: none yet).
        var storedThrough: UInt64
        /// Refused by `enqueue` because `capacity` decisions were already pending.
        var dropped: Int
        /// True while the database cannot be written; decisions wait in memory.
        package var failing: Bool
        /// The latest failure, with its fix.
        package var lastError: String?

        /// For `systemctl status` (sd_notify STATUS=) and the stats line.
        var summary: String {
            var s = "decisions: \(stored) stored"
            if pending > 0 { s += ", \(pending) pending" }
            if dropped > 0 { s += ", \(dropped) dropped" }
            if failing { s += " — storage failing, see the log" }
            return s
        }
    }

    let dataDirectory: String
    package let databasePath: String
    let capacity: Int
    let batchLimit: Int
    let retryInterval: Double
    /// Called on the writer thread after each commit with the new `storedThrough`.
    private let onStored: (@Sendable (UInt64) -> Void)?

    // Guarded by `sync`.
    private typealias Entry = (ticket: UInt64, item: StoreItem)
    /// Fixed-size chunks, so an append never copies the decisions already waiting (a growing
    /// flat array would move megabytes at once while the writer is stuck).
    private var inbox: [[Entry]] = []
    private static let chunkSize = 512
    private var nextTicket: UInt64 = 1
    private var status = Status(
        pending: 0, stored: 0, storedThrough: 0, dropped: 0, failing: false, lastError: nil)
    private var stopping = false
    private var writerWaiting = false
    /// Visits to mark discarded once every decision enqueued before the request is written.
    private var discardRequests: [String] = []

    /// Guards the state above; the writer thread sleeps on it (CLOCK_MONOTONIC timed waits).
    private let sync = Condition()
    private var writer: BackgroundJob?
    /// Distinguishes this process's batches from other runs' in the `uid` column.
    private let uidPrefix = RandomID.hex(RandomID.bytes(8))

    /// Starts the writer thread. Nothing is opened yet; the writer opens the database (and
    /// creates `dataDirectory` if its parent exists) on its own thread.
    package init(
        dataDirectory: String, capacity: Int = 50_000, batchLimit: Int = 512, retryInterval: Double = 5,
        onStored: (@Sendable (UInt64) -> Void)? = nil
    ) {
        self.dataDirectory = dataDirectory
        self.databasePath = DecisionDatabase.path(dataDirectory: dataDirectory)
        self.capacity = max(1, capacity)
        self.batchLimit = max(1, batchLimit)
        self.retryInterval = retryInterval
        self.onStored = onStored
        startWriter()
    }

    deinit {
        close()
    }

    private func locked<T>(_ body: () -> T) -> T {
        sync.lock()
        defer { sync.unlock() }
        return body()
    }

    // MARK: - Frame-loop side

    /// Queues `record` for the writer; O(1) amortised, never waits for I/O.
    /// Returns its ticket, or nil when `capacity` decisions are already pending (the
    /// decision is dropped and counted; the writer has logged why it cannot write).
    @discardableResult
    package func enqueue(_ record: DecisionRecord) -> UInt64? {
        enqueue(item: .decision(record))
    }

    /// Queues a visit's start or end (like `enqueue`; visits share the decisions' queue, so
    /// they are stored in the order they happened).
    @discardableResult
    package func enqueue(visit: VisitRecord) -> UInt64? { enqueue(item: .visit(visit)) }

    /// Queues a kiosk event (the attract screen appeared).
    @discardableResult
    package func enqueue(event: KioskEventRecord) -> UInt64? { enqueue(item: .event(event)) }

    /// Queues a decision, a visit or an event (a visit recorder's output).
    @discardableResult
    package func enqueue(item: StoreItem) -> UInt64? {
        sync.lock()
        if status.pending >= capacity {
            status.dropped += 1
            let dropped = status.dropped
            sync.unlock()
            if dropped == 1 || dropped % 1000 == 0 {
                Log.error(
                    "decision store: \(capacity) decisions are waiting for \(databasePath); dropped \(dropped)"
                        + " new ones. Fix the database problem logged above.")
            }
            return nil
        }
        let ticket = nextTicket
        nextTicket += 1
        if inbox.isEmpty || inbox[inbox.count - 1].count >= Self.chunkSize {
            var chunk: [Entry] = []
            chunk.reserveCapacity(Self.chunkSize)
            inbox.append(chunk)
        }
        inbox[inbox.count - 1].append((ticket, item))
        status.pending += 1
        let wake = writerWaiting
        sync.unlock()
        if wake { sync.signal() }
        return ticket
    }

    /// Marks every decision of visit `sessionID` discarded (the deck's `discard` policy), after
    /// all decisions queued so far are written; never deletes. O(1), never waits for I/O.
    package func discardVisit(sessionID: String) {
        let wake = locked {
            discardRequests.append(sessionID)
            return writerWaiting
        }
        if wake { sync.signal() }
    }

    package var currentStatus: Status { locked { status } }

    /// Waits until nothing is pending or `timeout` seconds pass; true when all were stored.
    /// For shutdown and tests, never for the frame loop.
    package func flush(timeout: Double) -> Bool {
        let deadline = MonotonicClock.now().advanced(bySeconds: timeout)
        while true {
            if locked({ status.pending == 0 }) { return true }
            if MonotonicClock.now() >= deadline { return false }
            usleep(2000)
        }
    }

    /// Waits until nothing is pending for as long as the writer makes progress; false when
    /// nothing was stored for `stall` seconds while decisions were pending (the database is
    /// failing or stuck). For tools and tests on machines of any speed, never for the frame loop.
    package func flush(stalledFor stall: Double) -> Bool {
        var storedThrough = locked { status.storedThrough }
        var lastProgress = MonotonicClock.now()
        while true {
            let (pending, through) = locked { (status.pending, status.storedThrough) }
            if pending == 0 { return true }
            let now = MonotonicClock.now()
            if through != storedThrough {
                storedThrough = through
                lastProgress = now
            } else if now.seconds(since: lastProgress) >= stall {
                return false
            }
            usleep(2000)
        }
    }

    /// Stops the writer after one last attempt to store what is pending; logs anything left.
    package func close() {
        guard let writer else { return }
        locked { stopping = true }
        sync.signal()
        writer.wait()
        self.writer = nil
        let left = locked { status.pending }
        if left > 0 {
            Log.error("decision store: \(left) decisions could not be stored in \(databasePath) and are lost")
        }
    }

    // MARK: - Writer thread

    private func startWriter() {
        writer = BackgroundWork.run("decision-store") {
            // Below the frame loop: when an enqueue wakes the writer, the scheduler should
            // not switch to it in the middle of a frame (Linux nice is per thread).
            ThreadPriority.setCurrentThreadNice(10)
            self.writerMain()
        }
    }

    private typealias Batch = (
        items: [(uid: String, item: StoreItem)], lastTicket: UInt64, discarding: [String]
    )

    // Writer-thread state.
    private var retryAt: Double?
    private var lastReport = -Double.infinity
    /// Taken from the inbox, not yet committed, in ticket order (only the writer touches it).
    private var backlog: [Entry] = []
    private var backlogHead = 0
    /// The empty array swapped into the inbox, so neither side allocates while holding the lock.
    private var spare: [[Entry]] = []
    /// Discard requests taken from the frame loop, not yet committed; every decision they
    /// concern is in `backlog` or already stored.
    private var discardsTaken: [String] = []

    /// Waits for work (and, after a failure, for the retry time); nil when stopping with
    /// nothing to do. While stopping, pending decisions get one more attempt.
    private func takeBatch(stoppingAttemptMade: Bool) -> Batch? {
        sync.lock()
        while true {
            let pending =
                (inbox.isEmpty ? 0 : 1) + backlog.count - backlogHead + discardRequests.count + discardsTaken.count
            if stopping {
                if pending == 0 || stoppingAttemptMade {
                    sync.unlock()
                    return nil
                }
                break
            }
            if pending > 0 {
                guard let at = retryAt else { break }
                if MonotonicClock.now().seconds >= at { break }
                wait(until: at)
            } else {
                wait(until: nil)
            }
        }
        swap(&inbox, &spare)  // O(1): the frame loop gets an empty inbox with spare capacity
        // Taken with the inbox under one lock: every decision of these visits is now ours.
        discardsTaken += discardRequests
        discardRequests.removeAll()
        let stored = status.storedThrough
        sync.unlock()

        if !spare.isEmpty {
            if backlogHead > 0 && backlogHead == backlog.count {
                backlog.removeAll(keepingCapacity: true)
                backlogHead = 0
            }
            for chunk in spare { backlog.append(contentsOf: chunk) }
            spare.removeAll(keepingCapacity: true)
        }
        let end = min(backlog.count, backlogHead + batchLimit)
        let items = backlog[backlogHead..<end].map { (uid: "\(uidPrefix)-\($0.ticket)", item: $0.item) }
        // Marks go with the batch that holds the last decision queued before them.
        let discarding = end == backlog.count ? discardsTaken : []
        return (items, end > backlogHead ? backlog[end - 1].ticket : stored, discarding)
    }

    /// The writer's loop: open the database, then write batches until something fails; after a
    /// failure close it, wait `retryInterval`, and open it again.
    private func writerMain() {
        var attemptedWhileStopping = false
        while let first = takeBatch(stoppingAttemptMade: attemptedWhileStopping) {
            attemptedWhileStopping = locked { stopping }
            let db: SQLiteDatabase
            do {
                makeDataDirectory()
                db = try DecisionDatabase.openForWriting(dataDirectory: dataDirectory)
            } catch {
                failed(error)
                continue
            }
            var batch = first
            while true {
                do {
                    try DecisionDatabase.insert(items: batch.items, discarding: batch.discarding, into: db)
                } catch {
                    failed(error)
                    break  // closes `db`
                }
                committed(batch)
                guard let next = takeBatch(stoppingAttemptMade: false) else { return }
                batch = next
            }
        }
    }

    /// Drops a committed batch and reports it.
    private func committed(_ batch: Batch) {
        retryAt = nil
        discardsTaken.removeFirst(batch.discarding.count)
        if !batch.discarding.isEmpty {
            Log.info("decision store: marked the decisions of \(batch.discarding.count) visit(s) discarded")
        }
        guard !batch.items.isEmpty else { return }
        backlogHead += batch.items.count
        if backlogHead == backlog.count {
            backlog.removeAll(keepingCapacity: true)
            backlogHead = 0
        } else if backlogHead > 4096 && backlogHead * 2 > backlog.count {
            backlog.removeFirst(backlogHead)
            backlogHead = 0
        }
        var decisions = 0
        for (_, item) in batch.items {
            if case .decision = item { decisions += 1 }
        }
        let (recovered, pendingAfter) = locked {
            status.pending -= batch.items.count
            status.stored += decisions
            status.storedThrough = batch.lastTicket
            let was = status.failing
            status.failing = false
            return (was, status.pending)
        }
        if recovered {
            Log.info("decision store: writing to \(databasePath) again; \(pendingAfter) still pending")
        }
        onStored?(batch.lastTicket)
    }

    /// Records a failure, logs it (at once, then at most once a minute) and sets the retry time.
    private func failed(_ error: SQLiteError) {
        let now = MonotonicClock.now().seconds
        let message = Self.advice(for: error, dataDirectory: dataDirectory)
        let (wasFailing, pending) = locked {
            let was = status.failing
            status.failing = true
            status.lastError = message
            return (was, status.pending)
        }
        if !wasFailing || now - lastReport >= 60 {
            Log.error(
                "decision store: \(message). \(pending) decision\(pending == 1 ? "" : "s") kept in memory"
                    + " (room for \(capacity)); retrying every \(jsonNumber(retryInterval, decimals: 3)) s.")
            lastReport = now
        }
        retryAt = now + retryInterval
    }

    /// Waits on `sync` (held) until signalled or the monotonic time `at`.
    private func wait(until at: Double?) {
        writerWaiting = true
        defer { writerWaiting = false }
        guard let at else {
            sync.wait()
            return
        }
        _ = sync.wait(untilNanoseconds: Int64(at * 1e9))
    }

    /// Creates the data directory if it is missing (its parent must exist).
    private func makeDataDirectory() {
        if mkdir(dataDirectory, 0o750) != 0 && errno != EEXIST {
            // Opening the database reports the real problem with its path.
        }
    }

    /// What is really wrong: SQLite reports a read-only file system opened for reading as
    /// "unable to open" (it cannot create the -shm file), so ask the directory itself.
    static func diagnose(_ error: SQLiteError, dataDirectory: String) -> SQLiteError.Fault {
        if access(dataDirectory, W_OK) != 0 {
            if errno == EROFS || errno == EACCES || errno == EPERM { return .readOnly }
        }
        var fs = statvfs()
        if statvfs(dataDirectory, &fs) == 0 {
            if fs.f_flag & UInt(ST_RDONLY) != 0 { return .readOnly }
            if fs.f_bavail == 0 && error.fault != .readOnly { return .diskFull }
        }
        return error.fault
    }

    /// The failure in words, with the operator's fix.
    static func advice(for error: SQLiteError, dataDirectory: String) -> String {
        let path = DecisionDatabase.path(dataDirectory: dataDirectory)
        let fix: String
        switch diagnose(error, dataDirectory: dataDirectory) {
        case .diskFull:
            fix =
                "the disk holding \(dataDirectory) is full — free space there (e.g. journalctl --vacuum-size=50M, remove old exports)"
        case .readOnly:
            fix =
                "\(dataDirectory) is read-only for this process — make it writable by the service user"
                + " (chown kiosk: \(dataDirectory); the unit's ReadWritePaths=; a read-only or failing SD card)"
        case .cannotOpen:
            fix =
                "cannot open \(path) — create \(dataDirectory) and make it writable by the service user"
                + " (install-rpi.sh does), or point --data / 'data' elsewhere"
        case .busy where error.call == "flock":
            fix = error.message  // names the other writer's pid and the fix
        case .busy:
            fix = "\(path) is locked by another program — stop it (fuser -v \(path))"
        case .ioError:
            fix = "I/O error on \(path) — the storage may be failing; check dmesg"
        case .corrupt:
            fix = "\(path) is damaged — stop the kiosk, move the file away (keep it for recovery), and restart"
        case .other:
            fix = "cannot write \(path)"
        }
        return "\(fix) [\(error)]"
    }
}
