import CardModel
import Glibc
import KioskStore
import KioskSystem

/// What the staff menu's page says about this kiosk: who and what it is and how it is doing.
enum StaffFacts {
    /// The menu's lines in `language`.
    static func lines(
        kioskID: String, deck: KioskDeck, store: DecisionStore.Status, uptimeSeconds: Int,
        fleet: (state: FleetSyncWorker.State, sent: Int)?, language l: String?
    ) -> [String] {
        let up = uptimeSeconds
        var lines = [
            UIStrings.text(.infoKiosk, in: l, kioskID),
            UIStrings.text(
                .infoIP, in: l, Self.ipAddresses().joined(separator: ", ").nonEmpty ?? UIStrings.text(.infoNone, in: l)),
            "KioskCards \(kioskCardsVersion)",
            UIStrings.text(.infoDeck, in: l, deck.id, "\(deck.version)"),
            UIStrings.text(.infoDecisions, in: l, "\(store.stored)", "\(store.pending)"),
            store.failing
                ? UIStrings.text(.infoStorageFailing, in: l, store.lastError ?? "")
                : UIStrings.text(.infoStorageOK, in: l),
            UIStrings.text(.infoUptime, in: l, "\(up / 3600)", "\(up / 60 % 60)"),
            Self.fleetLine(fleet, language: l),
        ]
        if let t = FleetHealth.cpuTemperature() {
            lines.append(UIStrings.text(.infoTemperature, in: l, jsonNumber(t, decimals: 1)))
        }
        return lines
    }

    /// The fleet sync's state for the menu: off, or its state and what it sent this run.
    static func fleetLine(_ fleet: (state: FleetSyncWorker.State, sent: Int)?, language: String?) -> String {
        guard let fleet else { return UIStrings.text(.infoFleetOff, in: language) }
        return UIStrings.text(.infoFleet, in: language, "\(fleet.state)", "\(fleet.sent)")
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
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
