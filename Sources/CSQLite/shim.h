// SQLITE_TRANSIENT is a cast macro Swift cannot import.
#ifndef NIMBUS_CSQLITE_SHIM_H
#define NIMBUS_CSQLITE_SHIM_H
#include <sqlite3.h>
static inline int csqlite_bind_text_transient(sqlite3_stmt *s, int i, const char *v, int n) { return sqlite3_bind_text(s, i, v, n, SQLITE_TRANSIENT); }
static inline int csqlite_bind_blob_transient(sqlite3_stmt *s, int i, const void *v, int n) { return sqlite3_bind_blob(s, i, v, n, SQLITE_TRANSIENT); }
// Page cache pages on demand instead of a bulk block per connection (sqlite3_config is
// variadic, which Swift cannot call). Must run before the library initialises.
static inline int csqlite_page_cache_on_demand(void) { return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0); }
#endif
