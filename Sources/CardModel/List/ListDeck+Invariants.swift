extension ListDeck {
    /// Debug builds check the list's structure after every mutation; release builds skip it.
    func checkInvariants() {
        #if DEBUG
            var ids = Set<String>()
            var held: String?
            if case .swiping(let id, _, _) = grab { held = id }
            for r in rows {
                precondition(ids.insert(r.card.id).inserted, "duplicate row id \(r.card.id)")
                precondition(r.shift.target == 0, "row \(r.card.id) springs to a shifted slot")
                // A row the finger holds may be pulled right (rubber band); a free one rests at 0.
                precondition(r.card.id == held || r.swipe.target <= 0, "row \(r.card.id) left swiped right")
            }
            for d in departing {
                precondition(ids.insert(d.card.id).inserted, "departing row \(d.card.id) also listed")
                precondition(d.swipe.target < 0, "departing row going nowhere")
            }
            if case .swiping(let id, _, _) = grab {
                precondition(rows.contains { $0.card.id == id }, "swiping a row that is gone")
            }
        #endif
    }
}
