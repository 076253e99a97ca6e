import CDrm
import CardModel
import Glibc
import KioskSystem

/// An open DRM card node: owns the fd; every libdrm call the display makes goes through here,
/// each wrapper decoding its own call's return convention into `SystemCallError`/`DisplayError`.
package struct DrmDevice: ~Copyable {
    let fd: Int32
    let path: String

    /// Opens `path` read-write, non-blocking (events are read until EAGAIN), close-on-exec.
    /// Triage: a missing path, a permission problem (naming user and group), a non-device and a
    /// node that is not DRM each get their own `DisplayError`, in that order.
    package init(path: String) throws(DisplayError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let e = Errno.current
            if e == .noEntry { throw .notFound(path: path) }
            if e == .permissionDenied || e == Errno(EPERM) {
                var st = stat()
                let group = stat(path, &st) == 0 ? Self.groupName(st.st_gid) : nil
                throw .permissionDenied(path: path, user: Self.userName(), group: group)
            }
            if e == .noDevice || e == Errno(ENXIO) { throw .notDrm(path: path) }
            if e == Errno(EISDIR) { throw .notADevice(path: path) }
            throw .system(SystemCallError(call: "open", errno: e, detail: path))
        }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFCHR else {
            close(fd)
            throw .notADevice(path: path)
        }
        guard let version = drmGetVersion(fd) else {
            close(fd)
            throw .notDrm(path: path)
        }
        drmFreeVersion(version)
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// The kernel driver's name (`drmGetVersion`), e.g. `virtio_gpu`.
    var driverName: String {
        guard let v = drmGetVersion(fd) else { return "unknown" }
        defer { drmFreeVersion(v) }
        return v.pointee.name.map { String(cString: $0) } ?? "unknown"
    }

    /// `drmGetCap`: 0 when the driver does not know the capability.
    func capability(_ cap: Int32) -> UInt64 {
        var value: UInt64 = 0
        return drmGetCap(fd, UInt64(cap), &value) == 0 ? value : 0
    }

    // MARK: Mastership

    /// Whether this fd is DRM master (the kernel makes the first opener master).
    var isMaster: Bool { drmIsMaster(fd) != 0 }

    /// Becomes DRM master or says who holds it. `drmSetMaster` returns -1 and sets errno.
    func becomeMaster() throws(DisplayError) {
        if isMaster { return }
        if drmSetMaster(fd) == 0 { return }
        let e = Errno.current
        if e == .busy || e == Errno(EINVAL) || e == .permissionDenied || e == Errno(EPERM) {
            throw .notMaster(path: path, holders: Self.processesHolding(path))
        }
        throw .system(SystemCallError(call: "drmSetMaster", errno: e, detail: path))
    }

    // MARK: Snapshots

    /// Copies connectors, encoders and CRTCs out of libdrm and frees each result at once.
    /// `probe`: ask the driver to probe connectors (slow on some hardware; needed on first use
    /// and after a hotplug), else report the last known state (`drmModeGetConnectorCurrent`).
    package func snapshot(probe: Bool = true) throws(DisplayError) -> DrmDeviceSnapshot {
        guard let res = drmModeGetResources(fd) else {
            let e = Errno.current
            // Render-only devices (v3d) answer EOPNOTSUPP/EINVAL: no connectors.
            if e == Errno(EOPNOTSUPP) || e == Errno(EINVAL) {
                return DrmDeviceSnapshot(
                    path: path, driver: driverName, supportsDumbBuffers: false, monotonicTimestamps: false,
                    resources: DrmResources(connectors: [], encoders: [], crtcs: [], maxWidth: 0, maxHeight: 0))
            }
            throw .system(SystemCallError(call: "drmModeGetResources", errno: e, detail: path))
        }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        let crtcIDs = Array(UnsafeBufferPointer(start: r.crtcs, count: Int(r.count_crtcs)))
        let encoderIDs = Array(UnsafeBufferPointer(start: r.encoders, count: Int(r.count_encoders)))
        let connectorIDs = Array(UnsafeBufferPointer(start: r.connectors, count: Int(r.count_connectors)))

        var crtcs: [DrmCRTC] = []
        for id in crtcIDs {
            guard let c = drmModeGetCrtc(fd, id) else {
                crtcs.append(DrmCRTC(id: id, bufferID: 0, x: 0, y: 0, mode: nil))
                continue
            }
            let v = c.pointee
            crtcs.append(
                DrmCRTC(
                    id: id, bufferID: v.buffer_id, x: Int(v.x), y: Int(v.y),
                    mode: v.mode_valid != 0 ? DrmMode(v.mode) : nil))
            drmModeFreeCrtc(c)
        }
        var encoders: [DrmEncoder] = []
        for id in encoderIDs {
            guard let e = drmModeGetEncoder(fd, id) else { continue }
            encoders.append(DrmEncoder(id: id, crtcID: e.pointee.crtc_id, possibleCRTCs: e.pointee.possible_crtcs))
            drmModeFreeEncoder(e)
        }
        var connectors: [DrmConnector] = []
        for id in connectorIDs {
            if let c = try connector(id, probe: probe) { connectors.append(c) }
        }
        return DrmDeviceSnapshot(
            path: path, driver: driverName,
            supportsDumbBuffers: capability(DRM_CAP_DUMB_BUFFER) != 0,
            monotonicTimestamps: capability(DRM_CAP_TIMESTAMP_MONOTONIC) != 0,
            resources: DrmResources(
                connectors: connectors, encoders: encoders, crtcs: crtcs,
                maxWidth: Int(r.max_width), maxHeight: Int(r.max_height)),
            preferredDepth: Int(capability(DRM_CAP_DUMB_PREFERRED_DEPTH)))
    }

    /// One connector's snapshot (`drmModeGetConnector[Current]`, NULL + errno); nil if it vanished.
    func connector(_ id: DrmObjectID, probe: Bool) throws(DisplayError) -> DrmConnector? {
        guard let c = probe ? drmModeGetConnector(fd, id) : drmModeGetConnectorCurrent(fd, id) else {
            let e = Errno.current
            if e == .noEntry { return nil }
            throw .system(SystemCallError(call: "drmModeGetConnector", errno: e, detail: "connector \(id)"))
        }
        defer { drmModeFreeConnector(c) }
        let v = c.pointee
        let modes = UnsafeBufferPointer(start: v.modes, count: Int(v.count_modes)).map(DrmMode.init)
        let encoders = Array(UnsafeBufferPointer(start: v.encoders, count: Int(v.count_encoders)))
        var orientation: PanelOrientation?
        var dpms: DrmObjectID?
        for (prop, value) in zip(
            UnsafeBufferPointer(start: v.props, count: Int(v.count_props)),
            UnsafeBufferPointer(start: v.prop_values, count: Int(v.count_props)))
        {
            guard let p = drmModeGetProperty(fd, prop) else { continue }
            defer { drmModeFreeProperty(p) }
            let name = Self.string(p.pointee.name)
            if name == "DPMS" { dpms = prop }
            if name == "panel orientation" {
                for e in UnsafeBufferPointer(start: p.pointee.enums, count: Int(p.pointee.count_enums))
                where e.value == value {
                    orientation = PanelOrientation(rawValue: Self.string(e.name))
                }
            }
        }
        return DrmConnector(
            id: id, type: v.connector_type, typeIndex: v.connector_type_id,
            connection: DrmConnection(raw: v.connection.rawValue),
            widthMM: Int(v.mmWidth), heightMM: Int(v.mmHeight), modes: modes, encoderIDs: encoders,
            currentEncoderID: v.encoder_id, panelOrientation: orientation, dpmsPropertyID: dpms)
    }

    // MARK: Mode setting and flips

    /// `drmModeSetCrtc` (returns -errno): shows framebuffer `bufferID` on `crtc` driving
    /// `connector` in `mode`; `bufferID` 0 and no mode switch the CRTC off.
    func setCRTC(
        _ crtc: DrmObjectID, bufferID: DrmObjectID, x: Int = 0, y: Int = 0, connector: DrmObjectID?, mode: DrmMode?
    ) throws(SystemCallError) {
        var connectorID = connector ?? 0
        var info = mode?.cValue ?? drmModeModeInfo()
        let r = withUnsafeMutablePointer(to: &connectorID) { c in
            withUnsafeMutablePointer(to: &info) { m in
                drmModeSetCrtc(
                    fd, crtc, bufferID, UInt32(x), UInt32(y), connector == nil ? nil : c, connector == nil ? 0 : 1,
                    mode == nil ? nil : m)
            }
        }
        if r < 0 { throw SystemCallError(call: "drmModeSetCrtc", errno: Errno(-r), detail: "crtc \(crtc)") }
    }

    /// `drmModePageFlip` with `DRM_MODE_PAGE_FLIP_EVENT` (returns -errno): queues `bufferID` for
    /// the next vblank; a `DRM_EVENT_FLIP_COMPLETE` carrying `userData` arrives on the fd.
    func pageFlip(crtc: DrmObjectID, bufferID: DrmObjectID, userData: UInt64) throws(SystemCallError) {
        let r = drmModePageFlip(
            fd, crtc, bufferID, UInt32(DRM_MODE_PAGE_FLIP_EVENT), UnsafeMutableRawPointer(bitPattern: UInt(userData)))
        if r < 0 { throw SystemCallError(call: "drmModePageFlip", errno: Errno(-r), detail: "crtc \(crtc)") }
    }

    /// Reads and parses every pending event (the fd is non-blocking; EAGAIN = drained).
    func readEvents() throws(SystemCallError) -> [DrmEvent] {
        var all: [DrmEvent] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                let e = Errno.current
                if e == .interrupted { continue }
                if e == .wouldBlock { return all }
                throw SystemCallError(call: "read", errno: e, detail: "\(path) events")
            }
            if n == 0 { return all }
            let (events, malformed) = buffer.withUnsafeBytes {
                DrmEvent.parse(UnsafeRawBufferPointer(rebasing: $0[..<n]))
            }
            if malformed > 0 { Log.warning("\(path): \(malformed) bytes of a malformed DRM event skipped") }
            all += events
        }
    }

    /// `drmModeConnectorSetProperty` (returns -errno).
    func setConnectorProperty(_ connector: DrmObjectID, property: DrmObjectID, value: UInt64) throws(SystemCallError) {
        let r = drmModeConnectorSetProperty(fd, connector, property, value)
        if r < 0 {
            throw SystemCallError(
                call: "drmModeConnectorSetProperty", errno: Errno(-r), detail: "connector \(connector)")
        }
    }

    /// Whether the CRTC at `index` counts vblanks: `drmWaitVBlank` for 0 relative vblanks
    /// answers at once on drivers with vblank interrupts and fails (EOPNOTSUPP/EINVAL) on those
    /// whose flips complete immediately. Meaningful only while the CRTC is on.
    package func vblankWorks(crtcIndex: Int) -> Bool {
        var vbl = drmVBlank()
        var type = DRM_VBLANK_RELATIVE.rawValue
        if crtcIndex == 1 {
            type |= DRM_VBLANK_SECONDARY.rawValue
        } else if crtcIndex > 1 {
            type |= (UInt32(crtcIndex) << DRM_VBLANK_HIGH_CRTC_SHIFT) & DRM_VBLANK_HIGH_CRTC_MASK.rawValue
        }
        vbl.request.type = drmVBlankSeqType(rawValue: type)
        vbl.request.sequence = 0
        return drmWaitVBlank(fd, &vbl) == 0
    }

    // MARK: Helpers

    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The effective user's name (or uid).
    static func userName() -> String {
        if let pw = getpwuid(geteuid()), let name = pw.pointee.pw_name { return String(cString: name) }
        return "uid \(geteuid())"
    }

    static func groupName(_ gid: gid_t) -> String? {
        guard gid != 0, let gr = getgrgid(gid), let name = gr.pointee.gr_name else { return nil }
        return String(cString: name)
    }

    /// The DRM card nodes in /dev/dri, in numeric order (card0, card1, …).
    package static func cardPaths(directory: String = "/dev/dri") -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = string(entry.pointee.d_name)
            if name.hasPrefix("card"), let n = Int(name.dropFirst(4)) { numbers.append(n) }
        }
        return numbers.sorted().map { "\(directory)/card\($0)" }
    }

    /// Processes other than this one with `path` open, from /proc/*/fd (readable for root or
    /// the same user; others are silently skipped).
    static func processesHolding(_ path: String) -> [DisplayError.ProcessName] {
        guard let proc = opendir("/proc") else { return [] }
        defer { closedir(proc) }
        let me = getpid()
        var found: [DisplayError.ProcessName] = []
        while let entry = readdir(proc) {
            guard let pid = Int32(string(entry.pointee.d_name)), pid != me else { continue }
            guard let fds = opendir("/proc/\(pid)/fd") else { continue }
            defer { closedir(fds) }
            while let f = readdir(fds) {
                let name = string(f.pointee.d_name)
                guard name.first?.isNumber == true else { continue }
                var target = [CChar](repeating: 0, count: 256)
                let n = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
                guard n > 0 else { continue }
                let linked = String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if linked == path {
                    found.append(DisplayError.ProcessName(pid: pid, command: commandName(pid)))
                    break
                }
            }
        }
        return found.sorted { $0.pid < $1.pid }
    }

    static func commandName(_ pid: Int32) -> String {
        let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &buf, buf.count)
        guard n > 0 else { return "?" }
        return String(decoding: buf[..<n], as: UTF8.self).trimmingTrailingNewline
    }
}

extension String {
    var trimmingTrailingNewline: String {
        var s = self
        while s.last == "\n" { s.removeLast() }
        return s
    }
}

extension DrmMode {
    /// Copies a `drmModeModeInfo`.
    init(_ m: drmModeModeInfo) {
        self.init(
            name: DrmDevice.string(m.name), clockKHz: m.clock,
            hdisplay: m.hdisplay, hsyncStart: m.hsync_start, hsyncEnd: m.hsync_end, htotal: m.htotal, hskew: m.hskew,
            vdisplay: m.vdisplay, vsyncStart: m.vsync_start, vsyncEnd: m.vsync_end, vtotal: m.vtotal, vscan: m.vscan,
            vrefresh: m.vrefresh, flags: m.flags, type: m.type)
    }

    /// The `drmModeModeInfo` to hand to `drmModeSetCrtc`.
    var cValue: drmModeModeInfo {
        var m = drmModeModeInfo()
        m.clock = clockKHz
        m.hdisplay = hdisplay
        m.hsync_start = hsyncStart
        m.hsync_end = hsyncEnd
        m.htotal = htotal
        m.hskew = hskew
        m.vdisplay = vdisplay
        m.vsync_start = vsyncStart
        m.vsync_end = vsyncEnd
        m.vtotal = vtotal
        m.vscan = vscan
        m.vrefresh = vrefresh
        m.flags = flags
        m.type = type
        withUnsafeMutableBytes(of: &m.name) { raw in
            for (i, byte) in name.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        return m
    }
}
