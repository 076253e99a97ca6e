import CardModel
import KioskSystem

/// How a recording (or a device) is mapped onto the screen for `replay`.
package struct TouchReplayOptions: Sendable {
    /// The panel's native size in points; nil: 800×480.
    package var screen: Size?
    package var rotation: Rotation = .deg0
    /// `--touch-matrix`; nil: identity.
    package var calibration: TouchMatrix?
    package var touchTransform: TouchMatrix = .identity

    package init(
        screen: Size? = nil, rotation: Rotation = .deg0, calibration: TouchMatrix? = nil,
        touchTransform: TouchMatrix = .identity
    ) {
        self.screen = screen
        self.rotation = rotation
        self.calibration = calibration
        self.touchTransform = touchTransform
    }

    package static let defaultScreen = Size(width: 800, height: 480)
}

/// Events of a recorded device in, screen-space frames out, one event at a time: the pure
/// core of `KioskCards replay`, `render --script` and the recording tests.
package struct TouchReplayDecoder {
    package let kind: DeviceKind
    package let profile: TouchProfile
    package var mapping: TouchMapping
    private var decoder: TouchDecoder
    private var lastTime: Instant?

    /// Throws when `device` is not a touch device.
    package init(device: DeviceDescription, options: TouchReplayOptions = TouchReplayOptions())
        throws(TouchReplayError)
    {
        kind = device.classify()
        guard let profile = kind.touchProfile else {
            throw TouchReplayError(message: "'\(device.name)' is not a touch device: \(kind.label)")
        }
        self.profile = profile
        mapping = TouchMapping(
            profile: profile, panel: options.screen ?? TouchReplayOptions.defaultScreen, rotation: options.rotation,
            calibration: options.calibration ?? .identity)
        mapping.touchTransform = options.touchTransform
        decoder = TouchDecoder(profile: profile)
    }

    /// The frame `event` completes (a SYN_REPORT that changed something), mapped onto the screen.
    package mutating func feed(_ event: InputEvent) -> TouchFrame? {
        lastTime = event.time
        return decoder.process(event).map { mapping.map($0) }
    }

    /// At the end of the recording: contacts still down (0 for every well-formed recording) and
    /// the frame that cancels them at the last event's time.
    package mutating func finish() -> (cancelled: Int, frame: TouchFrame?) {
        let cancelled = decoder.activeContactCount
        guard let lastTime, let f = decoder.cancelAll(at: lastTime) else { return (cancelled, nil) }
        return (cancelled, mapping.map(f))
    }
}

/// A recording file read as a stream of screen-space frames (memory flat in its length).
package final class TouchReplayStream {
    package private(set) var decoder: TouchReplayDecoder
    private let reader: EvemuReader
    private var finished = false
    /// Contacts still down at the end, cancelled by the last frame; valid once `next()` gave nil.
    package private(set) var cancelledAtEnd = 0

    /// Opens `path` and reads its description; throws `EvemuError` or `TouchReplayError`.
    package init(contentsOf path: String, options: TouchReplayOptions = TouchReplayOptions()) throws {
        reader = try EvemuReader(contentsOf: path)
        decoder = try TouchReplayDecoder(device: reader.device, options: options)
    }

    /// The next frame (the cancelling frame last), nil at the end; throws for a bad line.
    package func next() throws(EvemuError) -> TouchFrame? {
        while !finished {
            guard let event = try reader.next() else {
                finished = true
                let (cancelled, frame) = decoder.finish()
                cancelledAtEnd = cancelled
                return frame
            }
            if let f = decoder.feed(event) { return f }
        }
        return nil
    }
}

/// A recording decoded into screen-space frames, all at once (tests).
package struct TouchReplay {
    var kind: DeviceKind
    package var profile: TouchProfile
    package var mapping: TouchMapping
    /// One frame per SYN_REPORT that changed something.
    package var frames: [TouchFrame]
    /// Contacts still down at the end of the recording, cancelled by a final frame (appended to
    /// `frames`); 0 for every well-formed recording.
    package var cancelledAtEnd: Int

    /// Decodes `recording`; throws when the device is not a touch device.
    package init(_ recording: EvemuRecording, options: TouchReplayOptions = TouchReplayOptions())
        throws(TouchReplayError)
    {
        var decoder = try TouchReplayDecoder(device: recording.device, options: options)
        kind = decoder.kind
        profile = decoder.profile
        mapping = decoder.mapping
        frames = recording.events.compactMap { decoder.feed($0) }
        let (cancelled, last) = decoder.finish()
        cancelledAtEnd = cancelled
        if let last { frames.append(last) }
    }
}

package struct TouchReplayError: Error, CustomStringConvertible {
    var message: String
    package var description: String { message }
}
