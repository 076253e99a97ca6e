extension StackDeck: AccessibleDeck {
    /// ←/→ decide, Backspace undoes, Delete removes, ↑/Enter/help read the top card.
    public func command(for key: AccessKey) -> AccessCommand? {
        switch key {
        case .left: .deck(.dismissLeft)
        case .right: .deck(.dismissRight)
        case .backspace: .deck(.undo)
        case .delete: .deck(.remove)
        case .up, .enter, .help: .speak(spokenText)
        case .down, .escape, .plus, .accessibility: nil
        }
    }

    /// Left, right, undo, read (the buttons' order on screen, then reading).
    public var scanChoices: [ScanChoice] { [.action(.dismissLeft), .action(.dismissRight), .action(.undo), .read] }

    public var spokenText: String {
        guard let card = remainingCards.first else { return options.emptyText }
        return spoken([card.title, card.subtitle, card.imageDescription, options.leftLabel, options.rightLabel])
    }

    public func highlightFrame(of choice: ScanChoice, at time: Instant) -> Rect? {
        switch choice {
        case .action(.dismissLeft): layout.frame(of: .dismissLeft) ?? leftHalf
        case .action(.dismissRight): layout.frame(of: .dismissRight) ?? rightHalf
        case .action(.undo): layout.frame(of: .undo) ?? layout.cardFrame
        case .accessibility: nil
        default: layout.cardFrame
        }
    }

    private var leftHalf: Rect {
        let f = layout.cardFrame
        return Rect(x: f.minX, y: f.minY, width: f.width / 2, height: f.height)
    }

    private var rightHalf: Rect {
        let f = layout.cardFrame
        return Rect(x: f.center.x, y: f.minY, width: f.width / 2, height: f.height)
    }
}
