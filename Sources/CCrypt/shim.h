#ifndef CCRYPT_SHIM_H
#define CCRYPT_SHIM_H
// libxcrypt (Debian's libcrypt-dev): crypt_r, crypt_gensalt_rn. Types only: nothing links
// libcrypt. The staff PIN's `CryptFunctions` loads libcrypt.so.1 with dlopen at the first PIN.
#include <crypt.h>
#endif
