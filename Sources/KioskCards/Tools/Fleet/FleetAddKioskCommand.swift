import Glibc
import KioskFleet
import KioskSystem

/// `KioskCards fleet add-kiosk ID --postgres URL [--credentials FILE]`: a login role for one
/// kiosk, and the kiosk.conf lines that use it.
enum FleetAddKioskCommand {
    struct Options: Equatable {
        var url = ""
        var kioskID = ""
        var credentials: String?
        var group: String?
        var kioskHost: String?
        var kioskCA = FleetAdmin.defaultKioskCAFile
    }

    static let table = OptionTable<Options>(
        command: "fleet add-kiosk", summary: "make a kiosk's own login role and print its kiosk.conf lines",
        details: """
            Creates role kiosk_ID (a member of fleet_kiosk) with a new random password and
            registers ID, then prints exactly the lines for that kiosk's kiosk.conf. With
            --credentials the password goes into FILE (mode 0600, copy it to the kiosk's
            /etc/kioskcards/); without, it is part of the printed fleet-url. Running it again for
            the same ID replaces the password. Over a network the fleet-url verifies the
            server (sslmode=verify-full, sslrootcert=the --kiosk-ca path): copy the CA
            certificate that signed the server's certificate there (docs/FLEET.md, TLS).
            Exit status: 0 done, 1 server error, 2 usage.
            """,
        options: [
            FleetCommand.postgresOption(\.url),
            CommandOption.text(
                name: "credentials", value: "FILE", help: "write the password here (mode 0600) instead of into the URL",
                expected: "a file path"
            ) { $0.credentials = $1 },
            CommandOption(name: "group", value: "G", help: "the kiosk's group (for publishing decks to many)") { o, v in
                guard !v.isEmpty, v.count <= 64 else { return "1 to 64 characters" }
                o.group = v
                return nil
            },
            CommandOption(
                name: "kiosk-host", value: "HOST",
                help: "the server's name as the kiosk reaches it (default: the host in --postgres)"
            ) { o, v in
                guard !v.isEmpty, !v.contains("/") else { return "a host name or address" }
                o.kioskHost = v
                return nil
            },
            CommandOption(
                name: "kiosk-ca", value: "FILE",
                help: "where the kiosk keeps the fleet's CA certificate (default \(FleetAdmin.defaultKioskCAFile))"
            ) { o, v in
                guard v.hasPrefix("/") else { return "an absolute path on the kiosk" }
                o.kioskCA = v
                return nil
            },
        ],
        positional: CommandPositional(name: "ID", help: "the kiosk's id (its kiosk-id)", count: .one) { o, v in
            guard FleetAdmin.validKioskID(v) else { return "1 to 57 letters, digits, '-', '_' or '.'" }
            o.kioskID = v
            return nil
        },
        validate: { FleetCommand.requirePostgres($0.url) })

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        if let path = options.credentials, access(path, F_OK) == 0 {
            Log.error("fleet add-kiosk: \(path) already exists; remove it or choose another --credentials file")
            return 2
        }
        guard let db = FleetCommand.connect(options.url, command: "add-kiosk") else { return 1 }
        let password = FleetAdmin.randomPassword()
        let role = FleetAdmin.roleName(kioskID: options.kioskID)
        let outcome: FleetAdmin.RoleOutcome
        do {
            outcome = try FleetAdmin.addKiosk(options.kioskID, group: options.group, password: password, on: db)
        } catch {
            Log.error("fleet add-kiosk: \(error)")
            // 42P01: no fleet tables; 42883: no fleet.limit_kiosk_role (a schema before 8).
            if error.kind == .query && (error.sqlState == "42P01" || error.sqlState == "42883") {
                Log.error("fleet add-kiosk: run 'KioskCards fleet init --postgres URL' first")
            }
            return 1
        }
        let parameters = db.resolvedParameters
        var url = FleetAdmin.kioskURL(
            for: role, from: parameters, hostOverride: options.kioskHost, caFile: options.kioskCA)
        if let path = options.credentials {
            if let problem = writeSecret(password + "\n", to: path) {
                Log.error("fleet add-kiosk: \(problem); the role was made — run again to make a new password")
                return 1
            }
        } else {
            url = url.replacingFirst("@", with: ":" + password + "@")
        }
        Log.info(
            "fleet add-kiosk: \(outcome == .created ? "created" : "replaced the password of") role \(role) for kiosk \(options.kioskID)"
                + (options.credentials.map {
                    "; password written here to \($0) (mode 0600): copy it to the kiosk as /etc/kioskcards/\(PathName.baseName(of: $0)),"
                        + " owned by the service user, mode 0600"
                } ?? ""))
        if !FleetTLS.isLocal(options.kioskHost ?? parameters["host"] ?? "localhost") {
            Log.info(
                "fleet add-kiosk: the kiosk verifies the server: copy the CA certificate that signed the server's "
                    + "certificate (the CA's .crt, never its key) to the kiosk as \(options.kioskCA), mode 0644 — "
                    + "docs/FLEET.md (TLS) shows how to make both")
        }
        print("kiosk-id = \(options.kioskID)")
        print("fleet-url = \(url)")
        // Where the kiosk keeps the file, not where this machine wrote it (said in the log above).
        if let path = options.credentials {
            print("fleet-credentials = /etc/kioskcards/\(PathName.baseName(of: path))")
        }
        return 0
    }

    /// Writes `text` to a new file that only the owner may read (O_EXCL: never over an old one).
    static func writeSecret(_ text: String, to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            return "cannot create \(path): \(Errno.current) (it must not exist yet)"
        }
        defer { close(fd) }
        _ = fchmod(fd, 0o600)  // whatever the umask
        do {
            try FileIO.writeAll(fd: fd, bytes: Array(text.utf8), detail: path)
            guard fsync(fd) == 0 else { return "cannot write \(path): \(Errno.current)" }
        } catch {
            return "cannot write \(path): \(error)"
        }
        return nil
    }
}

extension String {
    func replacingFirst(_ target: Character, with replacement: String) -> String {
        guard let i = firstIndex(of: target) else { return self }
        return String(self[..<i]) + replacement + String(self[index(after: i)...])
    }
}
