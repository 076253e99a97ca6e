import KioskSystem

/// What the store's writer writes: a decision, a visit (its start or its end), or an event.
package enum StoreItem: Hashable, Sendable {
    case decision(DecisionRecord)
    case visit(VisitRecord)
    case event(KioskEventRecord)
}
