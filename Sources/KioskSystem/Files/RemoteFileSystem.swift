import CLinux
import Glibc

/// A file system where inotify does not see changes made on another machine (or on the host of
/// a virtual machine): 9p, NFS, SMB, FUSE (virtiofs, sshfs), Ceph, AFS, Coda.
///
/// Told two ways, because 9p passes the host's own `statfs` type through (a 9p share of an
/// ext4 folder says 0xEF53): first the `statfs` magic (`linux/magic.h`; NFS and SMB report
/// their own), then the type `/proc/self/mountinfo` gives the mount whose device is the
/// folder's `st_dev`.
package struct RemoteFileSystem: Equatable, Sendable {
    /// "9p", "NFS", "SMB", "FUSE", "Ceph", "AFS", "Coda".
    package let name: String

    /// The remote file system `directory` is on, nil for a local one (or when neither `statfs`
    /// nor mountinfo can tell: then inotify is all there is).
    package static func of(_ directory: String) -> RemoteFileSystem? {
        var fs = statfs()
        if statfs(directory, &fs) == 0, let known = RemoteFileSystem(magic: fs.f_type) { return known }
        var st = stat()
        guard stat(directory, &st) == 0,
            let text = try? FileIO.readText("/proc/self/mountinfo", limit: 4 << 20, what: "/proc/self/mountinfo"),
            let type = mountType(mountinfo: text, device: UInt64(st.st_dev))
        else { return nil }
        return RemoteFileSystem(type: type)
    }

    /// The file system of a `statfs` `f_type`, nil for a local one.
    package init?(magic: Int) {
        switch UInt32(truncatingIfNeeded: magic) {
        case 0x0102_1997: name = "9p"
        case 0x6969: name = "NFS"
        case 0xFE53_4D42, 0xFF53_4D42, 0x517B: name = "SMB"
        case 0x6573_5546: name = "FUSE"
        case 0x00C3_6400: name = "Ceph"
        case 0x5346_414F: name = "AFS"
        case 0x7375_7245: name = "Coda"
        default: return nil
        }
    }

    /// The file system of a mountinfo type ("9p", "nfs4", "fuse.sshfs"…), nil for a local one.
    package init?(type: String) {
        switch type {
        case "9p": name = "9p"
        case "nfs", "nfs4": name = "NFS"
        case "cifs", "smb3", "smbfs": name = "SMB"
        case "fuse", "fuseblk", "virtiofs": name = type == "virtiofs" ? "virtiofs" : "FUSE"
        case "ceph": name = "Ceph"
        case "afs": name = "AFS"
        case "coda": name = "Coda"
        default:
            guard type.hasPrefix("fuse.") else { return nil }
            name = "FUSE"
        }
    }

    /// The type of the last mount in `mountinfo` (proc(5): "36 35 98:0 /mnt1 /mnt2 rw - ext3
    /// /dev/root rw") whose "major:minor" is `device`; nil when none is.
    package static func mountType(mountinfo: String, device: UInt64) -> String? {
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let wanted = "\(major):\(minor)"
        var found: String?
        for line in mountinfo.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 3, fields[2] == wanted, let dash = fields.firstIndex(of: "-"),
                dash + 1 < fields.count
            else { continue }
            found = String(fields[dash + 1])
        }
        return found
    }
}
