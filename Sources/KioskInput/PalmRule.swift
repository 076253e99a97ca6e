/// Which contacts are not fingers, in the device's own units: libinput's palm rules for a
/// touchscreen (`evdev-fallback.c` honours `ABS_MT_TOOL_TYPE` = `MT_TOOL_PALM`;
/// `evdev-mt-touchpad.c` adds a touch-size threshold). A contact judged a palm is cancelled
/// (the gesture ends without acting, like an unplug) and ignored until it lifts, even if it
/// later looks like a finger again (libinput's "was palm" state).
///
/// Sizes: ABS_MT_TOUCH_MAJOR above `majorMillimetres` or ABS_MT_TOUCH_MINOR above
/// `minorMillimetres` when the axis reports a resolution. A fingertip is 7–12 mm across and
/// a thumb pressed flat about 20–25 mm long; the flat of a hand or a folded cloth is well over
/// 30 mm. Without a resolution the axis's units are unknown (the kernel says surface units;
/// real panels report 0…255 or a 0…32767 scale of their own), so the limit is a quarter of the
/// axis's range: conservative on purpose — the real recordings' fingers reach 3–6 % of it,
/// and on a large panel the size rule then rarely fires, leaving MT_TOOL_PALM and the model's
/// contact count (`PrimaryContactFilter.maximumContacts`) to catch a cloth.
package struct PalmRule: Hashable, Sendable {
    package static let majorMillimetres = 30.0
    package static let minorMillimetres = 20.0
    /// Without a resolution: this fraction of the axis's range.
    package static let fractionOfRange = 0.25

    /// Touch major (minor) values above this are a palm; nil when the axis is absent.
    package var majorLimit: Int32?
    package var minorLimit: Int32?
    /// The rule in words, for `probe`.
    package private(set) var summary = "MT_TOOL_PALM"

    /// The limits for a device with these touch major and minor axes (none: MT_TOOL_PALM only).
    package init(major: AbsInfo? = nil, minor: AbsInfo? = nil) {
        majorLimit = major.flatMap { Self.limit($0, millimetres: Self.majorMillimetres) }
        minorLimit = minor.flatMap { Self.limit($0, millimetres: Self.minorMillimetres) }
        func basis(_ axis: AbsInfo?, _ mm: Double) -> String {
            axis.map { $0.resolution > 0 } == true ? "(\(Int(mm)) mm)" : "(a quarter of its range: no resolution)"
        }
        if let majorLimit {
            summary += "; ABS_MT_TOUCH_MAJOR > \(majorLimit) \(basis(major, Self.majorMillimetres))"
        }
        if let minorLimit {
            summary += "; ABS_MT_TOUCH_MINOR > \(minorLimit) \(basis(minor, Self.minorMillimetres))"
        }
    }

    private static func limit(_ axis: AbsInfo, millimetres: Double) -> Int32? {
        let range = Double(axis.maximum) - Double(axis.minimum)
        guard range > 0 else { return nil }
        let limit =
            axis.resolution > 0
            ? millimetres * Double(axis.resolution)
            : Double(axis.minimum) + range * fractionOfRange
        return Int32(min(limit.rounded(.up), Double(Int32.max)))
    }

    /// Whether a contact with this tool type and size is not a finger.
    func rejects(toolType: Int32, major: Int32?, minor: Int32?) -> Bool {
        if toolType == EvdevCode.mtToolPalm { return true }
        if let majorLimit, let major, major > majorLimit { return true }
        if let minorLimit, let minor, minor > minorLimit { return true }
        return false
    }
}
