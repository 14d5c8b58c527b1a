#ifndef WH_INBOX_BACKUP_H
#define WH_INBOX_BACKUP_H
/* An SQLite inbox's file as a whole: a consistent copy while
 * notifications arrive (SQLite's online backup API), and a rewrite that
 * gives free pages back and turns incremental auto-vacuum on (VACUUM).
 * docs/inbox.md, "Backup and restore" and "Space". A PostgreSQL inbox is
 * the server's to copy (pg_dump) and to vacuum. */
#include "wh_inbox.h"

typedef struct {
    apr_int64_t events;          /* events in the copy */
    apr_int64_t bytes;           /* the copy's size */
} wh_inbox_backup_info;

/* Copies ib (an SQLite inbox; cfg names its file) into dest: a snapshot
 * of one moment, taken in one read transaction of the inbox's own
 * connection, so writers go on meanwhile. The copy is made beside dest
 * as a new file of mode 0600 (owned like the inbox when run as root),
 * checked (PRAGMA integrity_check), synced and renamed over dest, so
 * dest is never a partial copy; it is a file of its own, with no -wal
 * beside it. NULL, or what went wrong (nothing is left behind). */
const char *wh_inbox_backup(wh_inbox *ib, apr_pool_t *p, const wh_config *cfg,
                            const char *dest, wh_inbox_backup_info *out);

typedef struct {
    apr_int64_t pages_before;    /* the file's pages before */
    apr_int64_t pages_after;
    int auto_vacuum_before;      /* PRAGMA auto_vacuum before: 0 none,
                                    2 incremental */
} wh_inbox_vacuum_info;

/* VACUUM with auto_vacuum incremental: the file is written again without
 * its free pages, and from then on each purge gives the space of what it
 * deletes back (wh_inbox_purge.c). It holds the write lock throughout:
 * stores wait, and answer 503 once they have waited their bounded wait.
 * NULL, or what went wrong. */
const char *wh_inbox_vacuum(wh_inbox *ib, apr_pool_t *p, wh_inbox_vacuum_info *out);

#endif
