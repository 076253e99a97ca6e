#ifndef CTURBOJPEG_SHIM_H
#define CTURBOJPEG_SHIM_H
// libjpeg-turbo's TurboJPEG API: return codes instead of libjpeg's setjmp/longjmp errors,
// which Swift cannot catch. Types and constants only: nothing links libturbojpeg. KioskSystem's
// `TurboJPEGFunctions` loads libturbojpeg.so.0 with dlopen at the first JPEG.
#include <turbojpeg.h>
#endif
