import CDrm
import CLinux
import Glibc
import KioskSystem

/// The Linux VT the program runs on, switched to graphics mode with the keyboard muted while
/// the display is up, and restored afterwards.
///
/// KD_GRAPHICS stops the text console from drawing over (or blanking) the scanout; K_OFF keeps
/// keystrokes from reaching the shell underneath. On restore the VT goes back to text mode even
/// when it was found in graphics mode (a previous run that crashed), so the console comes back.
struct VirtualTerminal: ~Copyable {
    let fd: Int32
    let savedKeyboardMode: Int32

    /// Takes over `fd` (default stdin) when it is a VT; nil when it is not (a pipe, ssh, a
    /// serial console) — then there is nothing to switch.
    init?(fd: Int32 = 0) {
        var mode: Int32 = 0
        // KDGETMODE succeeds only on a VT.
        guard isatty(fd) != 0, ioctl(fd, UInt(KDGETMODE), &mode) == 0 else { return nil }
        var kb: Int32 = 0
        if ioctl(fd, UInt(KDGKBMODE), &kb) != 0 { kb = K_UNICODE }
        if ioctl(fd, UInt(KDSETMODE), Int32(KD_GRAPHICS)) != 0 {
            Log.warning(
                "'ioctl(KDSETMODE, KD_GRAPHICS)' failed: \(Errno.current); the text console may draw over the display")
        }
        if ioctl(fd, UInt(KDSKBMODE), Int32(K_OFF)) != 0 {
            Log.warning("'ioctl(KDSKBMODE, K_OFF)' failed: \(Errno.current); keystrokes may reach the console")
        }
        self.fd = fd
        self.savedKeyboardMode = kb == K_OFF ? K_UNICODE : kb
    }

    deinit {
        if ioctl(fd, UInt(KDSETMODE), Int32(KD_TEXT)) != 0 {
            Log.warning("'ioctl(KDSETMODE, KD_TEXT)' failed: \(Errno.current)")
        }
        if ioctl(fd, UInt(KDSKBMODE), savedKeyboardMode) != 0 {
            Log.warning("'ioctl(KDSKBMODE)' failed: \(Errno.current)")
        }
    }
}
