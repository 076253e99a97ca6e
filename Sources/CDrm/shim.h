#ifndef CDRM_SHIM_H
#define CDRM_SHIM_H
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>

// DRM_FORMAT_XRGB8888 is fourcc_code(...), a function-like macro Swift cannot import.
static inline uint32_t CDrmFormatXRGB8888(void) { return DRM_FORMAT_XRGB8888; }
// DRM_FORMAT_RGB565 likewise (the 16-bit scanout).
static inline uint32_t CDrmFormatRGB565(void) { return DRM_FORMAT_RGB565; }

#endif
