import KioskSpeech
import KioskSystem

/// `KioskCards say --text T [--lang de] --out FILE.wav`: speaks a text with espeak-ng (as the
/// kiosk's speech worker does) into a WAV file, to check the voice of a deck's language.
enum SayCommand {
    struct Options: Sendable {
        var text = ""
        var language = "de"
        var out = ""
    }

    static let table = OptionTable<Options>(
        command: "say", summary: "speak a text with espeak-ng into a WAV file",
        details: """
            Synthesises TEXT with espeak-ng's voice for the language, on the speech worker's
            thread, and writes 16-bit mono PCM WAV to FILE. Prints the length in seconds.
            Exit status 0 on success, 1 when espeak-ng fails, 2 for a usage error.
            """,
        options: [
            CommandOption.text(name: "text", value: "TEXT", help: "what to say (UTF-8)", expected: "a non-empty text") {
                $0.text = $1
            },
            CommandOption(
                name: "lang", value: "CODE", help: "an espeak-ng voice or language: de (default), en, fr, tr, ar, cmn…"
            ) { o, v in
                guard !v.isEmpty, v.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    return "a language code such as de, en-gb or cmn"
                }
                o.language = v
                return nil
            },
            CommandOption.text(name: "out", value: "FILE", help: "the WAV file to write", expected: "a file name") {
                $0.out = $1
            },
        ])

    static func run(arguments: [String]) -> Int32 {
        table.run(arguments, from: Options(), run(_:))
    }

    static func run(_ options: Options) -> Int32 {
        guard !options.text.isEmpty, !options.out.isEmpty else {
            Log.error("say: give --text TEXT and --out FILE.wav (see KioskCards say --help)")
            return 2
        }
        let speech = Speech()
        let ticket = speech.say(options.text, language: options.language, to: .wavFile(options.out))
        let result = ticket.wait(seconds: 120)
        speech.stop()
        switch result {
        case .success(let audio):
            print("\(options.out): " + String(format2: audio.seconds) + " s, \(audio.sampleRate) Hz")
            return 0
        case .failure(let error):
            Log.error("say: \(error)")
            return 1
        case nil:
            Log.error("say: espeak-ng took more than 120 s; giving up")
            return 1
        }
    }
}
