import KioskSystem

/// The kiosk's speech worker: reads texts aloud on a thread of its own, never on the poll()
/// loop. `say` only queues; a newer text replaces one still waiting (reading a card the
/// visitor has already left is no help). Each finished text goes to `output` (an ALSA device,
/// a WAV file, or nowhere); its `SpeechTicket` says how it went. `speaking` flips (and
/// `changed` becomes readable for the poll loop) while audio plays, for the privacy blanking.
package final class Speech: @unchecked Sendable {
    /// Where synthesised audio goes.
    package enum Output: Hashable, Sendable {
        /// Written as a 16-bit mono WAV file (replaced if it exists).
        case wavFile(String)
        /// Synthesised and dropped (measuring, or no audio device).
        case discard
        /// Played on this ALSA PCM device ("default": the system's default output).
        case alsa(device: String)
    }

    package struct Request: Sendable {
        package var text: String
        package var language: String
        package var output: Output
        package var ticket: SpeechTicket
    }

    private let condition = Condition()
    private var pending: Request?
    private var stopping = false
    private var job: BackgroundJob?
    private var speakingNow = false
    /// Whether the last ALSA attempt failed (logged once until a playback works again).
    private var audioMissing = false
    /// The last synthesis failure logged (espeak-ng not installed, no voice…), logged once
    /// until a text is spoken again.
    private var synthesisFailure: SpeechError?
    /// Readable when `speaking` changed; the loop drains it and reads `speaking`.
    package let changed = ReadySignal(what: "speech")

    /// True while the worker plays audio on an ALSA device.
    package var speaking: Bool {
        condition.lock()
        defer { condition.unlock() }
        return speakingNow
    }

    /// Starts the worker thread; it runs until `stop()` (the worker holds the object).
    package init() {
        job = BackgroundWork.run("speech") { [self] in loop() }
    }

    /// Queues `text` in `language` (replacing a text not yet begun, whose ticket then fails).
    /// Never blocks on synthesis.
    @discardableResult
    package func say(_ text: String, language: String, to output: Output) -> SpeechTicket {
        let ticket = SpeechTicket()
        condition.lock()
        let replaced = pending
        pending = Request(text: text, language: language, output: output, ticket: ticket)
        condition.signal()
        condition.unlock()
        replaced?.ticket.finish(.failure(SpeechError(message: "replaced by a newer text before it was spoken")))
        return ticket
    }

    /// Finishes the text being spoken, drops any waiting one and ends the worker.
    package func stop() {
        condition.lock()
        stopping = true
        let dropped = pending
        pending = nil
        condition.signal()
        condition.unlock()
        dropped?.ticket.finish(.failure(SpeechError(message: "speech stopped before the text was spoken")))
        job?.wait()
    }

    private func loop() {
        while true {
            condition.lock()
            while pending == nil && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            let request = pending!
            pending = nil
            condition.unlock()
            request.ticket.finish(perform(request))
        }
    }

    /// `Self.perform`, with the speaking flag around ALSA playback and one log line when no
    /// audio device can be opened or espeak-ng cannot speak (then the kiosk carries on silently).
    private func perform(_ request: Request) -> Result<SpeechAudio, SpeechError> {
        guard case .alsa(let device) = request.output else { return Self.perform(request) }
        let audio = Espeak.synthesize(request.text, language: request.language)
        let samples: SpeechAudio
        switch audio {
        case .success(let s):
            samples = s
            synthesisFailure = nil
        case .failure(let error):
            if synthesisFailure != error { Log.warning("speech: \(error); the kiosk carries on without speech") }
            synthesisFailure = error
            return audio
        }
        setSpeaking(true)
        defer { setSpeaking(false) }
        do {
            try AlsaPlayer.play(samples.samples, sampleRate: samples.sampleRate, device: device)
            if audioMissing { Log.info("speech: audio output works again on ALSA device '\(device)'") }
            audioMissing = false
            return audio
        } catch {
            if !audioMissing {
                Log.warning("speech: no audio output (\(error)); the kiosk carries on without sound")
            }
            audioMissing = true
            return .failure(error)
        }
    }

    private func setSpeaking(_ on: Bool) {
        condition.lock()
        speakingNow = on
        condition.unlock()
        changed.notify()
    }

    /// Synthesises one request and delivers its audio (on the calling thread).
    package static func perform(_ request: Request) -> Result<SpeechAudio, SpeechError> {
        let result = Espeak.synthesize(request.text, language: request.language)
        guard case .success(let audio) = result else { return result }
        switch request.output {
        case .discard:
            return result
        case .alsa(let device):
            do {
                try AlsaPlayer.play(audio.samples, sampleRate: audio.sampleRate, device: device)
            } catch {
                return .failure(error)
            }
            return result
        case .wavFile(let path):
            do {
                try FileIO.replaceAtomically(
                    path: path, contents: WAV.encode(samples: audio.samples, sampleRate: audio.sampleRate))
            } catch {
                return .failure(SpeechError(message: "cannot write \(path): \(error)"))
            }
            return result
        }
    }
}

/// How one `say` went: poll it from the loop (`result`), or wait for it (tools and tests).
package final class SpeechTicket: @unchecked Sendable {
    private let condition = Condition()
    private var value: Result<SpeechAudio, SpeechError>?

    /// The outcome once known; nil while queued or being spoken.
    package var result: Result<SpeechAudio, SpeechError>? {
        condition.lock()
        defer { condition.unlock() }
        return value
    }

    /// Blocks up to `seconds` for the outcome; nil when it is not there by then.
    package func wait(seconds: Double) -> Result<SpeechAudio, SpeechError>? {
        let deadline = Condition.deadline(afterSeconds: seconds)
        condition.lock()
        defer { condition.unlock() }
        while value == nil {
            if !condition.wait(untilNanoseconds: deadline) { break }
        }
        return value
    }

    fileprivate func finish(_ r: Result<SpeechAudio, SpeechError>) {
        condition.lock()
        if value == nil { value = r }
        condition.broadcast()
        condition.unlock()
    }
}
