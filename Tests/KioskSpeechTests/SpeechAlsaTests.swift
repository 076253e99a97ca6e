import Foundation
import KioskSystem
import Testing

@testable import CardModel
@testable import KioskSpeech

/// Speech played through real ALSA (Debian's libasound2): the `file` PCM plugin over the
/// `null` device stands in for the headphone jack, so the samples that reach the device can
/// be compared with what espeak-ng made; a device that does not exist fails with ALSA's words
/// and the worker carries on.
@Suite(.serialized) struct SpeechAlsaTests {
    func path(_ name: String) -> String { NSTemporaryDirectory() + "kiosk-alsa-\(getpid())-\(name).raw" }

    static func samples(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
    }

    @Test func theWorkerPlaysWhatEspeakMadeThroughALSA() throws {
        let out = path("worker")
        defer { unlink(out) }
        let speech = Speech()
        defer { speech.stop() }
        let ticket = speech.say(
            "Karte 1. Erste Information.", language: "de", to: .alsa(device: "file:FILE=\(out),FORMAT=raw"))
        let result = try #require(ticket.wait(seconds: 60), "spoken within 60 s")
        let audio = try result.get()
        #expect(audio.seconds > 1)
        let bytes = try FileIO.readAll(out, limit: 50_000_000)
        #expect(bytes.count == audio.samples.count * 2)
        #expect(Self.samples(bytes) == audio.samples)
        #expect(!speech.speaking)
    }

    @Test func aMissingDeviceFailsWithALSAsWordsAndTheWorkerCarriesOn() throws {
        let speech = Speech()
        defer { speech.stop() }
        let bad = try #require(speech.say("Ja", language: "de", to: .alsa(device: "hw:97,0")).wait(seconds: 60))
        guard case .failure(let e) = bad else {
            Issue.record("hw:97,0 played")
            return
        }
        #expect(e.message.contains("snd_pcm_open") && e.message.contains("hw:97,0"), "\(e)")
        // The same worker still speaks afterwards.
        let out = path("after")
        defer { unlink(out) }
        let good = try #require(
            speech.say("Nein", language: "de", to: .alsa(device: "file:FILE=\(out),FORMAT=raw")).wait(seconds: 60))
        let audio = try good.get()
        let written = try FileIO.readAll(out, limit: 50_000_000).count
        #expect(written == audio.samples.count * 2 && written > 0)
    }

    @Test func heldStillTwoSecondsReadsOnceAndAMoveCancels() {
        var held = HeldTouch(slop: 10)
        func f(_ t: Double, _ x: Double, _ phase: TouchPhase, id: Int = 1) -> TouchFrame {
            TouchFrame(time: .seconds(t), contacts: [TouchContact(id: id, position: Point(x: x, y: 100), phase: phase)])
        }
        let due = held.take(f(1, 100, .began))
        #expect(due == .seconds(3))
        let still = held.take(f(1.5, 104, .moved))  // within the slop
        #expect(still == .seconds(3))
        let early = held.fire(at: .seconds(2.9))
        let onTime = held.fire(at: .seconds(3))
        let again = held.fire(at: .seconds(4))  // once per hold
        #expect(!early && onTime && !again)
        _ = held.take(f(4.1, 104, .ended))
        let second = held.take(f(5, 100, .began))
        #expect(second == .seconds(7))
        let dragged = held.take(f(5.5, 130, .moved))  // a drag is no hold
        let afterDrag = held.fire(at: .seconds(8))
        #expect(dragged == nil && !afterDrag)
        _ = held.take(f(9, 130, .ended))
        _ = held.take(f(10, 100, .began))
        let twoFingers = held.take(f(10.2, 300, .began, id: 2))  // a second finger cancels
        let afterTwo = held.fire(at: .seconds(13))
        #expect(twoFingers == nil && !afterTwo)
    }
}
