import Glibc

@testable import KioskSystem

/// Paths to this package's fixtures and examples, found from this file's location (so no test
/// names a machine's path), and scratch directories under /tmp.
package enum DeckFixtures {
    /// True when the tests run under qemu-user (the arm64 lane sets QEMU_LD_PREFIX): the
    /// load-heavy tests use smaller counts there (emulation is 10–20× slower), same assertions.
    package static let underEmulation = getenv("QEMU_LD_PREFIX") != nil

    /// `<repo>/Tests`
    package static let testsDirectory = PathName.normalize(PathName.directory(of: #filePath) + "/..")
    package static let packageRoot = PathName.normalize(testsDirectory + "/..")
    /// `Tests/Fixtures`: what several test targets read (decks, touch recordings, images, the
    /// hand-written evemu files); a target's own fixtures sit in its folder (the goldens).
    package static let fixtures = testsDirectory + "/Fixtures"
    package static let decks = fixtures + "/decks"

    package static func good(_ name: String) -> String { decks + "/good/" + name }
    package static func bad(_ name: String) -> String { decks + "/bad/" + name }

    /// A fresh empty directory under /tmp, removed by `removeTree`.
    package static func temporaryDirectory(_ label: String) -> String {
        var template = Array("/tmp/kioskcards-\(label)-XXXXXX".utf8CString)
        let p: String? = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        precondition(p != nil, "mkdtemp failed: \(Errno.current)")
        return p!
    }

    /// `rm -rf path` for test scratch directories.
    package static func removeTree(_ path: String) {
        guard path.hasPrefix("/tmp/kioskcards-") else { return }
        _ = system("rm -rf '\(path)'")
    }

    package static func write(_ text: String, to path: String) {
        writeBytes(Array(text.utf8), to: path)
    }

    package static func writeBytes(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "open \(path): \(Errno.current)")
        bytes.withUnsafeBytes { b in
            var off = 0
            while off < b.count {
                let n = Glibc.write(fd, b.baseAddress! + off, b.count - off)
                precondition(n > 0)
                off += n
            }
        }
        close(fd)
    }

    /// Names of the `.json` files directly in `directory`.
    package static func jsonFiles(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name.hasSuffix(".json") { names.append(name) }
        }
        return names.sorted()
    }
}
