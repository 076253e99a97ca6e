import CardModel
import Glibc
import KioskDeckFiles
import KioskInput
import KioskStore
import KioskSystem

/// The staff menu in the running kiosk: the hidden corner gesture (only with a
/// `staff-pin-hash` in the config), the PIN pad, the menu over the deck; every step is logged.
extension KioskApp {
    /// Takes `frame` when the staff menu (or its blanked screen) owns touches; else follows the
    /// hidden gesture and lets the frame go on to the visitor session.
    func staffTake(_ frame: TouchFrame) -> Bool {
        let began = frame.contacts.filter { $0.phase == .began }
        if staffBlanked, !began.isEmpty {
            staffBlanked = false
            Log.info("staff: touch, switching the panel on (blanked from the staff menu)")
            display.setPower(on: true)
            redrawAll()
            staffSwallowed.formUnion(began.map(\.id))
        }
        if !staffSwallowed.isEmpty {
            for c in frame.contacts where c.phase == .ended || c.phase == .cancelled { staffSwallowed.remove(c.id) }
            _ = session.handle(frame)  // keeps the session's idea of fingers down right
            return true
        }
        if staffMenu.isOpen {
            _ = session.handle(frame)
            if staffMenu.page == .touchTest {
                staffMenu.follow(frame)
                for c in began {
                    Log.info(
                        "staff: touch test, finger \(c.id) at \(jsonNumber(c.position.x, decimals: 0)), \(jsonNumber(c.position.y, decimals: 0))"
                    )
                }
            }
            for c in began {
                if let output = staffMenu.tap(at: c.position, screen: surface.metrics.size, time: frame.time) {
                    staffApply(output, at: frame.time)
                }
            }
            rescheduleStaff()
            display.requestFrame()
            return true
        }
        guard config.staffPinHash != nil else { return false }
        staffEntry.handle(frame)
        rescheduleStaff()
        return false
    }

    /// Makes the worker that checks PINs (its answers arrive on the loop).
    func startStaff() {
        guard config.staffPinHash != nil else { return }
        pinChecks = LoopDelivery(loop: loop, what: "staff PIN") { [unowned self] correct in
            self.pinAnswered(correct, at: MonotonicClock.now())
        }
        if let keys = config.staffKeys { Log.info("staff: \(keys) on a keyboard opens the menu") }
    }

    /// The PIN check's answer, on the loop.
    func pinAnswered(_ correct: Bool, at time: Instant) {
        switch staffMenu.pinChecked(correct: correct, at: time) {
        case .accepted: Log.info("staff: PIN accepted, menu open")
        case .wrong(let left): Log.warning("staff: wrong PIN (\(left) more before a 60 s lock)")
        case .locked(let until):
            Log.warning(
                "staff: PIN pad locked for \(jsonNumber(until.seconds(since: time), decimals: 0)) s after wrong PINs")
        case nil: Log.info("staff: PIN answer came after the pad closed; dropped")
        }
        rescheduleStaff()
        display.requestFrame()
    }

    /// The staff key combination on a keyboard: the PIN pad, as the corner gesture opens it.
    func staffKeysPressed(at time: Instant) {
        guard config.staffPinHash != nil, !staffMenu.isOpen else { return }
        Log.info("staff: key combination pressed, showing the PIN pad")
        if staffBlanked {
            staffBlanked = false
            display.setPower(on: true)
            redrawAll()
        }
        deck.cancelTouches(at: time)
        openStaffMenu(at: time)
        rescheduleStaff()
        display.requestFrame()
    }

    /// The PIN pad, in the kiosk's configured language (or the deck's): staff are not visitors,
    /// so the language a visitor picked does not change the menu (docs/LANGUAGES.md).
    func openStaffMenu(at time: Instant) {
        staffMenu.language = languages.startLanguage
        staffMenu.open(at: time)
    }

    func rescheduleStaff() {
        if let staffTimer { loop.cancelTimer(staffTimer) }
        staffTimer = nil
        guard let at = [staffEntry.nextDeadline, staffMenu.nextDeadline].compactMap({ $0 }).min() else { return }
        staffTimer = loop.schedule(at: at) { [unowned self] in
            self.staffTimer = nil
            let now = MonotonicClock.now()
            if self.staffEntry.advance(to: now) {
                Log.info("staff: hidden gesture made, showing the PIN pad")
                self.deck.cancelTouches(at: now)
                self.openStaffMenu(at: now)
                self.display.requestFrame()
            }
            if let output = self.staffMenu.advance(to: now) { self.staffApply(output, at: now) }
            self.rescheduleStaff()
        }
    }

    func staffApply(_ output: StaffMenu.Output, at time: Instant) {
        switch output {
        case .checkPIN(let pin):
            // crypt(3) with yescrypt takes tens of ms: off the loop; the pad shows "checking…"
            // and `pinAnswered` takes the answer on the loop.
            guard let hash = config.staffPinHash, let checks = pinChecks else {
                pinAnswered(false, at: time)
                break
            }
            checks.run("staff-pin") { StaffPin.matches(pin, storedHash: hash) }
        case .closedIdle:
            Log.info("staff: menu closed after 60 s without a touch")
        case .calibrationCancelled:
            Log.info("staff: calibration cancelled; the touch mapping is unchanged")
            stopCalibration()
        case .perform(let action):
            Log.info("staff: \(UIStrings.text(action.word, in: "en"))")
            switch action {
            case .reloadDeck:
                // The deck file the kiosk runs (its schedule rules), then a window's deck on
                // screen; both are read on a worker.
                reloadPrimaryDeck()
                reloadWindowDeck()
            case .restartVisit:
                collectDecisions()
                startVisit(at: time)
            case .blankScreen:
                staffBlanked = true
                display.setPower(on: false)
            case .screenshot: saveScreenshot()
            case .touchTest: break  // the menu draws the fingers (StaffMenu.follow)
            case .calibrate: startCalibration(at: time)
            case .exit: staffMenu.close()
            }
        }
        display.requestFrame()
    }

    /// `scene` with the staff menu on top while it is open.
    func staffOverlay(_ scene: Scene) -> Scene {
        guard staffMenu.isOpen else { return scene }
        let info = staffMenu.page == .menu ? staffInfo() : []
        return Scene(
            size: scene.size, background: scene.background,
            elements: scene.elements + staffMenu.elements(info: info, screen: scene.size),
            isAnimating: scene.isAnimating)
    }

    /// The menu's lines: who and what this kiosk is and how it is doing.
    func staffInfo() -> [String] {
        let s = store.currentStatus
        let up = Int(MonotonicClock.now().seconds(since: stats.processStart))
        let l = staffMenu.language
        var lines = [
            UIStrings.text(.infoKiosk, in: l, kioskID),
            UIStrings.text(
                .infoIP, in: l, Self.ipAddresses().joined(separator: ", ").nonEmpty ?? UIStrings.text(.infoNone, in: l)),
            "KioskCards \(kioskCardsVersion)",
            UIStrings.text(.infoDeck, in: l, deckFile.id, "\(deckFile.version)"),
            UIStrings.text(.infoDecisions, in: l, "\(s.stored)", "\(s.pending)"),
            s.failing
                ? UIStrings.text(.infoStorageFailing, in: l, s.lastError ?? "") : UIStrings.text(.infoStorageOK, in: l),
            UIStrings.text(.infoUptime, in: l, "\(up / 3600)", "\(up / 60 % 60)"),
            Self.fleetLine(fleet.map { ($0.currentState, $0.sent) }, language: l),
        ]
        if let t = Self.cpuTemperature() {
            lines.append(UIStrings.text(.infoTemperature, in: l, jsonNumber(t, decimals: 1)))
        }
        return lines
    }

    /// The calibration from the menu: `CalibrationSequence` (as `KioskCards calibrate` runs it)
    /// on the raw device frames, its target drawn by the menu. The result maps touches at once
    /// and is written to kiosk.conf's `touch-matrix` off the loop.
    func startCalibration(at time: Instant) {
        calibration = nil
        // The sequence's targets are these (the panel's logical size), so the first shows at once.
        let targets = TouchCalibration.targets(for: surface.metrics.size)
        staffMenu.showCalibration(
            target: targets.first, lines: calibrationLines(step: 0, of: targets.count), at: time)
        Log.info("staff: calibration started, target 1 at \(CalibrateCommand.pointText(targets[0])) pt")
        input?.onDeviceFrame = { [unowned self] raw, mapping in self.calibrationFrame(raw, mapping: mapping) }
    }

    func stopCalibration() {
        input?.onDeviceFrame = nil
        calibration = nil
    }

    private func calibrationFrame(_ raw: DeviceTouchFrame, mapping: TouchMapping) {
        guard staffMenu.page == .calibrate else {
            stopCalibration()  // the menu closed (idle, Escape) in the middle
            return
        }
        var sequence = calibration ?? CalibrationSequence(mapping: mapping)
        let outcome = sequence.handle(raw)
        calibration = sequence
        let n = sequence.targets.count
        let target = sequence.currentTarget.map { sequence.targets[$0] }
        let lines = calibrationLines(step: sequence.currentTarget, of: n)
        switch outcome {
        case .nothing, .pressed: break
        case .accepted(let i):
            Log.info("staff: calibration target \(i + 1) of \(n) tapped")
            staffMenu.showCalibration(target: target, lines: lines, at: raw.time)
        case .refused(let why), .restarted(let why):
            Log.warning("staff: calibration: \(why)")
            staffMenu.showCalibration(
                target: target, lines: lines + [why.text(in: staffMenu.language)], at: raw.time)
        case .finished(let result):
            Log.info(
                "staff: calibrated, touch-matrix = \(ConfigEdit.matrixValue(result.matrix)), worst error "
                    + "\(jsonNumber(result.worstErrorPoints, decimals: 2)) pt; touches use it now")
            input?.setCalibration(result.matrix)
            stopCalibration()
            staffMenu.endCalibration()
            saveCalibration(result.matrix)
        }
        display.requestFrame()
    }

    /// The calibration page's lines: its title and which target to tap (none when finished).
    func calibrationLines(step: Int?, of count: Int) -> [String] {
        let l = staffMenu.language
        let title = UIStrings.text(.calibrate, in: l)
        guard let step else { return [title] }
        return [title, UIStrings.text(.calibrateTarget, in: l, "\(step + 1)", "\(count)")]
    }

    /// Writes `touch-matrix` into the config file in the background (the file may be on a slow card).
    private func saveCalibration(_ matrix: TouchMatrix) {
        guard let path = config.configPath else {
            Log.warning("staff: no config file was read; the calibration lasts until restart")
            return
        }
        BackgroundWork.run("calibration-save") {
            let original = try? FileIO.readText(path, limit: 1 << 20)
            switch CalibrateCommand.save(matrix, original: original, path: path) {
            case .success(let p): Log.info("staff: calibration written to \(p)")
            case .failure(let e): Log.error("staff: calibration not saved: \(e)")
            }
        }
    }

    /// The fleet sync's state for the menu: off, or its state and what it sent this run.
    static func fleetLine(_ fleet: (state: FleetSyncWorker.State, sent: Int)?, language: String?) -> String {
        guard let fleet else { return UIStrings.text(.infoFleetOff, in: language) }
        return UIStrings.text(.infoFleet, in: language, "\(fleet.state)", "\(fleet.sent)")
    }

    /// A key while the staff menu is open is the menu's: Escape closes it, others do nothing
    /// (they never reach the deck behind it). Returns true when taken.
    func staffTakeKey(_ key: KeyAction, at time: Instant) -> Bool {
        guard staffMenu.isOpen else { return false }
        if key == .escape {
            Log.info("staff: Escape, menu closed")
            staffMenu.close()
            rescheduleStaff()
            display.requestFrame()
        }
        return true
    }

    /// IPv4 and IPv6 addresses of the interfaces that are up, loopback left out (getifaddrs).
    static func ipAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var out: [String] = []
        var p: UnsafeMutablePointer<ifaddrs>? = first
        while let a = p {
            defer { p = a.pointee.ifa_next }
            guard let addr = a.pointee.ifa_addr, a.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0 else { continue }
            let family = Int32(addr.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let len = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            if getnameinfo(addr, len, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                let name = String(cString: a.pointee.ifa_name)
                out.append(
                    "\(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) (\(name))"
                )
            }
        }
        return out
    }

    /// The first thermal zone's temperature in °C (sysfs, millidegrees); nil without one.
    static func cpuTemperature() -> Double? {
        guard let bytes = try? FileIO.readAll("/sys/class/thermal/thermal_zone0/temp", limit: 64) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).filter(\.isNumber)
        return Double(text).map { $0 / 1000 }
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
