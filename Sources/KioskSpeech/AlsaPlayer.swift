import CALSA
import Glibc
import KioskSystem

/// Plays 16-bit mono samples on an ALSA PCM device (the speech worker's thread only: every
/// call here blocks until the device has taken the audio).
///
/// Wraps `snd_pcm_open` (SND_PCM_STREAM_PLAYBACK, blocking), `snd_pcm_set_params`
/// (S16_LE, interleaved, 1 channel, ALSA resampling allowed, 0.5 s latency), `snd_pcm_writei`
/// with `snd_pcm_recover` on underruns, and `snd_pcm_drain`. ALSA calls return a negative
/// errno; `snd_strerror` names it. libasound is loaded by the first playback (`AlsaFunctions`);
/// without it playback fails with what to install, like a missing device.
package enum AlsaPlayer {
    /// Plays `samples` at `sampleRate` Hz on `device` ("default": the system's default output —
    /// the headphone jack, a USB headset, or what an asoundrc names) and waits until they are out.
    package static func play(_ samples: [Int16], sampleRate: Int, device: String = "default") throws(SpeechError) {
        let alsa: AlsaFunctions
        do throws(DynamicLibraryError) {
            alsa = try AlsaFunctions.shared.get()
        } catch {
            throw SpeechError(message: "no ALSA for device '\(device)': \(error)")
        }
        var handle: OpaquePointer?
        var rc = alsa.pcmOpen(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        guard rc >= 0, let pcm = handle else { throw failure("snd_pcm_open", rc, device, alsa) }
        defer { _ = alsa.pcmClose(pcm) }
        rc = alsa.pcmSetParams(
            pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(sampleRate), 1, 500_000)
        guard rc >= 0 else { throw failure("snd_pcm_set_params", rc, device, alsa) }
        var offset = 0
        while offset < samples.count {
            let written = samples.withUnsafeBufferPointer { buf in
                alsa.pcmWritei(pcm, buf.baseAddress! + offset, snd_pcm_uframes_t(samples.count - offset))
            }
            if written < 0 {
                // An underrun (EPIPE) or a suspend (ESTRPIPE): recover and go on; else give up.
                let recovered = alsa.pcmRecover(pcm, Int32(written), 1)
                guard recovered >= 0 else { throw failure("snd_pcm_writei", Int32(written), device, alsa) }
                continue
            }
            offset += Int(written)
        }
        rc = alsa.pcmDrain(pcm)
        guard rc >= 0 else { throw failure("snd_pcm_drain", rc, device, alsa) }
    }

    static func failure(_ call: String, _ rc: Int32, _ device: String, _ alsa: AlsaFunctions) -> SpeechError {
        let text = alsa.strerror(rc).map { String(cString: $0) } ?? "error \(rc)"
        return SpeechError(message: "'\(call)' failed on ALSA device '\(device)': \(text)")
    }
}
