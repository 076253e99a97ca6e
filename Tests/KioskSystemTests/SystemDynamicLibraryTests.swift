import Glibc
import KioskTestSupport
import Testing

@testable import KioskSystem

/// libpq, espeak-ng, ALSA, libjpeg-turbo, libqrencode, libxcrypt and SQLite are loaded when
/// first used (`DynamicLibrary`), not at start.
@Suite struct SystemDynamicLibraryTests {
    /// The libraries a kiosk without a fleet, speech, photos, QR codes or a staff PIN must not
    /// map, nor a process that opens no decisions database.
    static let loadedWhenUsed = [
        "libpq.so", "libespeak-ng.so", "libasound.so", "libturbojpeg.so", "libqrencode.so", "libcrypt.so",
        "libsqlite3.so",
    ]

    /// A real KioskCards process that uses none of them (`set-pin`, blocked reading the PIN
    /// from stdin, so it has started and is waiting: it hashes only once it has the PIN) maps the
    /// libraries it links — libdrm, libevdev — but none of those. Its stdin is then closed: no PIN,
    /// exit 2, nothing written.
    @Test func aProcessThatUsesNoneOfThemMapsNone() throws {
        try #require(StoreTestSupport.executableExists, "build KioskCards first (swift build --build-tests)")
        let dir = DeckFixtures.temporaryDirectory("dynlib")
        defer { _ = rmdir(dir) }
        var input: [Int32] = [0, 0]
        try #require(pipe(&input) == 0)
        _ = fcntl(input[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let program = StoreTestSupport.executable
        let arguments: [String] = [program, "set-pin", "--config", dir + "/kiosk.conf"]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, program, &actions, nil, argv, environ)
        close(input[0])
        try #require(rc == 0, "posix_spawn \(program): \(Errno(rc))")

        // Waiting in read(0, …): past the loader and into main (x86-64 read is 0, aarch64's 63;
        // under qemu-user the host's call shows).
        let waiting = StoreTestSupport.waitFor(seconds: DeckFixtures.underEmulation ? 60 : 10) {
            guard let text = try? FileIO.readAll("/proc/\(pid)/syscall", limit: 4096) else { return false }
            let fields = String(decoding: text, as: UTF8.self).split(separator: " ")
            return fields.count > 1 && (fields[0] == "0" || fields[0] == "63") && fields[1] == "0x0"
        }
        let maps = (try? FileIO.readAll("/proc/\(pid)/maps", limit: 16 << 20)).map {
            String(decoding: $0, as: UTF8.self)
        }
        close(input[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}

        #expect(waiting, "set-pin never blocked reading stdin")
        let text = try #require(maps, "cannot read /proc/\(pid)/maps")
        let linked = text.contains("libdrm.so")
        #expect(linked, "the maps read are not the started program's:\n\(text)")
        for library in Self.loadedWhenUsed {
            let mapped = text.contains(library)
            #expect(!mapped, "\(library) is mapped by a process that does not use it")
        }
        #expect((status >> 8) & 0xFF == 2, "set-pin without a PIN exits 2")
    }

    /// A library that is not there: the error names the file, what dlopen said, the package
    /// and the command that installs it (the real fault: no such file on any system).
    @Test func aMissingLibrarySaysWhatToInstall() {
        do {
            _ = try DynamicLibrary("libkioskcards-absent.so.7", debianPackage: "libkioskcards-absent7")
            Issue.record("dlopen of a library that does not exist succeeded")
        } catch {
            #expect(error.symbol == nil)
            #expect(error.reason.contains("libkioskcards-absent.so.7"), "\(error.reason)")
            let text = error.description
            #expect(text.hasPrefix("libkioskcards-absent.so.7 cannot be loaded ("), "\(text)")
            #expect(
                text.hasSuffix("install Debian's libkioskcards-absent7 (apt install libkioskcards-absent7)"), "\(text)")
        }
    }

    /// A function the library lacks (an older library): named, with "upgrade" as the fix.
    @Test func aMissingFunctionSaysToUpgrade() throws {
        let libc = try DynamicLibrary("libc.so.6", debianPackage: "libc6")
        typealias GetPID = @convention(c) () -> Int32
        let getpidThroughTable: GetPID = try libc.function("getpid")
        #expect(getpidThroughTable() == getpid())
        do {
            let _: GetPID = try libc.function("kioskcards_no_such_function")
            Issue.record("dlsym of a function that does not exist succeeded")
        } catch {
            #expect(error.symbol == "kioskcards_no_such_function")
            #expect(error.description.contains("has no function 'kioskcards_no_such_function'"), "\(error)")
            #expect(error.description.hasSuffix("upgrade Debian's libc6 (apt install libc6)"), "\(error)")
        }
    }

    /// A failed load is not kept: the table is made by the first use that succeeds.
    @Test func aFailedLoadIsTriedAgain() throws {
        final class Attempts: @unchecked Sendable {
            var count = 0
        }
        let attempts = Attempts()
        let functions = LibraryFunctions<Int> {
            attempts.count += 1
            if attempts.count == 1 {
                return .failure(DynamicLibraryError(library: "x.so", debianPackage: "x", symbol: nil, reason: "absent"))
            }
            return .success(attempts.count)
        }
        #expect(!functions.isLoaded)
        #expect(throws: DynamicLibraryError.self) { try functions.get() }
        let first = try functions.get()
        let again = try functions.get()
        #expect(first == 2 && again == 2 && attempts.count == 2 && functions.isLoaded)
    }
}
