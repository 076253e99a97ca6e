import CLinux

/// Parsing of what `read` returns on an inotify descriptor: `struct inotify_event` records
/// (wd, mask, cookie, len, then `len` bytes of NUL-padded name), back to back. Pure.
package enum InotifyEvents {
    package struct Record: Hashable {
        package var watch: Int32
        package var mask: UInt32
        package var name: String
    }

    package static func parse(_ bytes: UnsafeRawBufferPointer) -> [Record] {
        var records: [Record] = []
        var offset = 0
        let header = 16  // int wd; uint32 mask, cookie, len
        while offset + header <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let len = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let end = offset + header + len
            guard end <= bytes.count else { break }  // the kernel never splits a record; be safe anyway
            let nameBytes = bytes[(offset + header)..<end].prefix { $0 != 0 }
            records.append(Record(watch: watch, mask: mask, name: String(decoding: nameBytes, as: UTF8.self)))
            offset += header + len
        }
        return records
    }

    static let created = UInt32(IN_CREATE)
    static let attributesChanged = UInt32(IN_ATTRIB)
    package static let deleted = UInt32(IN_DELETE)
}
