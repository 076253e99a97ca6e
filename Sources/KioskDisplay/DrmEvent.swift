import CardModel
import KioskSystem

/// An event read from a DRM fd (`struct drm_event` and its payload), parsed from bytes.
enum DrmEvent: Hashable, Sendable {
    /// `DRM_EVENT_FLIP_COMPLETE`: the flip asked with `DRM_MODE_PAGE_FLIP_EVENT` is on screen.
    case flipComplete(DrmVblankEvent)
    /// `DRM_EVENT_VBLANK`: an event asked with `drmWaitVBlank(DRM_VBLANK_EVENT)`.
    case vblank(DrmVblankEvent)
    /// `DRM_EVENT_CRTC_SEQUENCE` (`drm_event_crtc_sequence`): nanoseconds and a 64-bit count.
    case crtcSequence(userData: UInt64, nanoseconds: Int64, sequence: UInt64)
    /// A type this program does not know; skipped by its length.
    case other(type: UInt32, length: Int)

    static let typeVblank: UInt32 = 0x01
    static let typeFlipComplete: UInt32 = 0x02
    static let typeCrtcSequence: UInt32 = 0x03
    /// `sizeof(struct drm_event_vblank)`, also of `drm_event_crtc_sequence`.
    static let vblankSize = 32

    /// Parses everything `read(2)` returned from a DRM fd: a packed run of events, each
    /// starting with `{ u32 type; u32 length; }` where length counts the header. The kernel
    /// returns whole events only; a truncated or impossible one ends the parse and is reported.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> (events: [DrmEvent], malformedBytes: Int) {
        var events: [DrmEvent] = []
        var offset = 0
        while offset < bytes.count {
            let left = bytes.count - offset
            guard left >= 8 else { return (events, left) }
            let type = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
            guard length >= 8, length <= left else { return (events, left) }
            switch type {
            case typeVblank, typeFlipComplete:
                guard length >= vblankSize else { return (events, left) }
                let event = DrmVblankEvent(
                    userData: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
                    seconds: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt32.self),
                    microseconds: bytes.loadUnaligned(fromByteOffset: offset + 20, as: UInt32.self),
                    sequence: bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt32.self),
                    crtcID: bytes.loadUnaligned(fromByteOffset: offset + 28, as: UInt32.self))
                events.append(type == typeVblank ? .vblank(event) : .flipComplete(event))
            case typeCrtcSequence:
                guard length >= vblankSize else { return (events, left) }
                events.append(
                    .crtcSequence(
                        userData: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self),
                        nanoseconds: bytes.loadUnaligned(fromByteOffset: offset + 16, as: Int64.self),
                        sequence: bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
            default:
                events.append(.other(type: type, length: length))
            }
            offset += length
        }
        return (events, 0)
    }

    static func parse(_ bytes: [UInt8]) -> (events: [DrmEvent], malformedBytes: Int) {
        bytes.withUnsafeBytes { parse($0) }
    }
}

/// The payload of `struct drm_event_vblank`.
struct DrmVblankEvent: Hashable, Sendable {
    var userData: UInt64
    var seconds: UInt32
    var microseconds: UInt32
    /// The vblank counter at the flip (0 on drivers without vblank counting).
    var sequence: UInt32
    /// The CRTC it happened on; 0 on kernels before 4.12.
    var crtcID: UInt32

    /// When the flip reached the screen, on CLOCK_MONOTONIC when the device reports
    /// `DRM_CAP_TIMESTAMP_MONOTONIC` (every kernel since 4.15).
    var instant: Instant { MonotonicClock.instant(seconds: Int(seconds), microseconds: Int(microseconds)) }
}
