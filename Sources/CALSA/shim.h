#ifndef CALSA_SHIM_H
#define CALSA_SHIM_H
// Debian's libasound2-dev: the PCM API (snd_pcm_open, snd_pcm_set_params, snd_pcm_writei…).
// Nothing here needs a shim: every call and constant used imports into Swift as it is.
// Types and constants only: nothing links ALSA. KioskSpeech's `AlsaFunctions` loads
// libasound.so.2 with dlopen when speech first plays on a device.
#include <alsa/asoundlib.h>
#endif
