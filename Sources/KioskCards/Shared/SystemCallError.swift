import Glibc

/// An errno value with its name and message.
struct Errno: Error, Hashable, CustomStringConvertible {
    var rawValue: Int32

    init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current errno.
    static var current: Errno { Errno(errno) }

    static let interrupted = Errno(EINTR)
    static let wouldBlock = Errno(EAGAIN)
    static let noDevice = Errno(ENODEV)
    static let noEntry = Errno(ENOENT)
    static let permissionDenied = Errno(EACCES)
    static let busy = Errno(EBUSY)

    var message: String { String(cString: strerror(rawValue)) }

    var description: String { "(\(rawValue)) \(message)" }
}

/// A failed system or library call, printed like
/// `'drmModePageFlip' failed: (16) Device or resource busy [crtc 42]`.
struct SystemCallError: Error, CustomStringConvertible {
    var call: String
    var errno: Errno
    var detail: String?

    init(call: String, errno: Errno, detail: String? = nil) {
        self.call = call
        self.errno = errno
        self.detail = detail
    }

    var description: String {
        "'\(call)' failed: \(errno)" + (detail.map { " [\($0)]" } ?? "")
    }
}

/// Retries `body` while it fails with EINTR; returns its result (≥ 0) or throws the errno.
/// For calls that return -1 and set errno.
@discardableResult
func retryingOnInterrupt(_ call: String, detail: String? = nil, _ body: () -> Int) throws(SystemCallError) -> Int {
    while true {
        let r = body()
        if r >= 0 { return r }
        let e = Errno.current
        if e == .interrupted { continue }
        throw SystemCallError(call: call, errno: e, detail: detail)
    }
}
