#ifndef CPANGOCAIRO_SHIM_H
#define CPANGOCAIRO_SHIM_H
// cairo's and pango's C API. Their functions are called through CGraphics, which loads the
// libraries with dlopen; the release build does not link them (scripts/release-build.sh).
#include <cairo.h>
#include <pango/pangocairo.h>
#endif
