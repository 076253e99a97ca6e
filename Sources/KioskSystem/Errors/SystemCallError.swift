import Glibc

/// An errno value with its name and message.
package struct Errno: Error, Hashable, CustomStringConvertible {
    var rawValue: Int32

    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current errno.
    package static var current: Errno { Errno(errno) }

    package static let interrupted = Errno(EINTR)
    package static let wouldBlock = Errno(EAGAIN)
    package static let noDevice = Errno(ENODEV)
    package static let noEntry = Errno(ENOENT)
    package static let permissionDenied = Errno(EACCES)
    package static let busy = Errno(EBUSY)

    package var message: String { String(cString: strerror(rawValue)) }

    package var description: String { "(\(rawValue)) \(message)" }
}

/// A failed system or library call, printed like
/// `'drmModePageFlip' failed: (16) Device or resource busy [crtc 42]`.
package struct SystemCallError: Error, CustomStringConvertible {
    package var call: String
    package var errno: Errno
    package var detail: String?

    package init(call: String, errno: Errno, detail: String? = nil) {
        self.call = call
        self.errno = errno
        self.detail = detail
    }

    package var description: String {
        "'\(call)' failed: \(errno)" + (detail.map { " [\($0)]" } ?? "")
    }
}

/// Retries `body` while it fails with EINTR; returns its result (≥ 0) or throws the errno.
/// For calls that return -1 and set errno.
@discardableResult
package func retryingOnInterrupt(_ call: String, detail: String? = nil, _ body: () -> Int) throws(SystemCallError)
    -> Int
{
    while true {
        let r = body()
        if r >= 0 { return r }
        let e = Errno.current
        if e == .interrupted { continue }
        throw SystemCallError(call: call, errno: e, detail: detail)
    }
}
