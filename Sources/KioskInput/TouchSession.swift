import CardModel
import KioskSystem

/// One touch device's path from events to screen frames: its decoder and mapping, plus what
/// happens when the device goes away. Pure; `InputManager` drives one per open touch device.
struct TouchSession {
    private(set) var decoder: TouchDecoder
    var mapping: TouchMapping

    init(profile: TouchProfile, mapping: TouchMapping, firstContactID: Int = 1) {
        decoder = TouchDecoder(profile: profile, firstContactID: firstContactID)
        self.mapping = mapping
    }

    /// A frame in screen points when `event` completed one that changed something.
    mutating func handle(_ event: InputEvent) -> TouchFrame? {
        decoder.process(event).map { mapping.map($0) }
    }

    /// The same frame in device units, before the mapping (diagnostics show both).
    mutating func handleDevice(_ event: InputEvent) -> DeviceTouchFrame? {
        decoder.process(event)
    }

    /// SYN_DROPPED on the live device: libevdev's sync delta follows.
    mutating func beginLiveResync() { decoder.beginLiveResync() }

    /// The device was removed (read returned ENODEV, or its node vanished): every contact is
    /// cancelled, so a drag in progress ends without acting and the card springs back.
    mutating func deviceRemoved(at time: Instant) -> TouchFrame? {
        decoder.cancelAll(at: time).map { mapping.map($0) }
    }

    var activeContactCount: Int { decoder.activeContactCount }
}
