import CEspeakNG
import KioskSystem

/// Synthesised speech: 16-bit mono samples at `sampleRate` Hz.
package struct SpeechAudio: Hashable, Sendable {
    package var samples: [Int16]
    package var sampleRate: Int
    package var seconds: Double { sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0 }
}

/// What went wrong in espeak-ng, with what to do about it.
package struct SpeechError: Error, Hashable, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// espeak-ng, in synchronous mode: `espeak_ng_Synthesize` returns once every sample has gone
/// through the synth callback, which collects them (no audio device is touched). The library
/// has process-wide state, so every call holds one lock; the `Speech` worker is its only
/// caller in the kiosk, on its own thread. The library itself is loaded by the first call
/// (`EspeakFunctions`); without it every call fails with what to install.
package enum Espeak {
    private static let lock = Condition()
    nonisolated(unsafe) private static var initialised: Result<Int, SpeechError>?

    /// Collects one synthesis' samples; reached from the C callback through `user_data`.
    private final class Sink {
        var samples: [Int16] = []
    }

    static func message(_ status: espeak_ng_STATUS, _ espeak: EspeakFunctions) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        espeak.getStatusCodeMessage(status, &buffer, buffer.count)
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self) + " (status 0x" + String(status.rawValue, radix: 16) + ")"
    }

    /// Loads and initialises the library once; the sample rate, or why it cannot run. A
    /// library that cannot be loaded is tried again at the next call (it may be installed by then).
    private static func start() -> Result<(Int, EspeakFunctions), SpeechError> {
        let espeak: EspeakFunctions
        do throws(DynamicLibraryError) {
            espeak = try EspeakFunctions.shared.get()
        } catch {
            return .failure(SpeechError(message: "speech is unavailable: \(error)"))
        }
        if let initialised { return initialised.map { ($0, espeak) } }
        espeak.initializePath(nil)
        var result: Result<Int, SpeechError>
        let status = espeak.initialize(nil)
        if status != ENS_OK {
            result = .failure(
                SpeechError(
                    message: "espeak-ng cannot start: \(message(status, espeak)) — install espeak-ng-data "
                        + "(apt-get install espeak-ng-data)"))
        } else {
            let output = espeak.initializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
            if output != ENS_OK {
                result = .failure(SpeechError(message: "espeak-ng output cannot start: \(message(output, espeak))"))
            } else {
                // A closure without captures becomes the C callback; `user_data` carries the Sink.
                espeak.setSynthCallback { wav, count, events in
                    guard let events, let user = events.pointee.user_data else { return 0 }
                    let sink = Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue()
                    if let wav, count > 0 {
                        sink.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count)))
                    }
                    return 0  // 0: go on
                }
                result = .success(Int(espeak.getSampleRate()))
            }
        }
        initialised = result
        return result.map { ($0, espeak) }
    }

    /// espeak-ng's voice name for a BCP 47 tag: lower case, and Chinese is Mandarin ("cmn").
    static func voiceName(_ tag: String) -> String {
        let t = tag.lowercased()
        return t == "zh" || t.hasPrefix("zh-") ? "cmn" : t
    }

    /// Speaks `text` with the voice for `language` (an espeak-ng voice name or language code:
    /// "de", "en", "fr", "tr", "ar", "cmn"…) into samples.
    package static func synthesize(_ text: String, language: String) -> Result<SpeechAudio, SpeechError> {
        lock.lock()
        defer { lock.unlock() }
        let rate: Int
        let espeak: EspeakFunctions
        switch start() {
        case .success(let (r, functions)): (rate, espeak) = (r, functions)
        case .failure(let e): return .failure(e)
        }
        var voice = espeak.setVoiceByName(voiceName(language))
        if voice != ENS_OK, let primary = language.split(separator: "-").first, primary.count < language.count {
            voice = espeak.setVoiceByName(voiceName(String(primary)))
        }
        guard voice == ENS_OK else {
            return .failure(
                SpeechError(
                    message: "no espeak-ng voice for language \"\(language)\": \(message(voice, espeak)) — "
                        + "use a code that `espeak-ng --voices` lists (e.g. de, en, fr, tr, ar, cmn)"))
        }
        let sink = Sink()
        let user = Unmanaged.passRetained(sink)
        defer { user.release() }
        var bytes = Array(text.utf8CString)
        let status = espeak.synthesize(
            &bytes, bytes.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, user.toOpaque())
        guard status == ENS_OK else {
            return .failure(SpeechError(message: "espeak-ng could not speak the text: \(message(status, espeak))"))
        }
        return .success(SpeechAudio(samples: sink.samples, sampleRate: rate))
    }
}
