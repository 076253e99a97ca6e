#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H
// Types and constants only: nothing links libpq. KioskFleet's `LibPQ` loads libpq.so.5 with
// dlopen at the first connection. Without pkg-config (whose -lpq would link it) the header is
// found by its path under /usr/include (Debian's libpq-dev).
#include <postgresql/libpq-fe.h>

/// PG_DIAG_SQLSTATE is a character-literal macro ('C'), which Swift does not import.
static inline int CLibPQ_diagSQLState(void) { return PG_DIAG_SQLSTATE; }
/// PG_DIAG_MESSAGE_PRIMARY ('M'), likewise.
static inline int CLibPQ_diagMessagePrimary(void) { return PG_DIAG_MESSAGE_PRIMARY; }

#endif
