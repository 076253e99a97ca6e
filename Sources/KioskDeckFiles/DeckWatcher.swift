import CardModel
import Glibc
import KioskSystem

/// Reloads the deck when its file changes, on the app's `EventLoop`, without a restart.
///
/// Watches the deck file's *directory* with inotify, because editors save by writing a new
/// file and renaming it over the old one (the old inode, and a watch on it, goes away).
/// Events for the deck's name are debounced (editors write, chmod and rename in quick
/// succession), then the file is loaded on a worker (reading and checking a deck and its images
/// never stalls the loop; one load at a time, a change during a load loads again after it): a
/// valid deck that differs from the current one is handed to `onChange` on the loop; an invalid
/// one is logged with every problem and the current deck stays.
///
/// On a network or shared-folder file system (9p — the virtual kiosk's view of the host's
/// folder —, NFS, SMB, FUSE/virtiofs: `RemoteFileSystem`, by statfs magic and mountinfo) inotify only reports changes
/// made through this machine, never an edit on the other side. There the watcher also polls:
/// every `pollInterval` seconds a background job `stat`s the deck (a hung server blocks that
/// job, never the loop; no second job starts while one is out), and a changed identity, size
/// or time starts the same debounced reload.
package final class DeckWatcher {
    let path: String
    let debounce: Double
    /// The deck on screen (the last valid one).
    private(set) var current: DeckFile?
    /// Problems of the last invalid version, nil after a valid load.
    private(set) var lastProblems: DeckProblems?
    /// How many loads after a change have finished (for tests and stats).
    private(set) var loadCount = 0
    /// The worker that reads the file; its result comes back on the loop.
    private var loads: LoopDelivery<Result<DeckFile, DeckProblems>>?
    /// A change came while a load was out: load again when it is back.
    private var loadAgain = false

    private let loop: EventLoop
    private let onChange: (DeckFile) -> Void
    private var fd: Int32 = -1
    private var loopToken: Int?
    private var debounceTimer: Int?
    private var rewatchTimer: Int?
    /// Watch descriptor → the file name in that directory we care about.
    private var watches: [Int32: String] = [:]
    /// The watch on the folder holding the deck's folder, when that folder is a symlink or
    /// missing (a fleet deck's `current`, replaced by rename): its event re-targets the watches.
    private var linkWatch: Int32?
    /// Seconds between polls, nil when inotify alone is trusted.
    package let pollInterval: Double?
    private var pollTimer: Int?
    private var lastSignature: FileSignature?
    private let pollResult = PollResult()

    /// How the watcher learns of changes: `.automatic` polls (every second) only where the deck's
    /// folder is on a `RemoteFileSystem`; `.poll(seconds)` always polls besides inotify.
    package enum Polling: Equatable, Sendable {
        case automatic
        case poll(Double)
    }

    /// Starts watching. `current` is the deck already loaded (nil if none was valid yet).
    /// `inotify: false` leaves only the poll, as on 9p for an edit on the host (for tests:
    /// a local file system always reports a local edit).
    package init(
        path: String, current: DeckFile?, loop: EventLoop, debounce: Double = 0.2, polling: Polling = .automatic,
        inotify: Bool = true, onChange: @escaping (DeckFile) -> Void
    ) throws(SystemCallError) {
        self.path = path
        self.current = current
        self.loop = loop
        self.debounce = debounce
        self.onChange = onChange
        switch polling {
        case .poll(let seconds):
            pollInterval = max(0.01, seconds)
        case .automatic:
            if let remote = RemoteFileSystem.of(PathName.directory(of: path)) {
                pollInterval = 1
                Log.info(
                    "deck: \(PathName.directory(of: path)) is on \(remote.name), where edits made elsewhere send no inotify event; checking \(PathName.baseName(of: path)) every second"
                )
            } else {
                pollInterval = nil
            }
        }
        fd = Int32(
            try retryingOnInterrupt("inotify_init1") { Int(inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))) })
        if inotify {
            addWatches()
            loopToken = loop.add(fd: fd) { [weak self] _ in self?.readEvents() }
        }
        if pollInterval != nil {
            lastSignature = FileSignature(path: path)
            schedulePoll()
        }
    }

    deinit {
        stop()
    }

    /// Stops watching and releases the inotify descriptor.
    package func stop() {
        if let t = loopToken { loop.remove(t) }
        if let t = debounceTimer { loop.cancelTimer(t) }
        if let t = rewatchTimer { loop.cancelTimer(t) }
        if let t = pollTimer { loop.cancelTimer(t) }
        pollTimer = nil
        loopToken = nil
        debounceTimer = nil
        rewatchTimer = nil
        if fd >= 0 { close(fd) }
        fd = -1
        loads = nil  // a load still out is not delivered
    }

    /// Watches the folder of the path as given and, when the deck is a symlink, the folder of
    /// its target (an edit of the target changes the deck too). When the deck's folder is
    /// itself a symlink, or not there yet, the folder holding it is watched for its name: a
    /// `current -> versions/X` link replaced by rename(2) reloads the deck (`ManagedDecks`).
    private func addWatches() {
        for (wd, _) in watches { inotify_rm_watch(fd, wd) }
        watches = [:]
        linkWatch = nil
        let folder = PathName.directory(of: path)
        var targets: [(String, String)] = []
        var st = stat()
        let folderMissing = stat(folder, &st) != 0
        let watchesLink = folderMissing || (lstat(folder, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK)
        if watchesLink {
            targets.append((PathName.directory(of: folder), PathName.baseName(of: folder)))
        }
        if !folderMissing { targets.append((folder, PathName.baseName(of: path))) }
        if let real = PathName.realPath(path), real != path {
            targets.append((PathName.directory(of: real), PathName.baseName(of: real)))
        }
        let mask =
            UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
            | UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        var failed = false
        for (i, (directory, name)) in targets.enumerated() {
            let wd = inotify_add_watch(fd, directory, mask)
            if wd < 0 {
                Log.warning(
                    "deck: cannot watch \(directory) for changes to \(name): \(Errno.current); retrying every 5 s")
                failed = true
            } else {
                if watchesLink && i == 0 { linkWatch = wd }
                watches[wd] = name
            }
        }
        if failed { scheduleRewatch() }
    }

    private func scheduleRewatch() {
        guard rewatchTimer == nil else { return }
        rewatchTimer = loop.schedule(at: MonotonicClock.now().advanced(bySeconds: 5)) { [weak self] in
            guard let self else { return }
            self.rewatchTimer = nil
            self.addWatches()
            self.scheduleReload()  // the file may have changed while unwatched
        }
    }

    /// Drains the inotify descriptor; a relevant event (re)starts the debounce timer.
    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var relevant = false
        var lostDirectory = false
        var retarget = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }  // EAGAIN: drained
            var offset = 0
            let headerSize = MemoryLayout<inotify_event>.size
            while offset + headerSize <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    let e = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (e.wd, e.mask, Int(e.len))
                }
                let nameBytes = buffer[(offset + headerSize)..<min(n, offset + headerSize + length)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                if mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
                // IN_IGNORED also follows our own inotify_rm_watch: only a current watch counts.
                if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0, watches[wd] != nil {
                    watches[wd] = nil
                    lostDirectory = true
                }
                if let wanted = watches[wd], name == wanted {
                    relevant = true
                    if wd == linkWatch { retarget = true }
                }
                offset += headerSize + length
            }
        }
        if retarget && !lostDirectory { addWatches() }
        if lostDirectory {
            Log.warning("deck: the folder of \(path) was removed or moved; watching for it again")
            scheduleRewatch()
        }
        if relevant { scheduleReload() }
    }

    /// One poll tick: takes the signature the last background `stat` found (a changed one
    /// starts the debounced reload) and, unless that job is still out, starts the next.
    private func schedulePoll() {
        guard let interval = pollInterval else { return }
        pollTimer = loop.schedule(at: MonotonicClock.now().advanced(bySeconds: interval)) { [weak self] in
            guard let self else { return }
            self.pollTimer = nil
            switch self.pollResult.take() {
            case .running:
                break
            case .idle:
                self.startStat()
            case .done(let signature):
                if signature != self.lastSignature {
                    self.lastSignature = signature
                    self.scheduleReload()
                }
                self.startStat()
            }
            self.schedulePoll()
        }
    }

    private func startStat() {
        pollResult.start()
        let path = path
        let result = pollResult
        BackgroundWork.run("deck-poll") { result.finish(FileSignature(path: path)) }
    }

    private func scheduleReload() {
        if let t = debounceTimer { loop.cancelTimer(t) }
        debounceTimer = loop.schedule(at: MonotonicClock.now().advanced(bySeconds: debounce)) { [weak self] in
            self?.debounceTimer = nil
            self?.reload()
        }
    }

    /// Reads the file on a worker; the result is taken on the loop (`loaded`). While a load is
    /// out, another request loads once more after it, so the last edit always wins.
    package func reload() {
        let loads =
            self.loads ?? LoopDelivery(loop: loop, what: "deck reload") { [weak self] in self?.loaded($0) }
        self.loads = loads
        guard loads.inFlight == 0 else {
            loadAgain = true
            return
        }
        let path = path
        loads.run("deck-reload") { DeckLoader.load(path: path) }
    }

    private func loaded(_ result: Result<DeckFile, DeckProblems>) {
        loadCount += 1
        if loadAgain {
            loadAgain = false
            reload()
            return
        }
        switch result {
        case .success(let deck):
            lastProblems = nil
            guard deck != current else { return }
            current = deck
            Log.info("deck: reloaded \(path): \(deck.summary)")
            onChange(deck)
        case .failure(let problems):
            lastProblems = problems
            let keeping = current.map { "keeping \($0.summary) on screen" } ?? "no valid deck yet"
            let count = problems.problems.count
            Log.error("deck: \(path) changed but has \(count) problem\(count == 1 ? "" : "s"); \(keeping):")
            for p in problems.problems { Log.error("  " + p.formatted(file: path)) }
        }
    }
}

/// What a poll compares: the file `stat` finds at the deck's path (a symlink followed), nil
/// when there is none.
struct FileSignature: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var changed: Int64

    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
    }
}

/// The background `stat`'s hand-over to the loop.
private final class PollResult: @unchecked Sendable {
    enum State {
        case idle
        case running
        case done(FileSignature?)
    }
    private let lock = Condition()
    private var state = State.idle

    func start() { lock.withLock { state = .running } }
    func finish(_ signature: FileSignature?) { lock.withLock { state = .done(signature) } }
    /// The state; a finished result is handed out once (the state is idle after).
    func take() -> State {
        lock.withLock {
            let now = state
            if case .done = now { state = .idle }
            return now
        }
    }
}
