#ifndef CESPEAKNG_SHIM_H
#define CESPEAKNG_SHIM_H
// Debian's libespeak-ng-dev: espeak_ng.h (the espeak_ng_* API) includes speak_lib.h.
// Nothing here needs a shim: every call and constant imports into Swift as it is.
// Types and constants only: nothing links espeak-ng. KioskSpeech's `EspeakFunctions` loads
// libespeak-ng.so.1 with dlopen when the kiosk first speaks.
#include <espeak-ng/espeak_ng.h>
#endif
