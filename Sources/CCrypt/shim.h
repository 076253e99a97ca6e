#ifndef CCRYPT_SHIM_H
#define CCRYPT_SHIM_H
// libxcrypt (Debian's libcrypt-dev): crypt_r, crypt_gensalt_rn. Nothing here needs a shim
// beyond the header itself.
#include <crypt.h>
#endif
