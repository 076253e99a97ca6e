import CardModel
import Glibc
import KioskTestSupport
import Testing

@testable import KioskDeckFiles
@testable import KioskSystem

/// Hot reload with real files, real inotify and the real EventLoop.
@Suite struct DeckWatcherTests {
    func deckText(title: String, colour: String = "#336699") -> String {
        """
        {
          "id": "hot",
          "version": 1,
          "title": "\(title)",
          "layout": "stack",
          "cards": [{ "id": "a", "title": "A", "color": "\(colour)" }]
        }
        """
    }

    /// Saves like an editor: write a temporary file, then rename it over the deck.
    func saveByRename(_ text: String, to path: String) {
        let temp = PathName.directory(of: path) + "/.deck.json.swp"
        DeckFixtures.write(text, to: temp)
        #expect(rename(temp, path) == 0)
    }

    /// Runs the loop until `condition` holds or `seconds` pass.
    func drive(_ loop: EventLoop, seconds: Double, until condition: () -> Bool = { false }) {
        let deadline = MonotonicClock.now().advanced(bySeconds: seconds)
        while !condition() && MonotonicClock.now() < deadline { loop.runOnce(maxWait: 0.02) }
    }

    /// The file is read on a worker, so the loop is free meanwhile; a change that comes while a
    /// load is out loads again, and the last version wins (not the one the first load read).
    @Test func aChangeDuringALoadLoadsAgainAndTheLastVersionWins() throws {
        let dir = DeckFixtures.temporaryDirectory("watch-busy")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        DeckFixtures.write(deckText(title: "Start"), to: path)
        let loop = EventLoop()
        var received: [String] = []
        let watcher = try DeckWatcher(
            path: path, current: try DeckLoader.load(path: path).get(), loop: loop, inotify: false
        ) { received.append($0.title) }
        defer { watcher.stop() }

        saveByRename(deckText(title: "A"), to: path)
        watcher.reload()
        // The worker reads "A"; its result waits until the loop runs again.
        usleep(300_000)
        #expect(received.isEmpty && watcher.loadCount == 0)
        saveByRename(deckText(title: "B"), to: path)
        watcher.reload()
        drive(loop, seconds: 5) { !received.isEmpty }
        drive(loop, seconds: 0.3)
        #expect(received == ["B"])
        #expect(watcher.loadCount == 2)
    }

    @Test func validEditReloadsInvalidEditKeepsTheOldDeck() throws {
        let dir = DeckFixtures.temporaryDirectory("watch")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        DeckFixtures.write(deckText(title: "Erste"), to: path)
        let first = try DeckLoader.load(path: path).get()

        let loop = EventLoop()
        var received: [DeckFile] = []
        let watcher = try DeckWatcher(path: path, current: first, loop: loop, debounce: 0.05) { received.append($0) }
        defer { watcher.stop() }

        // A valid edit, saved by rename.
        saveByRename(deckText(title: "Zweite"), to: path)
        drive(loop, seconds: 5) { !received.isEmpty }
        #expect(received.map(\.title) == ["Zweite"])
        #expect(watcher.current?.title == "Zweite")

        // An invalid edit (unknown colour): no callback, old deck stays, problem recorded.
        saveByRename(deckText(title: "Kaputt", colour: "#12345"), to: path)
        drive(loop, seconds: 5) { watcher.lastProblems != nil }
        drive(loop, seconds: 0.2)
        #expect(received.count == 1)
        #expect(watcher.current?.title == "Zweite")
        let problem = try #require(watcher.lastProblems?.problems.first)
        #expect(problem.kind == .unknownColor)
        #expect(problem.path == "cards[0].color")

        // Fixed in place (an editor that truncates and rewrites): reloads again.
        DeckFixtures.write(deckText(title: "Dritte"), to: path)
        drive(loop, seconds: 5) { received.count == 2 }
        #expect(received.map(\.title) == ["Zweite", "Dritte"])
        #expect(watcher.lastProblems == nil)
    }

    /// The deck replaced by a FIFO with no writer: the reload runs on the loop, so a blocking
    /// open would freeze the kiosk; it is refused at once and the old deck stays.
    @Test func deckReplacedByAFifoIsAProblemNotAFrozenLoop() throws {
        let dir = DeckFixtures.temporaryDirectory("watch-fifo")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        DeckFixtures.write(deckText(title: "Erste"), to: path)
        let first = try DeckLoader.load(path: path).get()
        let loop = EventLoop()
        var received: [DeckFile] = []
        let watcher = try DeckWatcher(path: path, current: first, loop: loop, debounce: 0.05) { received.append($0) }
        defer { watcher.stop() }
        try #require(mkfifo(dir + "/deck.fifo", 0o644) == 0)
        try #require(rename(dir + "/deck.fifo", path) == 0)
        drive(loop, seconds: 5) { watcher.lastProblems != nil }
        #expect(received.isEmpty)
        #expect(watcher.current?.title == "Erste")
        let message = watcher.lastProblems?.problems.first?.message ?? ""
        #expect(message == "cannot read the deck file: it is a FIFO, not a regular file — give the path of a file")
    }

    @Test func burstsAreDebouncedAndOtherFilesIgnored() throws {
        let dir = DeckFixtures.temporaryDirectory("watch-burst")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        DeckFixtures.write(deckText(title: "Start"), to: path)
        let loop = EventLoop()
        var received: [String] = []
        let watcher = try DeckWatcher(
            path: path, current: try DeckLoader.load(path: path).get(), loop: loop, debounce: 0.3
        ) { received.append($0.title) }
        defer { watcher.stop() }

        DeckFixtures.write("unrelated", to: dir + "/notes.txt")
        drive(loop, seconds: 0.5)
        #expect(watcher.loadCount == 0)

        for n in 1...5 { saveByRename(deckText(title: "Version \(n)"), to: path) }
        drive(loop, seconds: 5) { !received.isEmpty }
        drive(loop, seconds: 0.5)
        #expect(received == ["Version 5"])
        #expect(watcher.loadCount == 1)

        // Saving identical content does not hand out a "new" deck.
        saveByRename(deckText(title: "Version 5"), to: path)
        drive(loop, seconds: 5) { watcher.loadCount == 2 }
        #expect(received == ["Version 5"])
    }

    @Test func editsThroughASymlinkedDeckAreSeen() throws {
        let dir = DeckFixtures.temporaryDirectory("watch-link")
        defer { DeckFixtures.removeTree(dir) }
        #expect(mkdir(dir + "/decks", 0o755) == 0)
        let target = dir + "/decks/lobby.json"
        DeckFixtures.write(deckText(title: "Lobby"), to: target)
        #expect(symlink(target, dir + "/deck.json") == 0)
        let loop = EventLoop()
        var received: [String] = []
        let watcher = try DeckWatcher(path: dir + "/deck.json", current: nil, loop: loop, debounce: 0.05) {
            received.append($0.title)
        }
        defer { watcher.stop() }
        saveByRename(deckText(title: "Lobby 2"), to: target)
        drive(loop, seconds: 5) { !received.isEmpty }
        #expect(received == ["Lobby 2"])
    }
}

/// The poll that stands in for inotify where edits come from elsewhere (9p, NFS, SMB). With
/// `inotify: false` the watcher sees what it sees of an edit on the host over 9p: nothing but
/// the poll (a local file system cannot withhold its own events; VM scenario 60 runs the real
/// 9p case).
@Suite struct DeckWatcherPollTests {
    @Test func thePollAloneSeesRenamesInPlaceEditsAndARemovalAndReturn() throws {
        let dir = DeckFixtures.temporaryDirectory("watch-poll")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        let helper = DeckWatcherTests()
        DeckFixtures.write(helper.deckText(title: "Erste"), to: path)
        let loop = EventLoop()
        var received: [String] = []
        let watcher = try DeckWatcher(
            path: path, current: try DeckLoader.load(path: path).get(), loop: loop, debounce: 0.05,
            polling: .poll(0.05), inotify: false
        ) { received.append($0.title) }
        defer { watcher.stop() }
        #expect(watcher.pollInterval == 0.05)

        helper.drive(loop, seconds: 0.4)
        #expect(watcher.loadCount == 0)  // nothing changed: no reload

        helper.saveByRename(helper.deckText(title: "Zweite"), to: path)
        helper.drive(loop, seconds: 5) { received.count == 1 }
        #expect(received == ["Zweite"])

        // Rewritten in place, the same length (only the time and the bytes differ).
        DeckFixtures.write(helper.deckText(title: "Dritte"), to: path)
        helper.drive(loop, seconds: 5) { received.count == 2 }
        #expect(received == ["Zweite", "Dritte"])

        // Gone (a problem, the deck stays), then back.
        #expect(unlink(path) == 0)
        helper.drive(loop, seconds: 5) { watcher.lastProblems != nil }
        #expect(watcher.current?.title == "Dritte")
        DeckFixtures.write(helper.deckText(title: "Vierte"), to: path)
        helper.drive(loop, seconds: 5) { received.count == 3 }
        #expect(received == ["Zweite", "Dritte", "Vierte"])
    }

    @Test func withoutThePollAndWithoutInotifyNothingIsSeen() throws {
        // The control for the test above: the reloads there come from the poll.
        let dir = DeckFixtures.temporaryDirectory("watch-nopoll")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        let helper = DeckWatcherTests()
        DeckFixtures.write(helper.deckText(title: "Erste"), to: path)
        let loop = EventLoop()
        var received: [String] = []
        let watcher = try DeckWatcher(
            path: path, current: try DeckLoader.load(path: path).get(), loop: loop, debounce: 0.05, inotify: false
        ) { received.append($0.title) }
        defer { watcher.stop() }
        #expect(watcher.pollInterval == nil)  // a local temp dir: no poll chosen
        helper.saveByRename(helper.deckText(title: "Zweite"), to: path)
        helper.drive(loop, seconds: 0.5)
        #expect(received.isEmpty)
    }

    @Test func remoteFileSystemsAreToldByTheirStatfsMagic() {
        #expect(RemoteFileSystem(magic: 0x0102_1997)?.name == "9p")
        #expect(RemoteFileSystem(magic: 0x6969)?.name == "NFS")
        #expect(RemoteFileSystem(magic: 0xFF53_4D42)?.name == "SMB")
        #expect(RemoteFileSystem(magic: 0x6573_5546)?.name == "FUSE")
        #expect(RemoteFileSystem(magic: 0xEF53) == nil)  // ext4
        #expect(RemoteFileSystem(magic: 0x0102_1994) == nil)  // tmpfs
        let dir = DeckFixtures.temporaryDirectory("watch-fs")
        defer { DeckFixtures.removeTree(dir) }
        #expect(RemoteFileSystem.of(dir) == nil)
        #expect(RemoteFileSystem.of(dir + "/missing") == nil)
    }

    /// 9p passes the host's statfs type through (a share of an ext4 folder says 0xEF53), so
    /// the mount's own type comes from mountinfo, found by the folder's device number.
    @Test func aNinePShareIsToldByItsMountinfoType() {
        let mountinfo = """
            22 1 0:21 / / rw,relatime - rootfs rootfs rw
            25 22 0:5 / /dev rw,relatime - devtmpfs devtmpfs rw,size=248k
            31 22 0:34 / /deck ro,relatime - 9p deck ro,access=client,msize=262144,trans=virtio
            32 22 0:35 / /hostdata rw,relatime - 9p hostdata rw,trans=virtio
            33 22 259:2 / /srv rw shared:1 - ext4 /dev/nvme0n1p2 rw
            34 22 0:52 / /mnt/nas rw - nfs4 nas:/export rw
            35 22 0:60 / /home/a/remote rw - fuse.sshfs a@host: rw
            """
        // st_dev of a 0:34 mount, and of 259:2 (major above 255: the split encoding).
        #expect(RemoteFileSystem.mountType(mountinfo: mountinfo, device: 34) == "9p")
        let nvme: UInt64 = (259 & 0xfff) << 8 | 2
        #expect(RemoteFileSystem.mountType(mountinfo: mountinfo, device: nvme) == "ext4")
        #expect(RemoteFileSystem.mountType(mountinfo: mountinfo, device: 99) == nil)
        #expect(RemoteFileSystem(type: "9p")?.name == "9p")
        #expect(RemoteFileSystem(type: "nfs4")?.name == "NFS")
        #expect(RemoteFileSystem(type: "fuse.sshfs")?.name == "FUSE")
        #expect(RemoteFileSystem(type: "virtiofs")?.name == "virtiofs")
        #expect(RemoteFileSystem(type: "ext4") == nil)
        #expect(RemoteFileSystem(type: "tmpfs") == nil)
        #expect(RemoteFileSystem(type: "overlay") == nil)
        // This machine's own mountinfo: a temp dir's device is found, and it is local.
        var st = stat()
        let dir = DeckFixtures.temporaryDirectory("watch-mountinfo")
        defer { DeckFixtures.removeTree(dir) }
        #expect(stat(dir, &st) == 0)
        let text = (try? FileIO.readText("/proc/self/mountinfo", limit: 4 << 20)) ?? ""
        let type = RemoteFileSystem.mountType(mountinfo: text, device: UInt64(st.st_dev))
        #expect(type != nil)
        let remote = type.flatMap { RemoteFileSystem(type: $0) }
        #expect(remote == nil)
    }
}

/// A schedule edit reaches the running kiosk through hot reload like any other edit.
@Suite struct DeckWatcherScheduleTests {
    func text(_ to: String, more: String = "") -> String {
        """
        {"id": "hot", "version": 1, "title": "T", "layout": "stack",
         "schedule": {"open": [{"days": ["mon-fri"], "from": "08:00", "to": "\(to)"}\(more)]},
         "cards": [{"id": "a", "title": "A", "color": "#336699"}]}
        """
    }

    @Test func aScheduleOnlyEditReloads() throws {
        let dir = DeckFixtures.temporaryDirectory("watch-schedule")
        defer { DeckFixtures.removeTree(dir) }
        let path = dir + "/deck.json"
        DeckFixtures.write(text("18:00"), to: path)
        let first = try DeckLoader.load(path: path).get()
        let loop = EventLoop()
        var received: [DeckFile] = []
        let watcher = try DeckWatcher(path: path, current: first, loop: loop, debounce: 0.05) { received.append($0) }
        defer { watcher.stop() }
        let helper = DeckWatcherTests()
        helper.saveByRename(text("20:00"), to: path)
        helper.drive(loop, seconds: 5) { !received.isEmpty }
        #expect(received.first?.schedule?.windows.first?.to == 20 * 60)
        // An overlapping edit is refused; the running schedule stays.
        helper.saveByRename(text("20:00", more: ", {\"from\": \"19:00\", \"to\": \"21:00\"}"), to: path)
        helper.drive(loop, seconds: 5) { watcher.lastProblems != nil }
        #expect(watcher.current?.schedule?.windows.count == 1)
        #expect(watcher.lastProblems?.problems.first?.path == "schedule.open[1]")
    }
}
