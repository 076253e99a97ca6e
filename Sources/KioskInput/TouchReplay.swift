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

/// A recording decoded into screen-space frames: the pure core of `KioskCards replay` and of
/// the recording tests.
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
        kind = recording.device.classify()
        guard let profile = kind.touchProfile else {
            throw TouchReplayError(
                message: "'\(recording.device.name)' is not a touch device: \(kind.label)")
        }
        self.profile = profile
        mapping = TouchMapping(
            profile: profile, panel: options.screen ?? TouchReplayOptions.defaultScreen, rotation: options.rotation,
            calibration: options.calibration ?? .identity)
        mapping.touchTransform = options.touchTransform
        var decoder = TouchDecoder(profile: profile)
        frames = []
        for event in recording.events {
            if let f = decoder.process(event) { frames.append(mapping.map(f)) }
        }
        cancelledAtEnd = decoder.activeContactCount
        if let last = recording.events.last, let f = decoder.cancelAll(at: last.time) {
            frames.append(mapping.map(f))
        }
    }
}

package struct TouchReplayError: Error, CustomStringConvertible {
    var message: String
    package var description: String { message }
}
