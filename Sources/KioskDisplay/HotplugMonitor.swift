import CDrm
import CLinux
import Glibc
import KioskSystem

/// Kernel uevents on a NETLINK_KOBJECT_UEVENT socket, filtered to DRM hotplugs
/// (`SUBSYSTEM=drm`, `HOTPLUG=1`), delivered in the `EventLoop`.
final class HotplugMonitor {
    let fd: Int32
    private let loop: EventLoop
    private var token: Int?

    /// Joins the kernel's uevent multicast group (no privileges needed) and calls `handler`
    /// once per batch of reads that held a DRM hotplug.
    init(loop: EventLoop, handler: @escaping () -> Void) throws(SystemCallError) {
        let fd = socket(
            AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            NETLINK_KOBJECT_UEVENT)
        if fd < 0 { throw SystemCallError(call: "socket", errno: .current, detail: "NETLINK_KOBJECT_UEVENT") }
        var addr = sockaddr_nl()
        addr.nl_family = sa_family_t(AF_NETLINK)
        addr.nl_groups = 1  // the kernel's uevent group
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        if r != 0 {
            let e = Errno.current
            close(fd)
            throw SystemCallError(call: "bind", errno: e, detail: "uevent netlink")
        }
        self.fd = fd
        self.loop = loop
        token = loop.add(fd: fd) { [fd] _ in
            var buffer = [UInt8](repeating: 0, count: 8192)
            var hotplug = false
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if n == 0 { break }
                if UEvent(Array(buffer[..<n]))?.isDrmHotplug == true { hotplug = true }
            }
            if hotplug { handler() }
        }
    }

    deinit {
        if let token { loop.remove(token) }
        close(fd)
    }
}

/// A kernel uevent as sent on NETLINK_KOBJECT_UEVENT: `ACTION@DEVPATH\0KEY=VALUE\0...`.
/// (udev's own re-broadcasts start with `libudev\0` and a binary header; those are ignored.)
struct UEvent: Hashable, Sendable {
    var action: String
    var devpath: String
    var properties: [String: String]

    init?(_ bytes: [UInt8]) {
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard let header = fields.first, let at = header.firstIndex(of: "@") else { return nil }
        action = String(header[..<at])
        devpath = String(header[header.index(after: at)...])
        var properties: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let eq = field.firstIndex(of: "=") else { continue }
            properties[String(field[..<eq])] = String(field[field.index(after: eq)...])
        }
        self.properties = properties
    }

    /// A DRM connector change: re-probe the connectors. The kernel marks them `HOTPLUG=1`
    /// (weston and mutter match the same); a "change" on a card node without it (written to its
    /// `uevent` file, e.g. after forcing a connector's `status`) is taken as one too.
    var isDrmHotplug: Bool {
        guard properties["SUBSYSTEM"] == "drm" else { return false }
        if properties["HOTPLUG"] == "1" { return true }
        let name = properties["DEVNAME"] ?? ""
        return action == "change" && (name.hasPrefix("dri/card") || name.hasPrefix("/dev/dri/card"))
    }
}
