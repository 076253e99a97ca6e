/// The screen's layers that can own a finger, front to back: the order `Kiosk.scene(at:)`
/// stacks them in.
public enum TouchLayer: Int, Hashable, Sendable, CaseIterable, Comparable {
    /// The staff menu and its PIN pad (and the blanked screen it leaves).
    case staff
    /// The closed-hours screen.
    case closed
    /// The language keys.
    case language
    /// The accessibility control ("Aa" and its panel).
    case access
    /// The card stack or list.
    case deck
    /// Nobody's: a finger the visitor session swallowed (the touch that woke the panel, the one
    /// that extended the countdown) or whose layer gave it up (a menu opened over the deck).
    case nobody

    public static func < (a: TouchLayer, b: TouchLayer) -> Bool { a.rawValue < b.rawValue }
}

/// One owner per contact, chosen once at touch-down and kept until lift (libinput's
/// `fallback_arbitrate_touch`, weston's touch grabs): a frame is split into one frame per
/// layer holding that layer's contacts, so no layer filters another's frames later.
public struct TouchRouter: Hashable, Sendable {
    private var owners: [Int: TouchLayer] = [:]

    public init() {}

    /// The owner of contact `id` while it is down.
    public func owner(of id: Int) -> TouchLayer? { owners[id] }

    /// Whether a contact is down that `layer` owns.
    public func holds(_ layer: TouchLayer) -> Bool { owners.values.contains(layer) }

    /// Splits `frame`: a contact that begins (or is seen for the first time) gets the owner
    /// `choose` names for it; every other contact goes to the owner it has. A contact that ends
    /// or is cancelled is forgotten after this frame. Layers without contacts get no frame.
    public mutating func route(_ frame: TouchFrame, choose: (TouchContact) -> TouchLayer) -> [TouchLayer: TouchFrame] {
        var contacts: [TouchLayer: [TouchContact]] = [:]
        for c in frame.contacts {
            let owner: TouchLayer
            if c.phase == .began || owners[c.id] == nil {
                owner = choose(c)
                owners[c.id] = owner
            } else {
                owner = owners[c.id] ?? .nobody
            }
            contacts[owner, default: []].append(c)
            if c.phase == .ended || c.phase == .cancelled { owners[c.id] = nil }
        }
        return contacts.mapValues { TouchFrame(time: frame.time, contacts: $0) }
    }

    /// `layer` gives up its contacts (a layer in front of it opened): they belong to nobody
    /// until they lift. Returns whether it had any.
    @discardableResult
    public mutating func release(_ layer: TouchLayer) -> Bool {
        var had = false
        for (id, owner) in owners where owner == layer {
            owners[id] = .nobody
            had = true
        }
        return had
    }

    /// Forgets every contact (a new screen size, a new deck).
    public mutating func reset() { owners = [:] }
}
