#ifndef WH_INBOX_WALSYNC_H
#define WH_INBOX_WALSYNC_H
/* The state of SQLite's sync after the lock (wh_inbox_walsync.c, which
 * says why): one per inbox, inside it. */
#include "wh_inbox_db.h"
#include <apr_thread_mutex.h>

typedef struct {
    /* Never the connection's mutex: a thread syncs while the next one
     * commits. Guards fd, wal_path and failed. */
    apr_thread_mutex_t *mutex;
    apr_pool_t *pool;            /* the inbox's own, for wal_path */
    int fd;                      /* the WAL's, or -1: SQLite syncs itself */
    const char *wal_path;        /* once a connection deferred */
    int failed;                  /* sticky: no write after a failed sync */
    /* Under the inbox's mutex: */
    int deferred;                /* this connection's commits are synced
                                    by wh_inbox_db_sync */
    int relaxed;                 /* wh_inbox_db_set_relaxed: none wanted */
} wh_walsync;

/* Sets up ws in pool. NULL or what failed. */
const char *wh_walsync_init(wh_walsync *ws, apr_pool_t *pool);

/* The inbox's (wh_inbox_conn.c). */
wh_walsync *wh_inbox_db_walsync(wh_inbox *ib);

/* On a fresh writer connection (mutex held): switch to synchronous =
 * NORMAL with a descriptor of the WAL to sync. */
void wh_inbox_walsync_attach(wh_inbox *ib, apr_pool_t *p);

/* 1 when a commit on this connection waits for wh_inbox_db_sync. */
int wh_walsync_due(const wh_walsync *ws);

#endif
