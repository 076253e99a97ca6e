import Glibc
import KioskSystem

/// `KioskCards set-pin [--config FILE]`: reads a new staff PIN from stdin and writes its salted
/// crypt(3) hash into the config as `staff-pin-hash` (the PIN itself is stored nowhere).
enum SetPinCommand {
    struct Options: Equatable {
        var configPath = KioskConfig.defaultPath
    }

    static let table = OptionTable<Options>(
        command: "set-pin", summary: "set the staff menu's PIN (stored hashed in the config)",
        details: """
            Reads the PIN (6 to 12 digits) from the first line of stdin — so it is not seen in
            ps or the shell history — and writes staff-pin-hash = <yescrypt hash> into the
            config (the key's line is replaced, or added; every other line stays). The config is
            left 0640 root:kiosk (0600 without a group kiosk), whatever it was:
              read -rs PIN && printf '%s\\n' "$PIN" | sudo KioskCards set-pin
            Restart the kiosk to use it. Exit status: 0 set, 1 the config could not be written, 2 usage.
            """,
        options: [
            CommandOption.text(
                name: "config", value: "FILE", help: "the config to update (default \(KioskConfig.defaultPath))",
                expected: "a file"
            ) { $0.configPath = $1 }
        ])

    static func run(arguments: [String]) -> Int32 {
        table.run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        var line = [UInt8]()
        var byte: UInt8 = 0
        while line.count < 64, read(0, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let pin = String(decoding: line, as: UTF8.self)
        guard StaffPin.isAcceptable(pin) else {
            Log.error(
                "set-pin: the PIN on stdin must be \(StaffPin.digits.lowerBound) to \(StaffPin.digits.upperBound)"
                    + " digits (a shorter one is guessed offline in minutes from its hash)."
                    + " See 'KioskCards set-pin --help'.")
            return 2
        }
        guard let hash = StaffPin.hash(pin) else {
            Log.error("set-pin: libcrypt could not make a hash (is libcrypt1 installed?)")
            return 1
        }
        let original: String?
        switch ConfigEdit.readForEditing(options.configPath, command: "set-pin") {
        case .success(let text): original = text
        case .failure(let status): return status.code
        }
        if case .failure(let error) = ConfigEdit.save(
            "staff-pin-hash", value: hash, original: original, path: options.configPath)
        {
            Log.error("set-pin: \(error); nothing changed")
            return 1
        }
        Log.info("set-pin: staff-pin-hash written to \(options.configPath); restart the kiosk to use it")
        return 0
    }
}
