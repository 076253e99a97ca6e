import Glibc
import KioskFleet
import KioskSystem

/// `KioskCards fleet screenshot KIOSK --postgres URL [--out FILE] [--timeout S]`: asks a
/// running kiosk for a PNG of what its panel shows (`FleetScreenshots`), waits for the answer
/// and writes it. The request and the PNG stay in `fleet.screenshots` with their times.
enum FleetScreenshotCommand {
    struct Options: Equatable {
        var url = ""
        var credentials: String?
        var kioskID = ""
        var outPath: String?
        var timeout = 20.0
    }

    static let table = OptionTable<Options>(
        command: "fleet screenshot", summary: "ask a running kiosk for a PNG of what its panel shows",
        usage: ["fleet screenshot KIOSK --postgres URL [--out FILE] [--timeout S]"],
        details: """
            The request reaches the kiosk by NOTIFY; its app copies the frame it composed last (in its
            own memory, never the scanout), encodes it as 'render' would draw that screen, and sends
            it with its time; the PNG and the request stay in fleet.screenshots. A kiosk refuses, and
            says why, while its staff menu is open, more often than its fleet-screenshot-interval
            (default 10 s), or with fleet-screenshot = off. Requests older than \(FleetScreenshots.answerWindowSeconds) s are not answered.
            Exit status: 0 written, 1 refused, no answer in time or server error, 2 usage.
            """,
        options: [
            FleetCommand.postgresOption(\.url),
            FleetCommand.credentialsOption(\.credentials),
            CommandOption.text(
                name: "out", value: "FILE.png",
                help: "where to write the PNG (default: screenshot-KIOSK-TIME.png here, TIME the kiosk's, UTC)",
                expected: "a file path"
            ) { $0.outPath = $1 },
            CommandOption(
                name: "timeout", value: "S", help: "how long to wait for the kiosk's answer (default 20 s)"
            ) { o, v in
                guard let s = Double(v), s >= 1, s <= Double(FleetScreenshots.answerWindowSeconds) else {
                    return "seconds from 1 to \(FleetScreenshots.answerWindowSeconds)"
                }
                o.timeout = s
                return nil
            },
        ],
        positional: CommandPositional(name: "KIOSK", help: "the kiosk's id (as 'fleet status' lists it)", count: .one) {
            o, v in
            guard FleetAdmin.validKioskID(v) else { return "1 to 57 letters, digits, '-', '_' or '.'" }
            o.kioskID = v
            return nil
        },
        validate: { o in FleetCommand.requirePostgres(o.url) })

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        guard let db = FleetCommand.connect(options.url, credentials: options.credentials, command: "screenshot")
        else { return 1 }
        let kiosk = options.kioskID
        do {
            try FleetScreenshots.listenForAnswers(on: db)
            let id = try FleetScreenshots.request(kiosk: kiosk, on: db)
            let answer = try FleetScreenshots.wait(for: id, seconds: options.timeout, on: db)
            guard let answer, answer.state != "requested" else {
                try FleetScreenshots.expire(id, on: db)
                let heard = try FleetScreenshots.secondsSinceHeartbeat(kiosk: kiosk, on: db)
                Log.error(
                    "fleet screenshot: \(kiosk) did not answer within \(jsonNumber(options.timeout, decimals: 0)) s; "
                        + (heard.map { "its last heartbeat came \($0) s ago" } ?? "it has never sent a heartbeat")
                        + " — is its app running and online ('fleet status')? Only the running app answers.")
                return 1
            }
            guard answer.state == "taken", let png = try FleetScreenshots.png(id, on: db) else {
                Log.error(
                    "fleet screenshot: \(kiosk) refused: \(Escape.terminal(answer.reason ?? answer.state))")
                return 1
            }
            let path = options.outPath ?? defaultName(kiosk: kiosk, wallMs: answer.takenWallMs)
            try FileIO.replaceAtomically(path: path, contents: png)
            print(
                "\(path): \(answer.width ?? 0)×\(answer.height ?? 0), \(png.count) bytes, taken "
                    + (answer.takenWallMs.map { utcText($0) } ?? "at an unknown time") + " (request \(id))")
            return 0
        } catch {
            Log.error("fleet screenshot: \(Escape.terminal(FleetCommand.operatorAdvice(error)))")
            return 1
        }
    }

    /// `screenshot-KIOSK-20261206T131500Z.png`, the kiosk's time of the frame in UTC.
    static func defaultName(kiosk: String, wallMs: Int64?) -> String {
        let stamp = utcText(wallMs ?? WallClock.nowMilliseconds()).filter { $0 != "-" && $0 != ":" }
        return "screenshot-\(kiosk)-\(stamp).png"
    }

    /// `2026-12-06T13:15:00Z`.
    static func utcText(_ wallMs: Int64) -> String {
        var seconds = time_t(wallMs / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
