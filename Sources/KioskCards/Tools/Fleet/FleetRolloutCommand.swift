import KioskFleet
import KioskSystem

/// `KioskCards fleet rollout [show | stop G | resume G] --postgres URL`: where each group's
/// staged rollout stands (`FleetRollouts`), and the operator's hand on it.
enum FleetRolloutCommand {
    struct Options: Equatable {
        var url = ""
        var credentials: String?
        var words: [String] = []
    }

    static let table = OptionTable<Options>(
        command: "fleet rollout", summary: "staged rollouts: show where each stands, stop or resume one",
        usage: [
            "fleet rollout [show] --postgres URL",
            "fleet rollout stop G --postgres URL",
            "fleet rollout resume G --postgres URL",
        ],
        details: """
            show (the default) judges every holding rollout first, as 'fleet status' does: after
            its hold, with every canary showing the deck, the rest of the group gets it; a canary
            that refused the deck, or is silent at the hold's end, stops it.
            stop: nothing more is promoted; the canaries keep the deck ('fleet publish --rollback
            --group G' takes it back). resume: holding again until the hold's end (judged at once
            if that has passed); a canary that still refuses the deck stops it again.
            Exit status: 0 done (show: no rollout stopped by a canary), 1 server error, no such
            rollout or one stopped by a canary, 2 usage.
            """,
        options: [
            FleetCommand.postgresOption(\.url),
            FleetCommand.credentialsOption(\.credentials),
        ],
        positional: CommandPositional(name: "show | stop G | resume G", help: "what to do", count: .zeroOrMore) {
            o, v in
            o.words.append(v)
            return nil
        },
        validate: { o in
            if let problem = FleetCommand.requirePostgres(o.url) { return problem }
            switch o.words.first ?? "show" {
            case "show": return o.words.count <= 1 ? nil : "show takes no group"
            case "stop", "resume": return o.words.count == 2 ? nil : "\(o.words[0]) takes one group: \(o.words[0]) G"
            default: return "one of show, stop G or resume G"
            }
        })

    static func run(arguments: [String]) -> Int32 {
        let options: Options
        switch table.resolve(arguments, from: Options()) {
        case .success(let o): options = o
        case .failure(let status): return status.code
        }
        guard let db = FleetCommand.connect(options.url, credentials: options.credentials, command: "rollout") else {
            return 1
        }
        do throws(FleetError) {
            let action = options.words.first ?? "show"
            if action == "stop" { try FleetRollouts.stop(group: options.words[1], on: db) }
            if action == "resume" { try FleetRollouts.resume(group: options.words[1], on: db) }
            let rollouts = try FleetRollouts.advance(on: db)
            let shown = action == "show" ? rollouts : rollouts.filter { $0.group == options.words[1] }
            for r in shown { print(Escape.terminal(r.summary)) }
            if rollouts.isEmpty { print("(no rollouts: fleet publish DECK.json --group G --canary N)") }
            return shown.contains { $0.needsAttention } ? 1 : 0
        } catch {
            Log.error("fleet rollout: \(Escape.terminal(error.operatorDescription))")
            return 1
        }
    }
}
