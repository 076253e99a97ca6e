import Glibc
import Testing

@testable import KioskSystem

/// Programs the tests run to completion (zbarimg, setpriv; `StoreTestSupport` runs KioskCards).
package enum TestProcess {
    /// Runs a program to completion with this process's environment and `environment`'s
    /// `NAME=value` entries; returns its exit status (128 + the signal if one ended it) and
    /// stdout+stderr.
    package static func run(_ program: String, _ arguments: [String], environment: [String] = []) throws -> (
        Int32, String
    ) {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var env: [UnsafeMutablePointer<CChar>?] = []
        var e = environ
        while let p = e.pointee {
            env.append(strdup(p))
            e += 1
        }
        env += environment.map { strdup($0) } + [nil]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, program, &actions, nil, argv, env)
        close(fds[1])
        try #require(r == 0, "posix_spawn \(program): \(Errno(r))")
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fds[0], &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out += chunk[..<n]
        }
        close(fds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        return (signal == 0 ? (status >> 8) & 0xFF : 128 + signal, String(decoding: out, as: UTF8.self))
    }
}
