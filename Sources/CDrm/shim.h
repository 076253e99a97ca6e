#ifndef CDRM_SHIM_H
#define CDRM_SHIM_H
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
#endif
