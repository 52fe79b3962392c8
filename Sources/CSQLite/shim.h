// SQLITE_TRANSIENT is a cast macro Swift cannot import.
#ifndef NIMBUS_CSQLITE_SHIM_H
#define NIMBUS_CSQLITE_SHIM_H
#include <sqlite3.h>
static inline int csqlite_bind_text_transient(sqlite3_stmt *s, int i, const char *v, int n) { return sqlite3_bind_text(s, i, v, n, SQLITE_TRANSIENT); }
static inline int csqlite_bind_blob_transient(sqlite3_stmt *s, int i, const void *v, int n) { return sqlite3_bind_blob(s, i, v, n, SQLITE_TRANSIENT); }
#endif
