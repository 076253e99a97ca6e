import CLinux
import Glibc

/// What this process's resident memory is made of (`/proc/self/smaps`) and what glibc's
/// allocator holds (`mallinfo2`): the figures `bench --probe` breaks its peak RSS into.
package enum ProcessMemory {
    /// Resident kB by kind of mapping.
    package struct Resident: Equatable {
        /// The executable and the shared libraries: code, read-only data, relocated data.
        package var libraries = 0
        /// Of `libraries`, pages written since loading (relocations, writable data): private.
        package var librariesWritten = 0
        /// Font files and fontconfig's caches, mapped by FreeType and fontconfig.
        package var fonts = 0
        /// Other mapped files (locale archives, ICU data, …).
        package var otherFiles = 0
        /// Anonymous memory: malloc's heap and arenas, its large blocks, thread stacks.
        package var anonymous = 0
        /// The main thread's stack.
        package var stack = 0

        package var total: Int { libraries + fonts + otherFiles + anonymous + stack }
    }

    /// The resident set now, by kind; nil when /proc/self/smaps cannot be read.
    package static func resident() -> Resident? {
        guard let text = try? FileIO.readAll("/proc/self/smaps", limit: 16 << 20) else { return nil }
        var path = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &path, path.count - 1)
        let executable = n > 0 ? String(decoding: path[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        return parse(String(decoding: text, as: UTF8.self), executable: executable)
    }

    /// `smaps` text into kinds (pure: tests feed it text); `executable` counts as a library.
    package static func parse(_ smaps: String, executable: String? = nil) -> Resident {
        var r = Resident()
        var kind = Kind.anonymous
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            if let first = line.first, first.isHexDigit, line.contains("-"), !line.hasSuffix(" kB") {
                kind = Kind(mappingLine: line, executable: executable)
                continue
            }
            if line.hasPrefix("Rss:") {
                let kb = kilobytes(line)
                switch kind {
                case .library: r.libraries += kb
                case .font: r.fonts += kb
                case .file: r.otherFiles += kb
                case .anonymous: r.anonymous += kb
                case .stack: r.stack += kb
                case .none: break
                }
            } else if line.hasPrefix("Private_Dirty:"), kind == .library {
                r.librariesWritten += kilobytes(line)
            }
        }
        return r
    }

    private enum Kind {
        case library, font, file, anonymous, stack, none

        init(mappingLine line: Substring, executable: String?) {
            // address perms offset dev inode [path]
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            let path = fields.count > 5 ? fields[5].drop { $0 == " " } : ""
            if let executable, path == executable {
                self = .library
            } else if path.isEmpty || path.hasPrefix("[anon") || path == "[heap]" {
                self = .anonymous
            } else if path == "[stack]" {
                self = .stack
            } else if path.hasPrefix("[") {
                self = .none  // [vvar], [vdso], [vsyscall]: the kernel's pages
            } else if path.contains(".so") || path.hasSuffix("/KioskCards") || path.contains("/bin/") {
                self = .library
            } else if path.contains("/fonts/") || path.contains("fontconfig") || path.hasSuffix(".ttf")
                || path.hasSuffix(".otf") || path.hasSuffix(".ttc")
            {
                self = .font
            } else {
                self = .file
            }
        }
    }

    private static func kilobytes(_ line: Substring) -> Int {
        Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// glibc's allocator, in bytes.
    package struct Allocator: Equatable {
        /// Obtained from the system for small and medium blocks (the main heap and thread arenas).
        package var arenas: Int
        /// Of `arenas`, free: kept by the allocator, resident where it was touched before.
        package var free: Int
        /// Blocks mapped one by one (at or above the mmap threshold), all in use.
        package var mapped: Int

        package var inUse: Int { arenas - free + mapped }
    }

    /// Keeps every thread's allocations in glibc's main arena (`mallopt(M_ARENA_MAX, 1)`);
    /// call it before a second thread starts. Each thread that allocates otherwise gets an
    /// arena of its own, whose freed memory no other thread reuses: a process that starts
    /// helper threads for its first frame (fonts, covered cards) had 0.6 MB more peak RSS.
    package static func useOneArena() { _ = mallopt(M_ARENA_MAX, 1) }

    /// The allocator as the kiosk sets it up, before its second thread starts (`run`, `render`
    /// and the bench's probes that stand for them): every thread in one arena (`useOneArena`),
    /// and every block of `largeBlockBytes` or more mapped on its own, so that a card image the
    /// cache evicts goes back to the system when it is freed.
    ///
    /// glibc maps a block on its own from 128 KiB, but raises that threshold to the size of each
    /// such block freed (up to 32 MiB): after the first card image went, the next ones came from
    /// the heap, whose freed middle stays resident. A whole stack visit at 1920×1080 ends with
    /// 12.4 MB free in malloc without the set-up, 0.6 MB with it (`bench --scene stack-visit`,
    /// the visit memory lines; docs/PERFORMANCE.md, "A whole visit").
    package static func setUpForKiosk() {
        useOneArena()
        _ = mallopt(M_MMAP_THRESHOLD, Int32(largeBlockBytes))
    }

    /// Blocks this large or larger are mapped on their own once `setUpForKiosk` ran (a card
    /// image at 1920×1080 is about 2 MB, at 800×480 about 0.4 MB).
    package static let largeBlockBytes = 256 << 10

    package static func allocator() -> Allocator {
        let m = mallinfo2()
        return Allocator(arenas: Int(m.arena), free: Int(m.fordblks), mapped: Int(m.hblkhd))
    }
}
