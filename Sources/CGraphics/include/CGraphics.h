#ifndef KIOSK_CGRAPHICS_H
#define KIOSK_CGRAPHICS_H

/// cairo, pango and fontconfig, loaded with dlopen instead of by the dynamic loader at exec.
///
/// The executable calls cairo and pango through functions of the same names defined here
/// (CGraphics.c, hidden: only the executable's own code reaches them), each of which looks its
/// library's function up on its first call. The release build therefore does not list the
/// libraries as NEEDED (scripts/release-build.sh), and a process maps them only when it draws:
/// `kiosk_graphics_load` on a thread of its own while another reads fontconfig's
/// configuration (`kiosk_fontconfig_init`), instead of the loader doing both in turn before
/// `main`. A debug or test build links them as before; the calls go the same way.

/// Loads libpangocairo-1.0.so.0 and the libraries it needs (pango, cairo, GObject, GLib).
/// Returns NULL once they are loaded, or a message naming the library, the reason and the
/// Debian package that fixes it. Safe from any thread; later calls return at once.
const char *_Nullable kiosk_graphics_load(void);

/// Loads libfontconfig.so.1 (and the few libraries it needs), not its configuration. One
/// dlopen waits for another to finish: opened before `kiosk_graphics_load` starts, fontconfig
/// can read its configuration while cairo's and pango's libraries load. Safe from any thread.
void kiosk_fontconfig_open(void);

/// Loads fontconfig's configuration as FcInit does, less the template folder it also parses
/// for `fc-conflist` (CGraphics.c), and makes it the current one: /etc/fonts's files parsed,
/// the font caches mapped, which the first text waits for. Opens the library first if needed;
/// does nothing when it cannot be loaded (pango reports that when it needs fonts).
void kiosk_fontconfig_init(void);

#endif
