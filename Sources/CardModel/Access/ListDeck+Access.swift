extension ListDeck: AccessibleDeck {
    /// ↑/↓ move the focus ring, Enter (or →) opens the detail, Esc/Backspace (or ←) go back,
    /// Delete deletes the focused row (on a detail page: its card), + adds, help reads.
    public func command(for key: AccessKey) -> AccessCommand? {
        let detailOpen = openCard != nil
        switch key {
        case .up: return detailOpen ? nil : .deck(.focusPrevious)
        case .down: return detailOpen ? nil : .deck(.focusNext)
        case .enter, .right: return detailOpen ? nil : .deck(.open)
        case .escape, .backspace, .left: return detailOpen ? .deck(.back) : nil
        case .delete: return .deck(.remove)
        case .plus: return detailOpen ? nil : .deck(.add)
        case .help: return .speak(spokenText)
        case .accessibility: return nil
        }
    }

    /// In the list: next row, open, delete, add, read; on a detail page: back, delete, read.
    public var scanChoices: [ScanChoice] {
        if openCard != nil { return [.action(.back), .action(.remove), .read] }
        return [.action(.focusNext), .action(.open), .action(.remove), .action(.add), .read]
    }

    public var spokenText: String {
        if let card = openCard { return spoken([card.title, card.subtitle, card.imageDescription]) }
        guard let card = focusedCard ?? cards.first else { return spoken([title, emptyText]) }
        return spoken([card.title, card.subtitle, card.imageDescription])
    }

    /// The focused row's card, if the focus is on a row that is still there.
    public var focusedCard: Card? { cards.first { $0.id == focusedRowID } }

    public func highlightFrame(of choice: ScanChoice, at time: Instant) -> Rect? {
        switch choice {
        case .action(.add): return layout.addButton
        case .action(.back): return layout.backButton
        case .action(.remove) where openCard != nil: return layout.detailDeleteButton
        case .action(.focusNext), .action(.open), .action(.remove), .read:
            if openCard != nil { return Rect(origin: .zero, size: layout.screen) }
            guard let id = focusedRowID, let i = cards.firstIndex(where: { $0.id == id }) else {
                return layout.viewport
            }
            return rowFrame(i, offset: scrollOffset(at: time), at: time)
        default: return nil
        }
    }
}
