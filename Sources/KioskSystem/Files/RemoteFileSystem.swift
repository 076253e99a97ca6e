import CLinux

/// File systems where inotify does not see changes made on another machine (or the host of a
/// virtual machine): Linux's `statfs` magic numbers (`linux/magic.h`, fs/smb/client).
package enum RemoteFileSystem: UInt32, CaseIterable, Sendable {
    case ninep = 0x0102_1997
    case nfs = 0x6969
    case smb2 = 0xFE53_4D42
    case cifs = 0xFF53_4D42
    case smb = 0x517B
    case fuse = 0x6573_5546
    case ceph = 0x00C3_6400
    case afs = 0x5346_414F
    case coda = 0x7375_7245

    package var name: String {
        switch self {
        case .ninep: "9p"
        case .nfs: "NFS"
        case .smb2, .cifs, .smb: "SMB"
        case .fuse: "FUSE"
        case .ceph: "Ceph"
        case .afs: "AFS"
        case .coda: "Coda"
        }
    }

    /// The remote file system `directory` is on, nil for a local one (or when `statfs` fails:
    /// then inotify is all there is).
    package static func of(_ directory: String) -> RemoteFileSystem? {
        var fs = statfs()
        guard statfs(directory, &fs) == 0 else { return nil }
        return RemoteFileSystem(magic: fs.f_type)
    }

    /// The file system of a `statfs` `f_type`, nil for a local one.
    package init?(magic: Int) {
        self.init(rawValue: UInt32(truncatingIfNeeded: magic))
    }
}
