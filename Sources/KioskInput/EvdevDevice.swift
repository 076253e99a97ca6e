import CEvdev
import CardModel
import Glibc
import KioskSystem

/// Why an input device could not be used, with what to do about it.
package struct InputDeviceError: Error, CustomStringConvertible {
    var path: String
    var failure: SystemCallError
    var hint: String?

    init(path: String, failure: SystemCallError) {
        self.path = path
        self.failure = failure
        switch failure.errno {
        case .permissionDenied, Errno(EPERM):
            hint =
                "permission denied on \(path) — add the kiosk's user to group 'input' (usermod -aG input USER), then log in again"
        case .busy:
            hint = "another program has grabbed \(path) exclusively — find it with 'fuser -v \(path)'"
        case .noEntry:
            hint = "no device node \(path) — list the devices with 'KioskCards probe'"
        case .noDevice, Errno(ENXIO):
            hint = "\(path) is gone (unplugged?)"
        case Errno(ENOTTY), Errno(EINVAL):
            hint = "\(path) is not an evdev input device (use /dev/input/eventN)"
        default:
            hint = nil
        }
    }

    package var description: String { "\(failure)" + (hint.map { " — \($0)" } ?? "") }
}

/// An open evdev device through libevdev: owns the file descriptor and the libevdev handle.
///
/// Opened O_RDONLY|O_NONBLOCK|O_CLOEXEC, timestamps on CLOCK_MONOTONIC (the display's clock).
package struct EvdevDevice: ~Copyable {
    let path: String
    let fd: Int32
    /// `struct libevdev *`
    private let handle: OpaquePointer
    /// Capabilities and axis ranges, read once at open.
    package let description: DeviceDescription
    /// The character device number (for udev's database entry).
    package let deviceNumber: (major: UInt32, minor: UInt32)
    private var grabbed: Bool

    /// Opens `path`, wraps it in libevdev (`libevdev_new_from_fd`) and switches its clock to
    /// CLOCK_MONOTONIC (`libevdev_set_clock_id`).
    ///
    /// Every stored property is assigned after the last `throw`: Swift 6.0's SIL verifier
    /// crashes on a `~Copyable` type with a `deinit` whose throwing init leaves some properties
    /// initialised when it throws.
    package init(path: String) throws(InputDeviceError) {
        let fd: Int32
        do {
            fd = Int32(
                try retryingOnInterrupt("open", detail: path) { Int(open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) })
        } catch {
            throw InputDeviceError(path: path, failure: error)
        }
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &dev)
        guard rc == 0, let dev else {
            close(fd)
            throw InputDeviceError(
                path: path, failure: SystemCallError(call: "libevdev_new_from_fd", errno: Errno(-rc), detail: path))
        }
        let clock = libevdev_set_clock_id(dev, CLOCK_MONOTONIC)
        guard clock == 0 else {
            libevdev_free(dev)
            close(fd)
            throw InputDeviceError(
                path: path, failure: SystemCallError(call: "libevdev_set_clock_id", errno: Errno(-clock), detail: path))
        }
        var st = stat()
        fstat(fd, &st)
        let rdev = UInt64(st.st_rdev)
        self.path = path
        self.deviceNumber = (
            UInt32(truncatingIfNeeded: ((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~0xfff)),
            UInt32(truncatingIfNeeded: (rdev & 0xff) | ((rdev >> 12) & ~0xff))
        )
        self.fd = fd
        self.handle = dev
        self.description = EvdevDevice.describe(dev)
        self.grabbed = false
    }

    deinit {
        if grabbed { _ = libevdev_grab(handle, LIBEVDEV_UNGRAB) }
        libevdev_free(handle)
        close(fd)
    }

    /// Takes the device exclusively (`libevdev_grab`, EVIOCGRAB): its events no longer reach the
    /// console or anyone else. Used for keyboards.
    mutating func grab() throws(InputDeviceError) {
        let rc = libevdev_grab(handle, LIBEVDEV_GRAB)
        guard rc == 0 else {
            throw InputDeviceError(
                path: path, failure: SystemCallError(call: "libevdev_grab", errno: Errno(-rc), detail: path))
        }
        grabbed = true
    }

    enum ReadOutcome {
        /// Everything available was read (-EAGAIN).
        case drained
        /// The device is gone (-ENODEV): close it.
        case removed
    }

    /// Reads every pending event (`libevdev_next_event`, LIBEVDEV_READ_FLAG_NORMAL) into `sink`.
    ///
    /// On SYN_DROPPED (LIBEVDEV_READ_STATUS_SYNC) calls `resync` first, then reads with
    /// LIBEVDEV_READ_FLAG_SYNC until -EAGAIN: libevdev's sync events are the delta between
    /// what was delivered and the device's real state, ending in SYN_REPORT, so the decoder
    /// applies them as one frame. Throws only for errors other than EAGAIN/EINTR/ENODEV.
    func readEvents(
        resync: () -> Void, _ sink: (InputEvent) -> Void
    ) throws(SystemCallError) -> ReadOutcome {
        var ev = input_event()
        var syncing = false
        while true {
            let flags = syncing ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
            let rc = libevdev_next_event(handle, flags, &ev)
            if rc == Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue) {
                sink(EvdevDevice.event(ev))
            } else if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
                if syncing {
                    sink(EvdevDevice.event(ev))
                } else {
                    // `ev` is the SYN_DROPPED itself.
                    resync()
                    syncing = true
                }
            } else if rc == -EAGAIN {
                if !syncing { return .drained }
                syncing = false
            } else if rc == -EINTR {
                continue
            } else if rc == -ENODEV {
                return .removed
            } else {
                throw SystemCallError(call: "libevdev_next_event", errno: Errno(-rc), detail: path)
            }
        }
    }

    /// The device's current state as events (slots, axes, touch buttons) without a SYN_REPORT:
    /// fed to a fresh decoder so a finger already down, and the kernel's per-slot values it
    /// filters repeats against, are known from the start.
    func currentStateEvents(at time: Instant) -> [InputEvent] {
        var events: [InputEvent] = []
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: time, type: type, code: code, value: value))
        }
        let slots = libevdev_get_num_slots(handle)
        if slots > 0 {
            for slot in 0..<slots {
                add(EvdevCode.evAbs, EvdevCode.absMTSlot, slot)
                for code in [EvdevCode.absMTPositionX, EvdevCode.absMTPositionY, EvdevCode.absMTTrackingID]
                where libevdev_has_event_code(handle, UInt32(EV_ABS), UInt32(code)) != 0 {
                    add(EvdevCode.evAbs, code, libevdev_get_slot_value(handle, UInt32(slot), UInt32(code)))
                }
            }
            add(EvdevCode.evAbs, EvdevCode.absMTSlot, libevdev_get_current_slot(handle))
        } else {
            for code in [EvdevCode.absX, EvdevCode.absY, EvdevCode.absZ, EvdevCode.absRX, EvdevCode.absPressure]
            where libevdev_has_event_code(handle, UInt32(EV_ABS), UInt32(code)) != 0 {
                add(EvdevCode.evAbs, code, libevdev_get_event_value(handle, UInt32(EV_ABS), UInt32(code)))
            }
            for code in [EvdevCode.btnTouch, EvdevCode.btnLeft]
            where libevdev_has_event_code(handle, UInt32(EV_KEY), UInt32(code)) != 0 {
                add(EvdevCode.evKey, code, libevdev_get_event_value(handle, UInt32(EV_KEY), UInt32(code)))
            }
        }
        return events
    }

    private static func event(_ ev: input_event) -> InputEvent {
        var copy = ev
        let sec = cevdev_event_sec(&copy)
        let usec = cevdev_event_usec(&copy)
        return InputEvent(
            time: Instant(nanoseconds: Int64(sec) * 1_000_000_000 + Int64(usec) * 1000), type: ev.type,
            code: ev.code, value: ev.value)
    }

    /// A value snapshot of the capabilities (the same shape an evemu header gives).
    private static func describe(_ dev: OpaquePointer) -> DeviceDescription {
        var d = DeviceDescription()
        d.name = libevdev_get_name(dev).map { String(cString: $0) } ?? ""
        d.id = DeviceID(
            bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(dev)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(dev)))
        for prop in 0..<UInt32(INPUT_PROP_CNT) where libevdev_has_property(dev, prop) != 0 {
            d.properties.insert(UInt16(prop))
        }
        for type in 0..<UInt32(EV_CNT) where libevdev_has_event_type(dev, type) != 0 {
            d.eventTypes.insert(UInt16(type))
            let maxCode = libevdev_event_type_get_max(type)
            guard type != UInt32(EV_SYN), maxCode >= 0 else { continue }
            for code in 0...UInt32(maxCode) where libevdev_has_event_code(dev, type, code) != 0 {
                if type == UInt32(EV_ABS), let info = libevdev_get_abs_info(dev, code)?.pointee {
                    d.enable(
                        abs: UInt16(code),
                        AbsInfo(
                            value: info.value, minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz,
                            flat: info.flat, resolution: info.resolution))
                } else {
                    d.enable(type: UInt16(type), code: UInt16(code))
                }
            }
        }
        return d
    }
}
