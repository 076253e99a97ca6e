import CardModel

/// The cards `render` draws when no `--deck` is given, and the render tests' sample cards: five
/// German cards for the stack and one row per theme for the list, in the spirit of the SwiftUI
/// designs. Only cards: where they sit is the model's business (`StackDeck`, `ListDeck`).
package enum BuiltInCards {
    /// Five German cards for the stack.
    package static let stack: [Card] = [
        Card(
            id: "willkommen", title: "Willkommen!",
            subtitle: "Wische nach rechts für Ja und nach links für Nein. Los geht’s!",
            color: Color(rgb: 0x5856D6)),
        Card(
            id: "broetchen", title: "Frische Brötchen",
            subtitle: "Jeden Morgen ab 6 Uhr aus dem Steinofen – knusprig und warm.", color: Color(rgb: 0x199E94)),
        Card(
            id: "oeffnungszeiten", title: "Öffnungszeiten",
            subtitle: "Montag bis Samstag 7–19 Uhr, sonn- und feiertags geschlossen.", color: Color(rgb: 0xE8672A)),
        Card(
            id: "kundenkarte", title: "Kundenkarte",
            subtitle: "Sammle Punkte bei jedem Einkauf und spare beim nächsten Mal.", color: Color(rgb: 0xA6268C)),
        Card(
            id: "gruesse", title: "Grüße aus Köln",
            subtitle: "Schön, dass du da bist – viel Spaß beim Stöbern!", color: Color(rgb: 0x00235A)),
    ]

    /// Eight list rows, one per theme, as in "Color Cards".
    package static let list: [Card] = [
        ("Design", Theme.yellow), ("App Dev", .orange), ("Web Dev", .poppy), ("Marketing", .bubblegum),
        ("Engineering", .indigo), ("Support", .sky), ("Vertrieb", .teal), ("Buchhaltung", .navy),
    ].enumerated().map { i, pair in
        pair.1.apply(to: Card(id: "row\(i)", title: pair.0, subtitle: "Thema \(pair.1.rawValue)", color: .black))
    }
}
