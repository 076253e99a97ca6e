/// The staff menu: the hidden corner gesture or the key combination (only with a PIN set), the
/// PIN pad, the menu in front of everything; every step is logged.
extension Kiosk {
    /// A frame of the fingers the staff menu owns.
    mutating func staffTouch(_ frame: TouchFrame) {
        let began = frame.contacts.filter { $0.phase == .began }
        if staffMenu.page == .touchTest {
            staffMenu.follow(frame)
            for c in began {
                log(
                    "staff: touch test, finger \(c.id) at \(decimalText(c.position.x, decimals: 0)), "
                        + decimalText(c.position.y, decimals: 0))
            }
        }
        for c in began {
            if let output = staffMenu.tap(at: c.position, screen: metrics.size, time: frame.time) {
                staffApply(output, at: frame.time)
            }
        }
    }

    /// The staff key combination on a keyboard: the PIN pad, as the corner gesture opens it.
    mutating func staffKeysPressed(at time: Instant) {
        guard settings.staffEnabled, !staffMenu.isOpen else { return }
        log("staff: key combination pressed, showing the PIN pad")
        if staffBlanked {
            staffBlanked = false
            effects += [.power(on: true), .redrawAll]
        }
        openStaffMenu(at: time)
    }

    /// The PIN pad, in the kiosk's configured language (or the deck's): staff are not visitors,
    /// so the language a visitor picked does not change the menu. The fingers on the layers
    /// behind it are cancelled.
    mutating func openStaffMenu(at time: Instant) {
        coverDeck(at: time)
        staffMenu.language = languages.kioskLanguage
        staffMenu.open(at: time)
    }

    /// The PIN check's answer.
    mutating func pinAnswered(_ correct: Bool, at time: Instant) {
        switch staffMenu.pinChecked(correct: correct, at: time) {
        case .accepted: log("staff: PIN accepted, menu open")
        case .wrong(let left): warn("staff: wrong PIN (\(left) more before a 60 s lock)")
        case .locked(let until):
            warn(
                "staff: PIN pad locked for \(decimalText(until.seconds(since: time), decimals: 0)) s after wrong PINs")
        case nil: log("staff: PIN answer came after the pad closed; dropped")
        }
    }

    mutating func staffApply(_ output: StaffMenu.Output, at time: Instant) {
        switch output {
        case .checkPIN(let pin):
            // crypt(3) takes tens of ms: the shell checks it off the loop; the pad shows "checking…".
            effects.append(.checkPIN(pin))
        case .closedIdle:
            log("staff: menu closed after 60 s without a touch")
        case .calibrationCancelled:
            log("staff: calibration cancelled; the touch mapping is unchanged")
            effects.append(.calibration(running: false))
        case .perform(let action):
            log("staff: \(UIStrings.text(action.word, in: "en"))")
            switch action {
            case .reloadDeck: effects.append(.reloadDecks(window: rotation.shown))
            case .restartVisit:
                collectDecisions()
                startVisit(at: time)
            case .blankScreen:
                staffBlanked = true
                effects.append(.power(on: false))
            case .screenshot: effects.append(.screenshot)
            case .touchTest: break  // the menu draws the fingers (StaffMenu.follow)
            case .calibrate: effects.append(.calibration(running: true))
            case .exit: staffMenu.close()
            }
        }
    }

    /// The calibration page: the next target (nil: finished) and its lines.
    mutating func calibrationProgress(target: Point?, step: Int?, of count: Int, note: String?, at time: Instant) {
        guard staffMenu.page == .calibrate else { return }
        guard let step else {
            staffMenu.endCalibration()
            return
        }
        let l = staffMenu.language
        let lines = [
            UIStrings.text(.calibrate, in: l), UIStrings.text(.calibrateTarget, in: l, "\(step + 1)", "\(count)"),
        ]
        staffMenu.showCalibration(target: target, lines: lines + (note.map { [$0] } ?? []), at: time)
    }

    /// Whether the staff menu shows its page of facts about the kiosk (`scene(at:staffInfo:)`).
    public var showsStaffInfo: Bool { staffMenu.page == .menu }
}
