/* SQLite connections whose write-ahead-log writes are gathered into one
 * system call per commit (wh_sqlite_wal.c). */
#ifndef WH_SQLITE_WAL_H
#define WH_SQLITE_WAL_H

#include <apr_dbd.h>

/* apr_dbd_open_ex for the sqlite3 driver, the connection going through
 * the gathering layer when SQLite's library offers what it needs (the
 * plain apr_dbd_open_ex otherwise) and params do not name a VFS of their
 * own (file:...?vfs=unix); *gathered says which. Same contract as
 * apr_dbd_open_ex. */
apr_status_t wh_sqlite_wal_open(const apr_dbd_driver_t *driver, apr_pool_t *p,
                                const char *params, apr_dbd_t **handle,
                                const char **error, int *gathered);

/* Process-wide counts, for tests and the benchmark's notes. */
typedef struct {
    unsigned long writes;     /* writes SQLite asked for on WAL files */
    unsigned long syscalls;   /* writes that reached the file */
} wh_sqlite_wal_stats;

/* 0, or -1 when the layer is not in use (SQLite's library lacks what it
 * needs, or no connection was opened through it yet). */
int wh_sqlite_wal_stats_get(wh_sqlite_wal_stats *out);

#endif
