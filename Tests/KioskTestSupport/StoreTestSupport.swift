import CardModel
import Glibc

@testable import KioskStore
@testable import KioskSystem

/// Real processes, real mounts and real SQLite files for the store tests.
package enum StoreTestSupport {
    /// The KioskCards executable built beside the tests (`swift build --build-tests` builds it):
    /// `$KIOSK_TEST_EXECUTABLE` if set, else `KioskCards` in the test binary's own directory
    /// (so `--scratch-path`, release and cross builds find theirs), else `.build/debug`.
    package static let executable: String = {
        if let path = getenv("KIOSK_TEST_EXECUTABLE") { return String(cString: path) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let binary = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = binary.lastIndex(of: "/") {
                let beside = String(binary[..<slash]) + "/KioskCards"
                if access(beside, X_OK) == 0 { return beside }
            }
        }
        return DeckFixtures.packageRoot + "/.build/debug/KioskCards"
    }()

    package static var executableExists: Bool { access(executable, X_OK) == 0 }

    /// A child process with its stdout on a pipe (stderr goes to `stderrPath`).
    package struct Child {
        package var pid: pid_t
        package var stdout: Int32
    }

    /// `environment`: "NAME=value" entries that replace or add to this process's environment in
    /// the child's (this process's own stays as it is: tests running at once read it).
    package static func spawn(
        _ arguments: [String], stderrPath: String = "/dev/null", environment: [String] = []
    ) -> Child? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        // Close-on-exec so children spawned by parallel tests do not hold our write end open.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let names = Set(environment.map { $0.prefix { $0 != "=" } })
        var inherited: [String] = []
        var e = environ
        while let p = e.pointee {
            let entry = String(cString: p)
            if !names.contains(entry.prefix { $0 != "=" }) { inherited.append(entry) }
            e += 1
        }
        let envp = (inherited + environment).map { strdup($0) } + [nil]
        defer { for p in envp { free(p) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            return nil
        }
        return Child(pid: pid, stdout: fds[0])
    }

    /// Runs the executable to completion; returns its exit status and stdout (stderr goes to
    /// `stderrPath`).
    package static func run(_ arguments: [String], stderrPath: String = "/dev/null", environment: [String] = []) -> (
        status: Int32, stdout: [UInt8]
    )? {
        guard let child = spawn(arguments, stderrPath: stderrPath, environment: environment) else { return nil }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(child.stdout, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        close(child.stdout)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xFF, out)
    }

    /// A record with awkward text in every string field.
    package static func record(_ n: Int, session: String = "s-1") -> DecisionRecord {
        let awkward = ["plain", "comma,inside", "quote\"inside", "line\nbreak", "crlf\r\nx", "Grüße 😀", "", "  "]
        return DecisionRecord(
            kioskID: "kiosk \(awkward[n % awkward.count])", sessionID: session, deckID: "deck-\(n % 3)",
            deckVersion: 1 + n % 4, cardID: "card-\(n)-\(awkward[(n / 2) % awkward.count])",
            action: DecisionAction.allCases[n % DecisionAction.allCases.count],
            wallTimeMs: 1_714_521_600_000 + Int64(n) * 1234, monotonicNs: 5_000_000_000 + Int64(n) * 987_654_321,
            dwellMs: Int64(n * 37 % 10_000))
    }

    /// All rows of the decisions database in `directory`.
    package static func rows(_ directory: String, since: Int64? = nil) throws -> [DecisionDatabase.Row] {
        var rows: [DecisionDatabase.Row] = []
        try DecisionDatabase.forEachRow(dataDirectory: directory, sinceMs: since) { rows.append($0) }
        return rows
    }

    package static func integrityCheck(_ directory: String) throws -> String? {
        let db = try SQLiteDatabase(path: DecisionDatabase.path(dataDirectory: directory), create: false)
        return try db.scalarText("PRAGMA integrity_check")
    }

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, as in CI containers here).
    package static let canMount: Bool = {
        let dir = DeckFixtures.temporaryDirectory("mountprobe")
        defer { DeckFixtures.removeTree(dir) }
        guard mount("tmpfs", dir, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount2(dir, Int32(MNT_DETACH))
        return true
    }()

    package static func mountTmpfs(_ dir: String, kilobytes: Int) -> Bool {
        mount("tmpfs", dir, "tmpfs", 0, "size=\(kilobytes)k,mode=0755") == 0
    }

    /// Remounts `dir`. A read-only remount fails with EBUSY while any process holds a file on
    /// it open for writing, and a child that another test is spawning holds copies of this
    /// process's descriptors until its exec closes them; so EBUSY is retried for up to 5 s.
    package static func remount(_ dir: String, readOnly: Bool, kilobytes: Int) -> Bool {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        for _ in 0..<250 {
            if mount("tmpfs", dir, "tmpfs", flags, "size=\(kilobytes)k") == 0 { return true }
            guard errno == EBUSY else { return false }
            usleep(20_000)
        }
        return false
    }

    package static func unmount(_ dir: String) {
        umount2(dir, Int32(MNT_DETACH))
    }

    /// Writes zeros to `path` until the file system is full; returns the bytes written.
    package static func fillDisk(_ path: String) -> Int {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while true {
            let n = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            total += n
        }
        return total
    }

    /// Polls `condition` every 10 ms for up to `seconds`.
    package static func waitFor(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.now().advanced(bySeconds: seconds)
        while MonotonicClock.now() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
