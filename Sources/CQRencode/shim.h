#ifndef CQRENCODE_SHIM_H
#define CQRENCODE_SHIM_H
// libqrencode's QR code encoder: plain functions and a struct Swift imports as they are.
// Types only: nothing links libqrencode. KioskRender's `QRencodeFunctions` loads
// libqrencode.so.4 with dlopen at the first code.
#include <qrencode.h>
#endif
