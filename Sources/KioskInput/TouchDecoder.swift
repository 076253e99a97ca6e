import CardModel
import KioskSystem

/// A position in the device's own units (the values of its ABS axes), before any mapping.
package struct DevicePoint: Hashable, Sendable {
    package var x: Double
    package var y: Double
}

/// One contact of a `DeviceTouchFrame`: like `TouchContact`, in device units.
package struct DeviceContact: Hashable, Sendable {
    package var id: Int
    package var position: DevicePoint
    package var phase: TouchPhase
}

/// The contacts of one SYN_REPORT in device units; `TouchMapping` turns it into a `TouchFrame`.
package struct DeviceTouchFrame: Hashable, Sendable {
    package var time: Instant
    package var contacts: [DeviceContact]
}

/// Turns evdev events into touch frames: pure, one device, no I/O.
///
/// Follows libinput's `evdev-fallback.c`: events are recorded per slot (or per contact report,
/// or for the single contact) and applied only at SYN_REPORT. Then each contact that came down
/// appears once as `.began`, each that is still down as `.moved` in every frame that changed
/// something, and each that lifted once as `.ended`; `cancelAll` ends the rest as `.cancelled`.
///
/// - Protocol B: tracking id −1 releases the slot; a slot whose tracking id changes (with or
///   without a −1 in between, within one frame) ends the old contact and begins a new one. A
///   tracking id without any position yet (seen on the Raspberry Pi panel's spurious touches)
///   does not begin a contact until a position arrives.
/// - Protocol A: each SYN_MT_REPORT closes one contact; contacts get stable ids by matching each
///   frame's positions to the previous frame's, nearest pair first (like mtdev). Unlike mtdev a
///   pair further apart than a fifth of the panel diagonal is not matched — that is a finger
///   lifting while another lands elsewhere, not motion (a fast flick moves ~3 % of the panel per
///   frame at 100 Hz, ~10 % at 30 Hz). A frame without reports ends every contact.
/// - Single touch: the `ContactSignal` (BTN_TOUCH, BTN_LEFT or a pressure threshold) decides
///   whether the one contact is down; ABS_X/Y (or a quirk's axes) move it.
/// - SYN_DROPPED in a recording: the kernel's rule — discard everything up to and including the
///   next SYN_REPORT, and forget the unfinished frame. Live devices resync through libevdev
///   instead (`beginLiveResync`; the reader never passes the SYN_DROPPED itself on).
/// - Ends nobody's finger made are `.cancelled`: the kernel's synthetic release when a device
///   goes away (SYN_REPORT value 1) and the ends a live resync discovers (see `process`).
/// - Stuck-contact prevention: BTN_TOUCH going to 0 ends every contact still down (the kernel
///   derives BTN_TOUCH from all slots, so a lost −1 cannot keep a finger down past it); slot
///   reuse with a new tracking id ends the old contact; protocol A and single touch restate the
///   whole state every frame. No timeout: a finger resting still sends nothing, and must stay down.
/// - Palms (protocols A and B, see `PalmRule`): a contact whose ABS_MT_TOOL_TYPE is MT_TOOL_PALM or
///   whose ABS_MT_TOUCH_MAJOR/MINOR is too large is `.cancelled` in the frame that shows it (or
///   never begins, if it lands that way) and is then left out of every frame until it lifts.
struct TouchDecoder {
    let profile: TouchProfile
    private var nextID: Int
    private var state: State
    /// The next SYN_REPORT closes the first frame of a live resync.
    private var resyncFrame = false

    private enum State {
        case slotted(Slotted)
        case anonymous(Anonymous)
        case single(Single)
    }

    /// `firstContactID`: ids are handed out from here upward (the manager gives each device its
    /// own range so ids stay unique across devices).
    init(profile: TouchProfile, firstContactID: Int = 1) {
        self.profile = profile
        self.nextID = firstContactID
        switch profile.touchProtocol {
        case .slotted(let n): state = .slotted(Slotted(count: n))
        case .anonymous: state = .anonymous(Anonymous())
        case .single: state = .single(Single())
        }
    }

    /// Contacts down after the last applied frame (palms left out: no frame shows them).
    var activeContactCount: Int {
        switch state {
        case .slotted(let s): s.applied.filter { $0.contactID != nil && !$0.isPalm }.count
        case .anonymous(let a): a.applied.filter { !$0.isPalm }.count
        case .single(let s): s.contactID == nil ? 0 : 1
        }
    }

    /// Whether events are being discarded after a SYN_DROPPED (recording rule).
    var isDiscarding: Bool {
        switch state {
        case .slotted(let s): s.discarding
        case .anonymous(let a): a.discarding
        case .single(let s): s.discarding
        }
    }

    /// Feeds one event; returns a frame at a SYN_REPORT that changed something.
    ///
    /// Contacts that end in a frame nobody's finger made are `.cancelled`, not `.ended`, so
    /// they neither tap nor fling: a frame the kernel closes with SYN_REPORT value 1 (its own
    /// key release when a device is unplugged, reset or inhibited — `input_disconnect_device`
    /// sends BTN_TOUCH 0 that way just before the reader gets ENODEV), and the first frame after
    /// a live SYN_DROPPED (the contact lifted somewhere during the drop; where and how is lost).
    /// That is libevdev's sync frame, or, when its sync found nothing to report and sent no
    /// frame (always so for protocol A, whose contacts cannot be queried), the next real one.
    mutating func process(_ event: InputEvent) -> DeviceTouchFrame? {
        var frame: DeviceTouchFrame?
        switch state {
        case .slotted(var s):
            frame = s.process(event, profile: profile, nextID: &nextID)
            state = .slotted(s)
        case .anonymous(var a):
            frame = a.process(event, profile: profile, nextID: &nextID)
            state = .anonymous(a)
        case .single(var s):
            frame = s.process(event, profile: profile, nextID: &nextID)
            state = .single(s)
        }
        guard event.type == EvdevCode.evSyn && event.code == EvdevCode.synReport else { return frame }
        let synthetic = event.value != 0 || resyncFrame
        resyncFrame = false
        if synthetic, var f = frame {
            for i in f.contacts.indices where f.contacts[i].phase == .ended { f.contacts[i].phase = .cancelled }
            frame = f
        }
        return frame
    }

    /// A live device reported SYN_DROPPED and libevdev's sync events follow: keep the
    /// unfinished frame (libevdev's state already includes it, so its delta is relative to it)
    /// and apply the delta at the sync's SYN_REPORT. Contacts that end there are cancelled
    /// (see `process`); libevdev ≥ 1.10 sends the ends of changed slots as a first frame of
    /// their own, then the new positions and contacts as a second.
    mutating func beginLiveResync() {
        resyncFrame = true
        switch state {
        case .slotted(var s):
            s.discarding = false
            state = .slotted(s)
        case .anonymous(var a):
            a.discarding = false
            state = .anonymous(a)
        case .single(var s):
            s.discarding = false
            state = .single(s)
        }
    }

    /// Ends every contact as `.cancelled` (device removed, end of a recording) and forgets any
    /// unfinished frame; nil when nothing was down.
    mutating func cancelAll(at time: Instant) -> DeviceTouchFrame? {
        var contacts: [DeviceContact] = []
        switch state {
        case .slotted(var s):
            for i in s.applied.indices {
                if let id = s.applied[i].contactID, !s.applied[i].isPalm {
                    contacts.append(DeviceContact(id: id, position: s.applied[i].point, phase: .cancelled))
                }
                s.applied[i].contactID = nil
                s.applied[i].isPalm = false
                s.applied[i].trackingID = -1
            }
            s.pending = s.applied
            s.released = Array(repeating: false, count: s.applied.count)
            s.touchButtonReleased = false
            s.discarding = false
            state = .slotted(s)
        case .anonymous(var a):
            contacts = a.applied.filter { !$0.isPalm }.map {
                DeviceContact(id: $0.id, position: $0.position, phase: .cancelled)
            }
            a = Anonymous()
            state = .anonymous(a)
        case .single(var s):
            if let id = s.contactID, let p = s.appliedPoint {
                contacts.append(DeviceContact(id: id, position: p, phase: .cancelled))
            }
            s.contactID = nil
            s.pendingDown = false
            s.appliedDown = false
            s.discarding = false
            state = .single(s)
        }
        return contacts.isEmpty ? nil : DeviceTouchFrame(time: time, contacts: contacts)
    }
}

// MARK: - Protocol B

private struct Slot {
    var trackingID: Int32 = -1
    var x: Int32?
    var y: Int32?
    /// ABS_MT_TOOL_TYPE, ABS_MT_TOUCH_MAJOR/MINOR: kept per slot across contacts, as the
    /// kernel does (it sends a value only when it changes).
    var toolType: Int32 = 0
    var major: Int32?
    var minor: Int32?
    /// The contact id while a contact is applied as down (only meaningful in `applied`).
    var contactID: Int?
    /// The applied contact was judged a palm: cancelled, and silent until it lifts.
    var isPalm = false

    var hasPosition: Bool { x != nil && y != nil }
    var point: DevicePoint { DevicePoint(x: Double(x ?? 0), y: Double(y ?? 0)) }
}

/// A decoder that collects one frame's events and applies them at SYN_REPORT. After
/// SYN_DROPPED it discards everything up to and including the next SYN_REPORT, having
/// dropped what was pending (the kernel's rule; the live reader resyncs with libevdev).
private protocol FrameAssembler {
    var discarding: Bool { get set }
    mutating func dropPending()
    mutating func flush(time: Instant, profile: TouchProfile, nextID: inout Int) -> DeviceTouchFrame?
}

extension FrameAssembler {
    /// Handles one EV_SYN event: the frame it completes, if any.
    mutating func synchronize(_ e: InputEvent, profile: TouchProfile, nextID: inout Int) -> DeviceTouchFrame? {
        if e.code == EvdevCode.synDropped {
            discarding = true
            dropPending()
            return nil
        }
        guard e.code == EvdevCode.synReport else { return nil }
        if discarding {
            discarding = false
            return nil
        }
        return flush(time: e.time, profile: profile, nextID: &nextID)
    }
}

private struct Slotted: FrameAssembler {
    var applied: [Slot]
    var pending: [Slot]
    /// A −1 arrived for the slot in the unfinished frame.
    var released: [Bool]
    var current = 0
    var touchButtonReleased = false
    var discarding = false

    init(count: Int) {
        applied = Array(repeating: Slot(), count: count)
        pending = applied
        released = Array(repeating: false, count: count)
    }

    mutating func process(_ e: InputEvent, profile: TouchProfile, nextID: inout Int) -> DeviceTouchFrame? {
        if e.type == EvdevCode.evSyn { return synchronize(e, profile: profile, nextID: &nextID) }
        if discarding { return nil }
        if e.type == EvdevCode.evKey && e.code == EvdevCode.btnTouch {
            touchButtonReleased = e.value == 0
            return nil
        }
        guard e.type == EvdevCode.evAbs else { return nil }
        switch e.code {
        case EvdevCode.absMTSlot:
            current = Int(e.value)
        case EvdevCode.absMTTrackingID where pending.indices.contains(current):
            if e.value < 0 {
                if pending[current].trackingID >= 0 { released[current] = true }
                pending[current].trackingID = -1
            } else {
                pending[current].trackingID = e.value
            }
        case profile.xCode where pending.indices.contains(current):
            pending[current].x = e.value
        case profile.yCode where pending.indices.contains(current):
            pending[current].y = e.value
        case EvdevCode.absMTToolType where pending.indices.contains(current):
            pending[current].toolType = e.value
        case EvdevCode.absMTTouchMajor where pending.indices.contains(current):
            pending[current].major = e.value
        case EvdevCode.absMTTouchMinor where pending.indices.contains(current):
            pending[current].minor = e.value
        default:
            break
        }
        return nil
    }

    /// Forgets what arrived since the last applied frame (SYN_DROPPED).
    mutating func dropPending() {
        pending = applied
        released = Array(repeating: false, count: applied.count)
        touchButtonReleased = false
    }

    mutating func flush(time: Instant, profile: TouchProfile, nextID: inout Int) -> DeviceTouchFrame? {
        var contacts: [DeviceContact] = []
        var changed = false
        if touchButtonReleased {
            // BTN_TOUCH 0: no finger is down anywhere, whatever the slots still say.
            for i in pending.indices where pending[i].trackingID >= 0 {
                pending[i].trackingID = -1
                released[i] = true
            }
        }
        for i in pending.indices {
            let was = applied[i]
            var now = pending[i]
            let nowDown = now.trackingID >= 0 && now.hasPosition
            let restarted =
                was.contactID != nil && now.trackingID >= 0
                && (released[i] || now.trackingID != was.trackingID)
            let palm = profile.palm.rejects(toolType: now.toolType, major: now.major, minor: now.minor)
            now.contactID = nil
            now.isPalm = false
            if let id = was.contactID, !nowDown || restarted, !was.isPalm {
                let at = restarted ? was.point : now.point
                contacts.append(DeviceContact(id: id, position: at, phase: .ended))
                changed = true
            }
            if nowDown {
                if let id = was.contactID, !restarted {
                    now.contactID = id
                    now.isPalm = was.isPalm || palm
                    if !was.isPalm {
                        contacts.append(DeviceContact(id: id, position: now.point, phase: palm ? .cancelled : .moved))
                        if palm || now.x != was.x || now.y != was.y { changed = true }
                    }
                } else {
                    now.contactID = nextID
                    nextID += 1
                    now.isPalm = palm
                    if !palm {
                        contacts.append(DeviceContact(id: now.contactID!, position: now.point, phase: .began))
                        changed = true
                    }
                }
            }
            applied[i] = now
        }
        pending = applied
        released = Array(repeating: false, count: applied.count)
        touchButtonReleased = false
        return changed ? DeviceTouchFrame(time: time, contacts: contacts) : nil
    }
}

// MARK: - Protocol A

private struct Anonymous {
    struct Contact {
        var id: Int
        var position: DevicePoint
        /// Judged a palm: cancelled, and silent until it lifts.
        var isPalm = false
    }
    struct Report {
        var position: DevicePoint
        var isPalm: Bool
    }
    var applied: [Contact] = []
    /// Contacts closed by SYN_MT_REPORT in the unfinished frame.
    var reports: [Report] = []
    var x: Int32?
    var y: Int32?
    /// Protocol A restates every value in every report, so these start afresh for each.
    var toolType: Int32 = 0
    var major: Int32?
    var minor: Int32?
    var discarding = false

    mutating func clearReport() {
        x = nil
        y = nil
        toolType = 0
        major = nil
        minor = nil
    }

    mutating func process(_ e: InputEvent, profile: TouchProfile, nextID: inout Int) -> DeviceTouchFrame? {
        if e.type == EvdevCode.evSyn {
            switch e.code {
            case EvdevCode.synDropped:
                discarding = true
                reports = []
                clearReport()
            case EvdevCode.synMTReport where !discarding:
                if let x, let y {
                    let palm = profile.palm.rejects(toolType: toolType, major: major, minor: minor)
                    reports.append(Report(position: DevicePoint(x: Double(x), y: Double(y)), isPalm: palm))
                }
                clearReport()
            case EvdevCode.synReport:
                if discarding {
                    discarding = false
                    return nil
                }
                return flush(time: e.time, profile: profile, nextID: &nextID)
            default:
                break
            }
            return nil
        }
        if discarding || e.type != EvdevCode.evAbs { return nil }
        switch e.code {
        case profile.xCode: x = e.value
        case profile.yCode: y = e.value
        case EvdevCode.absMTToolType: toolType = e.value
        case EvdevCode.absMTTouchMajor: major = e.value
        case EvdevCode.absMTTouchMinor: minor = e.value
        default: break
        }
        return nil
    }

    mutating func flush(time: Instant, profile: TouchProfile, nextID: inout Int) -> DeviceTouchFrame? {
        let now = reports
        reports = []
        clearReport()
        // Nearest pairs first: every (previous, current) pair by squared distance.
        var pairs: [(d: Double, old: Int, new: Int)] = []
        for (i, old) in applied.enumerated() {
            for (j, r) in now.enumerated() {
                let dx = old.position.x - r.position.x
                let dy = old.position.y - r.position.y
                pairs.append((dx * dx + dy * dy, i, j))
            }
        }
        pairs.sort { ($0.d, $0.old, $0.new) < ($1.d, $1.old, $1.new) }
        var oldTaken = Array(repeating: false, count: applied.count)
        var newOwner: [Int?] = Array(repeating: nil, count: now.count)
        let dx = Double(profile.x.maximum) - Double(profile.x.minimum)
        let dy = Double(profile.y.maximum) - Double(profile.y.minimum)
        let limit = (dx * dx + dy * dy) / 25  // (diagonal / 5)²
        for pair in pairs where pair.d <= limit && !oldTaken[pair.old] && newOwner[pair.new] == nil {
            oldTaken[pair.old] = true
            newOwner[pair.new] = pair.old
        }
        var contacts: [DeviceContact] = []
        var changed = false
        for (i, old) in applied.enumerated() where !oldTaken[i] && !old.isPalm {
            contacts.append(DeviceContact(id: old.id, position: old.position, phase: .ended))
            changed = true
        }
        var next: [Contact] = []
        for (j, r) in now.enumerated() {
            let p = r.position
            if let i = newOwner[j] {
                let old = applied[i]
                next.append(Contact(id: old.id, position: p, isPalm: old.isPalm || r.isPalm))
                if old.isPalm { continue }
                if old.position != p || r.isPalm { changed = true }
                contacts.append(DeviceContact(id: old.id, position: p, phase: r.isPalm ? .cancelled : .moved))
            } else {
                next.append(Contact(id: nextID, position: p, isPalm: r.isPalm))
                if !r.isPalm {
                    contacts.append(DeviceContact(id: nextID, position: p, phase: .began))
                    changed = true
                }
                nextID += 1
            }
        }
        applied = next
        contacts.sort { ($0.phase == .ended ? 0 : 1, $0.id) < ($1.phase == .ended ? 0 : 1, $1.id) }
        return changed ? DeviceTouchFrame(time: time, contacts: contacts) : nil
    }
}

// MARK: - Single touch

private struct Single: FrameAssembler {
    var pendingX: Int32?
    var pendingY: Int32?
    var pendingDown = false
    var appliedX: Int32?
    var appliedY: Int32?
    var appliedDown = false
    var contactID: Int?
    var discarding = false

    var appliedPoint: DevicePoint? {
        guard let appliedX, let appliedY else { return nil }
        return DevicePoint(x: Double(appliedX), y: Double(appliedY))
    }

    mutating func process(_ e: InputEvent, profile: TouchProfile, nextID: inout Int) -> DeviceTouchFrame? {
        guard case .single(let signal) = profile.touchProtocol else { return nil }
        if e.type == EvdevCode.evSyn { return synchronize(e, profile: profile, nextID: &nextID) }
        if discarding { return nil }
        switch (e.type, signal) {
        case (EvdevCode.evKey, .touchButton) where e.code == EvdevCode.btnTouch,
            (EvdevCode.evKey, .leftButton) where e.code == EvdevCode.btnLeft:
            pendingDown = e.value != 0
        case (EvdevCode.evAbs, .pressure(let press, let release)) where e.code == EvdevCode.absPressure:
            if pendingDown ? e.value <= release : e.value > press { pendingDown.toggle() }
        case (EvdevCode.evAbs, _) where e.code == profile.xCode:
            pendingX = e.value
        case (EvdevCode.evAbs, _) where e.code == profile.yCode:
            pendingY = e.value
        default:
            break
        }
        return nil
    }

    /// Forgets what arrived since the last applied frame (SYN_DROPPED).
    mutating func dropPending() {
        pendingX = appliedX
        pendingY = appliedY
        pendingDown = appliedDown
    }

    mutating func flush(time: Instant, profile: TouchProfile, nextID: inout Int) -> DeviceTouchFrame? {
        let moved = pendingX != appliedX || pendingY != appliedY
        appliedX = pendingX
        appliedY = pendingY
        appliedDown = pendingDown
        guard let point = appliedPoint else { return nil }
        if appliedDown {
            if let id = contactID {
                return moved
                    ? DeviceTouchFrame(time: time, contacts: [DeviceContact(id: id, position: point, phase: .moved)])
                    : nil
            }
            contactID = nextID
            nextID += 1
            return DeviceTouchFrame(
                time: time, contacts: [DeviceContact(id: contactID!, position: point, phase: .began)])
        }
        guard let id = contactID else { return nil }
        contactID = nil
        return DeviceTouchFrame(time: time, contacts: [DeviceContact(id: id, position: point, phase: .ended)])
    }
}
