extension StackDeck {
    /// Debug builds check the deck's structure after every mutation (swift-collections'
    /// `_checkInvariants` pattern); release builds skip it.
    func checkInvariants() {
        #if DEBUG
            var ids = Set<String>()
            for e in cards { precondition(ids.insert(e.card.id).inserted, "duplicate card id \(e.card.id)") }
            for d in departures {
                precondition(ids.insert(d.entry.card.id).inserted, "departing card \(d.entry.card.id) also in stack")
                precondition(d.entry.opacity.target == 0 || d.entry.drag.target.x != 0, "departure going nowhere")
            }
            for (i, e) in cards.enumerated() {
                precondition(e.depth.target == Double(i), "card \(i) springs to depth \(e.depth.target)")
                precondition(e.drag.target.x.isFinite && e.drag.target.y.isFinite, "non-finite drag target")
            }
            if case .card(let id, _) = grab { precondition(cards.first?.card.id == id, "grab on a card not on top") }
        #endif
    }
}
