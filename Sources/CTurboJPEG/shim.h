#ifndef CTURBOJPEG_SHIM_H
#define CTURBOJPEG_SHIM_H
// libjpeg-turbo's TurboJPEG API: return codes instead of libjpeg's setjmp/longjmp errors,
// which Swift cannot catch. Nothing here needs a helper.
#include <turbojpeg.h>
#endif
