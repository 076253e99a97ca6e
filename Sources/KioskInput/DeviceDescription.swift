import KioskSystem

/// The range of one absolute axis, as `struct input_absinfo` reports it.
package struct AbsInfo: Hashable, Sendable {
    var value: Int32 = 0
    package var minimum: Int32
    package var maximum: Int32
    package var fuzz: Int32 = 0
    var flat: Int32 = 0
    /// Units per millimetre (units per radian for rotational axes); 0 when unknown.
    package var resolution: Int32 = 0

    package init(
        value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0,
        resolution: Int32 = 0
    ) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }

    /// Millimetres from `minimum` to `maximum`, when the resolution is known.
    var lengthMillimetres: Double? {
        resolution > 0 ? Double(maximum - minimum) / Double(resolution) : nil
    }
}

/// `struct input_id`: bus type and USB-style vendor/product ids.
package struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    var bus: UInt16 = 0
    var vendor: UInt16 = 0
    var product: UInt16 = 0
    var version: UInt16 = 0

    package init(bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0) {
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
    }

    package var description: String {
        func hex(_ v: UInt16) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: max(0, 4 - s.count)) + s
        }
        return "bus \(hex(bus)) \(hex(vendor)):\(hex(product)) v\(hex(version))"
    }
}

/// What an input device is and what it can send: a value snapshot, built either from an evemu
/// recording's header or from a live libevdev handle, so classification and decoding run on
/// the same data in tests and on the device.
package struct DeviceDescription: Hashable, Sendable {
    package var name: String = ""
    package var id: DeviceID = DeviceID()
    /// INPUT_PROP_* bits that are set.
    package var properties: Set<UInt16> = []
    /// EV_* types the device declares.
    var eventTypes: Set<UInt16> = []
    /// Codes per event type (EV_KEY → KEY_*/BTN_*, EV_ABS → ABS_*, …).
    var codes: [UInt16: Set<UInt16>] = [:]
    /// Ranges of the absolute axes.
    var absInfo: [UInt16: AbsInfo] = [:]

    package init(
        name: String = "", id: DeviceID = DeviceID(), properties: Set<UInt16> = [], eventTypes: Set<UInt16> = [],
        codes: [UInt16: Set<UInt16>] = [:], absInfo: [UInt16: AbsInfo] = [:]
    ) {
        self.name = name
        self.id = id
        self.properties = properties
        self.eventTypes = eventTypes
        self.codes = codes
        self.absInfo = absInfo
    }

    func has(property: UInt16) -> Bool { properties.contains(property) }
    func has(key code: UInt16) -> Bool { codes[EvdevCode.evKey]?.contains(code) ?? false }
    func has(abs code: UInt16) -> Bool {
        (codes[EvdevCode.evAbs]?.contains(code) ?? false) && absInfo[code] != nil
    }
    func has(rel code: UInt16) -> Bool { codes[EvdevCode.evRel]?.contains(code) ?? false }
    var hasRelativeAxes: Bool { !(codes[EvdevCode.evRel]?.isEmpty ?? true) }

    /// Marks `code` of `type` as supported (and the type itself).
    package mutating func enable(type: UInt16, code: UInt16) {
        eventTypes.insert(type)
        codes[type, default: []].insert(code)
    }

    /// Marks the absolute axis `code` as supported with range `info`.
    package mutating func enable(abs code: UInt16, _ info: AbsInfo) {
        enable(type: EvdevCode.evAbs, code: code)
        absInfo[code] = info
    }
}
