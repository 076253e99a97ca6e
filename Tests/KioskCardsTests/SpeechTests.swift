import Foundation
import KioskSystem
import Testing

@testable import KioskCards
@testable import KioskSpeech

/// Real espeak-ng (Debian's libespeak-ng1 + espeak-ng-data), through the speech worker's
/// thread, captured to WAV files.
@Suite(.serialized) struct SpeechTests {
    func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "kiosk-speech-\(getpid())-\(name).wav"
    }

    func speakToFile(_ text: String, language: String, name: String) throws -> (WAV.Info, [UInt8]) {
        let speech = Speech()
        defer { speech.stop() }
        let path = temporaryPath(name)
        defer { unlink(path) }
        let ticket = speech.say(text, language: language, to: .wavFile(path))
        let result = try #require(ticket.wait(seconds: 60), "espeak-ng finished within 60 s")
        let audio = try result.get()
        let bytes = try FileIO.readAll(path, limit: 50_000_000)
        let info = try #require(WAV.info(bytes), "\(path) is a 16-bit mono PCM WAV file")
        #expect(info.sampleCount == audio.samples.count)
        return (info, bytes)
    }

    @Test func aLongerTextGivesALongerNonSilentWAV() throws {
        let (short, shortBytes) = try speakToFile("Ja", language: "de", name: "short")
        let (long, _) = try speakToFile(
            "Karte 1. Erste Information. Wischen Sie nach links für Nein und nach rechts für Ja.", language: "de",
            name: "long")
        #expect(short.sampleRate == 22050)
        #expect(short.sampleCount > 0)
        #expect(long.seconds > short.seconds * 3, "\(long.seconds) s vs \(short.seconds) s")
        #expect(long.seconds > 2)
        // Not silence: some sample is loud.
        let samples = stride(from: 44, to: shortBytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(shortBytes[$0]) | UInt16(shortBytes[$0 + 1]) << 8)
        }
        #expect(samples.map { abs(Int($0)) }.max() ?? 0 > 1000)
    }

    @Test func theIssuesLanguagesHaveVoices() throws {
        for language in ["de", "en", "fr", "tr", "ar", "cmn"] {
            let result = Espeak.synthesize("1 2 3", language: language)
            let audio = try result.get()
            #expect(audio.seconds > 0.3, "\(language): \(audio.seconds) s")
        }
    }

    /// Deck files carry BCP 47 tags; espeak-ng names Mandarin "cmn" and has no voice for every region.
    @Test func deckLanguageTagsFindAVoice() throws {
        for tag in ["en-GB", "zh", "zh-Hans", "de-AT", "FR"] {
            let audio = try Espeak.synthesize("1 2", language: tag).get()
            #expect(audio.samples.count > 0, "\(tag)")
        }
    }

    @Test func anUnknownLanguageSaysWhatToUse() {
        guard case .failure(let e) = Espeak.synthesize("x", language: "zz-nonexistent") else {
            Issue.record("zz-nonexistent spoke")
            return
        }
        #expect(e.message.contains("no espeak-ng voice for language \"zz-nonexistent\""))
        #expect(e.message.contains("espeak-ng --voices"))
    }

    /// `say` only queues (the figure printed is how long three calls took on the caller's
    /// thread); a text still waiting when a newer one comes is dropped, the newest is spoken.
    @Test func sayQueuesAndANewerTextReplacesAWaitingOne() throws {
        let speech = Speech()
        defer { speech.stop() }
        let began = MonotonicClock.now()
        let tickets = [
            speech.say(String(repeating: "Eine lange Karte. ", count: 20), language: "de", to: .discard),
            speech.say("Zweite", language: "de", to: .discard),
            speech.say("Dritte", language: "de", to: .discard),
        ]
        let queued = MonotonicClock.now().seconds(since: began)
        print("speech: 3 say() calls returned after " + String(format: "%.3f", queued * 1000) + " ms")
        var spoken = 0
        for (i, t) in tickets.enumerated() {
            let r = try #require(t.wait(seconds: 60), "ticket \(i) finished")
            switch r {
            case .success(let audio):
                spoken += 1
                #expect(audio.seconds > 0.2)
            case .failure(let e):
                #expect(i < 2, "the newest text is always spoken")
                #expect(e.message.contains("replaced by a newer text"), "\(e)")
            }
        }
        #expect(spoken >= 1)
        #expect((try? tickets[2].result?.get()) != nil)
    }

    @Test func sayCommandWritesTheFileAndRejectsBadUsage() throws {
        let path = temporaryPath("cli")
        defer { unlink(path) }
        #expect(SayCommand.run(arguments: ["--text", "Hallo", "--lang", "de", "--out", path]) == 0)
        let bytes = try FileIO.readAll(path, limit: 50_000_000)
        #expect((WAV.info(bytes)?.sampleCount ?? 0) > 0)
        #expect(SayCommand.run(arguments: ["--text", "Hallo"]) == 2)
        #expect(SayCommand.run(arguments: ["--lang", "d e", "--text", "x", "--out", path]) == 2)
        #expect(SayCommand.run(arguments: ["--text", "x", "--lang", "zz-nonexistent", "--out", path]) == 1)
    }

    @Test func wavRoundTrips() {
        let bytes = WAV.encode(samples: [0, 1, -1, .max, .min], sampleRate: 16000)
        #expect(bytes.count == 44 + 10)
        #expect(WAV.info(bytes) == WAV.Info(sampleRate: 16000, sampleCount: 5))
        #expect(WAV.info(Array(bytes.prefix(43))) == nil)
        #expect(WAV.info(Array("RIFX".utf8) + bytes.dropFirst(4)) == nil)
    }
}
