/// One subcommand's command line, described once: the same table parses the arguments, prints
/// `--help` and feeds the bash completion (the way libinput's `tools/shared.c` serves every tool).
///
/// Every table answers `--help`/`-h` and `--version` by itself; errors have one shape,
/// `render: unknown option '--x'. Did you mean '--out'? See 'KioskCards render --help'`.
package struct OptionTable<Values>: Sendable {
    /// The subcommand's name, as typed after the program name.
    package var command: String
    /// One line for `KioskCards --help` and the top of this command's help.
    package var summary: String
    /// Usage lines after `Usage: KioskCards `; empty: generated from the table.
    package var usage: [String]
    /// Paragraphs after the summary (what the command does, its exit status), or "".
    package var details: String
    package var options: [CommandOption<Values>]
    package var positional: CommandPositional<Values>?
    /// Text after the option list (examples, notes), or "".
    package var footer: String
    /// Left out of `KioskCards --help` and the README (internal tools).
    package var hidden: Bool
    /// Checks the whole set once every argument is applied; returns what is wrong.
    package var validate: @Sendable (Values) -> String?
    package var program = "KioskCards"

    package init(
        command: String, summary: String, usage: [String] = [], details: String = "",
        options: [CommandOption<Values>], positional: CommandPositional<Values>? = nil, footer: String = "",
        hidden: Bool = false, validate: @escaping @Sendable (Values) -> String? = { _ in nil }
    ) {
        self.command = command
        self.summary = summary
        self.usage = usage
        self.details = details
        self.options = options
        self.positional = positional
        self.footer = footer
        self.hidden = hidden
        self.validate = validate
    }

    /// The names every table answers without listing them in `options`.
    static var builtInNames: [String] { ["help", "version"] }

    private func failure(_ message: String) -> CommandLineParse<Values> {
        .failure(UsageError(command: command, message: message, program: program))
    }

    /// Applies `arguments` (those after the subcommand's name) to `values`, in order; a later
    /// value of the same option wins, a repeatable one adds up (the apply closure decides).
    package func parse(_ arguments: [String], from values: Values) -> CommandLineParse<Values> {
        var values = values
        var positionals = 0
        var onlyPositionals = false
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if !onlyPositionals && arg == "--" {
                onlyPositionals = true
                continue
            }
            if !onlyPositionals && arg.hasPrefix("-") && arg.count > 1 {
                var name: String
                var inline: String?
                if arg.hasPrefix("--") {
                    name = String(arg.dropFirst(2))
                    if let eq = name.firstIndex(of: "=") {
                        inline = String(name[name.index(after: eq)...])
                        name = String(name[..<eq])
                    }
                } else {
                    guard arg.count == 2, let short = arg.last else { return unknown(arg) }
                    if short == "h" { return .help }
                    guard let o = options.first(where: { $0.short == short }) else { return unknown(arg) }
                    name = o.name
                }
                if name == "help" { return .help }
                if name == "version" { return .version }
                guard let option = options.first(where: { $0.name == name }) else { return unknown("--" + name) }
                let value: String
                if let placeholder = option.value {
                    if let inline {
                        value = inline
                    } else {
                        guard i < arguments.count else {
                            return failure("--\(name) needs a value (\(placeholder)).")
                        }
                        value = arguments[i]
                        i += 1
                    }
                } else {
                    guard inline == nil else { return failure("--\(name) takes no value.") }
                    value = ""
                }
                if let accepted = option.apply(&values, value) {
                    return failure("bad value '\(value)' for --\(name); expected \(accepted).")
                }
                continue
            }
            guard let p = positional else { return failure("unexpected argument '\(arg)'.") }
            if !p.count.allowsMany && positionals == 1 {
                return failure("one \(p.name) only (got a second: '\(arg)').")
            }
            if let accepted = p.apply(&values, arg) { return failure("bad \(p.name) '\(arg)'; expected \(accepted).") }
            positionals += 1
        }
        if let p = positional, p.count.isRequired, positionals == 0 {
            return failure("missing \(p.name): \(p.help).")
        }
        if let problem = validate(values) { return failure(problem) }
        return .success(values)
    }

    private func unknown(_ name: String) -> CommandLineParse<Values> {
        let candidates = options.filter { !$0.hidden }.map(\.name) + Self.builtInNames
        let bare = name.hasPrefix("--") ? String(name.dropFirst(2)) : String(name.drop { $0 == "-" })
        var message = "unknown option '\(name)'."
        if let s = ClosestMatch.suggestion(for: bare, among: candidates) { message += " Did you mean '--\(s)'?" }
        return failure(message)
    }

    /// The table without its types, for `--help` of the whole program and the completion file.
    package var syntax: CommandSyntax {
        CommandSyntax(
            command: command, summary: summary, hidden: hidden,
            options: options.filter { !$0.hidden }.map {
                CommandSyntax.Entry(name: $0.name, short: $0.short, value: $0.value, help: $0.help)
            },
            positional: positional.map { ($0.name, $0.help) },
            helpText: helpText)
    }

    /// `KioskCards <command> --help`: usage, summary, details, the options aligned, footer.
    package var helpText: String {
        var lines: [String] = []
        let usageLines = usage.isEmpty ? [generatedUsage] : usage
        for (n, line) in usageLines.enumerated() {
            lines.append((n == 0 ? "Usage: " : "       ") + program + " " + line)
        }
        lines += ["", summary.prefix(1).uppercased() + summary.dropFirst() + "."]
        if !details.isEmpty { lines += ["", details] }
        var rows: [(String, String)] = []
        if let p = positional { rows.append((p.name, p.help)) }
        for o in options where !o.hidden {
            let short = o.short.map { "-\($0), " } ?? ""
            rows.append((short + "--" + o.name + (o.value.map { " " + $0 } ?? ""), o.help))
        }
        rows.append(("-h, --help", "print this help and exit"))
        rows.append(("--version", "print the version and exit"))
        lines += ["", "Options:"]
        let width = min(30, (rows.map(\.0.count).max() ?? 0) + 2)
        for (left, help) in rows {
            if left.count + 2 > width {
                lines.append("  " + left)
                lines.append(String(repeating: " ", count: width + 2) + help)
            } else {
                lines.append("  " + left + String(repeating: " ", count: width - left.count) + help)
            }
        }
        if !footer.isEmpty { lines += ["", footer] }
        return lines.joined(separator: "\n")
    }

    private var generatedUsage: String {
        var parts = [command, "[options]"]
        if let p = positional {
            switch p.count {
            case .one: parts.append(p.name)
            case .optional: parts.append("[\(p.name)]")
            case .oneOrMore: parts.append("\(p.name)...")
            case .zeroOrMore: parts.append("[\(p.name)...]")
            }
        }
        return parts.joined(separator: " ")
    }
}

/// One `--name [VALUE]` of an `OptionTable`.
package struct CommandOption<Values>: Sendable {
    /// The long name without dashes: `out` for `--out`; also the config-file key where one table serves both.
    package var name: String
    /// `o` for `-o`; nil: none.
    package var short: Character?
    /// The value's placeholder in help (`FILE`, `WxH`); nil: a flag that takes no value.
    package var value: String?
    package var help: String
    /// May be given more than once, each adding to a list (documents the apply closure's way).
    package var repeatable: Bool
    /// Left out of help and completion (options one process passes to another).
    package var hidden: Bool
    /// Sets the value (a flag gets ""), or returns what is accepted: "0, 90, 180 or 270".
    package var apply: @Sendable (inout Values, String) -> String?

    package init(
        name: String, short: Character? = nil, value: String?, help: String, repeatable: Bool = false,
        hidden: Bool = false, apply: @escaping @Sendable (inout Values, String) -> String?
    ) {
        self.name = name
        self.short = short
        self.value = value
        self.help = help
        self.repeatable = repeatable
        self.hidden = hidden
        self.apply = apply
    }

    /// A flag that takes no value.
    package static func flag(
        _ name: String, short: Character? = nil, help: String, hidden: Bool = false,
        set: @escaping @Sendable (inout Values) -> Void
    ) -> CommandOption {
        CommandOption(name: name, short: short, value: nil, help: help, hidden: hidden) { v, _ in
            set(&v)
            return nil
        }
    }

    /// The same option setting a part of a larger options struct.
    package func lifted<Outer>(_ part: WritableKeyPath<Outer, Values> & Sendable) -> CommandOption<Outer> {
        let apply = self.apply
        return CommandOption<Outer>(
            name: name, short: short, value: value, help: help, repeatable: repeatable, hidden: hidden
        ) { outer, text in apply(&outer[keyPath: part], text) }
    }
}

/// The arguments of an `OptionTable` that are not options (`FILE`, `COMMAND...`).
package struct CommandPositional<Values>: Sendable {
    package enum Count: Sendable {
        case one, optional, oneOrMore, zeroOrMore

        var allowsMany: Bool { self == .oneOrMore || self == .zeroOrMore }
        var isRequired: Bool { self == .one || self == .oneOrMore }
    }

    package var name: String
    package var help: String
    package var count: Count
    /// Takes one argument, or returns what is accepted.
    package var apply: @Sendable (inout Values, String) -> String?

    package init(
        name: String, help: String, count: Count, apply: @escaping @Sendable (inout Values, String) -> String?
    ) {
        self.name = name
        self.help = help
        self.count = count
        self.apply = apply
    }
}

/// What `OptionTable.parse` found.
package enum CommandLineParse<Values> {
    case success(Values)
    /// `--help` or `-h`: print `helpText`, exit 0.
    case help
    /// `--version`: print the version, exit 0.
    case version
    /// Exit 2 after printing the error.
    case failure(UsageError)
}

extension CommandLineParse: Equatable where Values: Equatable {}

/// A usage error, printed as `render: MESSAGE See 'KioskCards render --help'`; exit status 2.
package struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    package var command: String
    /// A sentence naming the option and what is accepted.
    package var message: String
    package var program = "KioskCards"

    package init(command: String, message: String, program: String = "KioskCards") {
        self.command = command
        self.message = message
        self.program = program
    }

    package var description: String { "\(command): \(message) See '\(program) \(command) --help'" }
}

/// An `OptionTable` without its value types: names, placeholders and help.
package struct CommandSyntax: Sendable {
    package struct Entry: Sendable {
        package var name: String
        package var short: Character?
        package var value: String?
        package var help: String
    }

    package var command: String
    package var summary: String
    package var hidden: Bool
    package var options: [Entry]
    package var positional: (name: String, help: String)?
    package var helpText: String
}

extension CommandOption {
    /// An `on|off` option (yes/no, true/false and 1/0 are accepted too) that hands `set` the Bool.
    package static func onOff(
        name: String, help: String, set: @escaping @Sendable (inout Values, Bool) -> Void
    ) -> CommandOption {
        CommandOption(name: name, value: "on|off", help: help) { values, text in
            switch text.lowercased() {
            case "on", "yes", "true", "1": set(&values, true)
            case "off", "no", "false", "0": set(&values, false)
            default: return "on or off"
            }
            return nil
        }
    }

    /// An option taking a non-empty text, handed to `set`; an empty one answers `expected`.
    package static func text(
        name: String, short: Character? = nil, value: String, help: String, hidden: Bool = false, expected: String,
        set: @escaping @Sendable (inout Values, String) -> Void
    ) -> CommandOption {
        parsed(
            name: name, short: short, value: value, help: help, hidden: hidden, expected: expected,
            { $0.isEmpty ? nil : $0 }, set: set)
    }

    /// An option whose text `parse` turns into a value for `set`; nil from `parse` answers
    /// `expected` (what is accepted: "0, 90, 180 or 270").
    package static func parsed<Parsed>(
        name: String, short: Character? = nil, value: String, help: String, hidden: Bool = false, expected: String,
        _ parse: @escaping @Sendable (String) -> Parsed?, set: @escaping @Sendable (inout Values, Parsed) -> Void
    ) -> CommandOption {
        CommandOption(name: name, short: short, value: value, help: help, hidden: hidden) { values, text in
            guard let parsed = parse(text) else { return expected }
            set(&values, parsed)
            return nil
        }
    }
}
