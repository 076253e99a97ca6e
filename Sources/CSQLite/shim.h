#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
// SQLite's C API: types and constants only: nothing links libsqlite3. KioskStore's
// `SQLiteFunctions` loads libsqlite3.so.0 with dlopen when the first database is opened.
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic, which Swift can neither call nor name as a function type:
/// `db_config` is its address (dlsym's), called here with one integer option and no output.
static inline int CSQLite_db_config_int(void *db_config, sqlite3 *db, int op, int value) {
    return ((int (*)(sqlite3 *, int, ...))db_config)(db, op, value, (int *)0);
}

#endif
