#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H
#include <libpq-fe.h>

/// PG_DIAG_SQLSTATE is a character-literal macro ('C'), which Swift does not import.
static inline int CLibPQ_diagSQLState(void) { return PG_DIAG_SQLSTATE; }
/// PG_DIAG_MESSAGE_PRIMARY ('M'), likewise.
static inline int CLibPQ_diagMessagePrimary(void) { return PG_DIAG_MESSAGE_PRIMARY; }

#endif
