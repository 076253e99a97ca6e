#ifndef CQRENCODE_SHIM_H
#define CQRENCODE_SHIM_H
// libqrencode's QR code encoder: plain functions and a struct Swift imports as they are.
// Nothing here needs a helper.
#include <qrencode.h>
#endif
