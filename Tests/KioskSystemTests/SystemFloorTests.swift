import Glibc
import KioskTestSupport
import Testing

@testable import KioskSystem

@Suite struct SystemFloorTests {
    func names(in dir: String) throws -> [String] {
        let entries = try #require(opendir(dir))
        defer { closedir(entries) }
        var names: [String] = []
        while let e = readdir(entries) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    @Test func writeAllDeliversEveryByteThroughAPipe() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        // More than a pipe holds (64 KiB): the writer sees short writes while the reader drains.
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let writer = BackgroundWork.run("test-write-all", UncheckedBox((fds[1], bytes))) { box in
            let (fd, bytes) = box.value
            try? FileIO.writeAll(fd: fd, bytes: bytes)
            close(fd)
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            received += chunk[0..<n]
        }
        close(fds[0])
        #expect(writer.wait(seconds: 10))
        #expect(received == bytes)
    }

    @Test func writeAllReportsTheFailedCall() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        close(fds[1])
        #expect {
            try FileIO.writeAll(fd: fds[0], bytes: [1, 2, 3], detail: "read end")
        } throws: { error in
            "\(error)".hasPrefix("'write' failed: (9)") && "\(error)".contains("[read end]")
        }
        close(fds[0])
    }

    @Test func replaceAtomicallyKeepsThePermissionsAndLeavesNothingBeside() throws {
        let dir = DeckFixtures.temporaryDirectory("floor")
        let path = dir + "/kiosk.conf"
        try FileIO.replaceAtomically(path: path, contents: Array("one\n".utf8), permissions: 0o640)
        var st = stat()
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o640)
        chmod(path, 0o600)
        try FileIO.replaceAtomically(path: path, contents: Array("two\n".utf8))
        #expect(try FileIO.readText(path, limit: 1 << 20) == "two\n")
        #expect(stat(path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(try names(in: dir) == ["kiosk.conf"])
        unlink(path)
        rmdir(dir)
    }

    @Test func replaceAtomicallyFailsWithoutTouchingTheOldFile() throws {
        let dir = DeckFixtures.temporaryDirectory("floor")
        let path = dir + "/x"
        #expect(throws: SystemCallError.self) {
            try FileIO.replaceAtomically(path: dir + "/missing/x", contents: [1])
        }
        // A stale temporary (a power cut under the same pid) does not stop the next write.
        try FileIO.replaceAtomically(path: path, contents: Array("old".utf8))
        let stale = open(path + ".tmp-\(getpid())", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        close(stale)
        try FileIO.replaceAtomically(path: path, contents: Array("new".utf8))
        #expect(try FileIO.readText(path, limit: 1 << 20) == "new")
        #expect(try names(in: dir) == ["x"])
        unlink(path)
        rmdir(dir)
    }

    static let percentileCases: [(p: Double, values: [Double], expected: Double)] = [
        (50, [1, 2, 3, 4], 2), (50, [3, 1, 2], 2), (0, [5, 1, 9], 1), (100, [5, 1, 9], 9),
        (99, (1...100).map(Double.init), 99), (99, (1...1000).map(Double.init), 990), (90, [7], 7),
    ]

    @Test(arguments: percentileCases)
    func percentileIsNearestRankWithPFrom0To100(p: Double, values: [Double], expected: Double) {
        #expect(percentile(p, of: values) == expected)
    }

    @Test func percentileOfNothingIsNil() {
        #expect(percentile(50, of: []) == nil)
        #expect(BoundedSamples(capacity: 4).percentile(50) == nil)
    }

    @Test func boundedSamplesUseTheSameRule() {
        var b = BoundedSamples(capacity: 4)
        for v in [9.0, 1, 2, 3, 4] { b.append(v) }  // 9 falls out
        #expect(b.percentile(50) == percentile(50, of: [1, 2, 3, 4]))
        #expect(b.percentile(100) == 4)
    }
}
