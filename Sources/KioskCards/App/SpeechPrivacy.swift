import KioskDisplay
import KioskSpeech
import KioskSystem

/// `speech-privacy` (EN 301 549 5.1.3.9 private listening): the panel goes off while the speech
/// worker plays and comes back after, with the frame drawn again.
enum SpeechPrivacy {
    /// A new speech worker (its own thread), watched on `loop` as `watch` says.
    static func startWorker(loop: EventLoop, display: Display, enabled: Bool, redraw: @escaping () -> Void) -> Speech {
        let worker = Speech()
        _ = watch(worker, loop: loop, display: display, enabled: enabled, redraw: redraw)
        return worker
    }

    /// Watches `worker.changed` on `loop` and, when `enabled`, follows `worker.speaking` with
    /// the panel's power; `redraw` runs when it comes back. Returns the loop's token.
    static func watch(
        _ worker: Speech, loop: EventLoop, display: Display, enabled: Bool, redraw: @escaping () -> Void
    ) -> Int {
        loop.add(fd: worker.changed.fd) { _ in
            worker.changed.drain()
            guard enabled else { return }
            let speaking = worker.speaking
            Log.info("speech: privacy, panel \(speaking ? "off while speaking" : "on again")")
            display.setPower(on: !speaking)
            if !speaking { redraw() }
        }
    }
}
