import CEvdev
import Glibc
import KioskSystem

/// A virtual input device made through uinput (`libevdev_uinput_create_from_device`), owning
/// both the libevdev template and the uinput device; destroying it unplugs the device.
package struct UInputDevice: ~Copyable {
    /// `struct libevdev *` (the template)
    private let template: OpaquePointer
    /// `struct libevdev_uinput *`
    private let uinput: OpaquePointer
    /// The /dev/input/eventN node the kernel made, when known.
    package let devnode: String?

    /// Creates a device with exactly the capabilities in `description` (name, ids, properties,
    /// codes, axis ranges). Needs write access to /dev/uinput.
    package init(_ description: DeviceDescription) throws(SystemCallError) {
        guard let dev = libevdev_new() else { throw SystemCallError(call: "libevdev_new", errno: Errno(ENOMEM)) }
        libevdev_set_name(dev, description.name)
        libevdev_set_id_bustype(dev, Int32(description.id.bus))
        libevdev_set_id_vendor(dev, Int32(description.id.vendor))
        libevdev_set_id_product(dev, Int32(description.id.product))
        libevdev_set_id_version(dev, Int32(description.id.version))
        for prop in description.properties.sorted() { _ = libevdev_enable_property(dev, UInt32(prop)) }
        for (type, codes) in description.codes.sorted(by: { $0.key < $1.key }) {
            _ = libevdev_enable_event_type(dev, UInt32(type))
            for code in codes.sorted() {
                if type == EvdevCode.evAbs, let a = description.absInfo[code] {
                    var info = input_absinfo(
                        value: a.value, minimum: a.minimum, maximum: a.maximum, fuzz: a.fuzz, flat: a.flat,
                        resolution: a.resolution)
                    _ = libevdev_enable_event_code(dev, UInt32(type), UInt32(code), &info)
                } else if type != EvdevCode.evAbs {
                    _ = libevdev_enable_event_code(dev, UInt32(type), UInt32(code), nil)
                }
            }
        }
        var ui: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &ui)
        guard rc == 0, let ui else {
            libevdev_free(dev)
            throw SystemCallError(
                call: "libevdev_uinput_create_from_device", errno: Errno(-rc),
                detail: rc == -EACCES || rc == -ENOENT
                    ? "/dev/uinput: load the module ('modprobe uinput') and run as root (the package keeps /dev/uinput 0600)"
                    : "/dev/uinput")
        }
        template = dev
        uinput = ui
        devnode = libevdev_uinput_get_devnode(ui).map { String(cString: $0) }
    }

    deinit {
        libevdev_uinput_destroy(uinput)
        libevdev_free(template)
    }

    /// Writes one event (`libevdev_uinput_write_event`); a frame ends with SYN_REPORT.
    package func write(type: UInt16, code: UInt16, value: Int32) throws(SystemCallError) {
        let rc = libevdev_uinput_write_event(uinput, UInt32(type), UInt32(code), value)
        guard rc == 0 else { throw SystemCallError(call: "libevdev_uinput_write_event", errno: Errno(-rc)) }
    }

    /// Destroys the device now: readers get ENODEV, as when a USB panel is pulled out.
    consuming func unplug() {}

}
