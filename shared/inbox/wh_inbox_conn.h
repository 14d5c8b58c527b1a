#ifndef WH_INBOX_CONN_H
#define WH_INBOX_CONN_H
/* struct wh_inbox, shared by the files that touch the connection itself:
 * wh_inbox_open.c (its settings), wh_inbox_conn.c (its life),
 * wh_inbox_stmt.c (statements on it) and wh_inbox_walsync.c (its WAL
 * sync). Every other file goes through wh_inbox_db.h. */
#include "wh_inbox_db.h"
#include "wh_inbox_lock.h"
#include <apr_hash.h>
#include <apr_thread_mutex.h>
#include <sys/types.h>

typedef struct {
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    pid_t pid;                   /* the process that opened it */
} wh_conn_owner;

struct wh_inbox {
    apr_thread_mutex_t *mutex;
    apr_pool_t *root;            /* private allocator; parent of cpool */
    wh_logger log;
    const apr_dbd_driver_t *driver;
    const char *driver_name;
    const char *params;          /* may hold a password: never logged */
    wh_inbox_driver engine;
    int lock_wait_ms;
    int readonly;                /* WH_INBOX_READ_ONLY */
    const char *db_file;         /* SQLite: the database file, or NULL */
    const char *where;           /* "config:line: " of InboxParams, for
                                    messages about the file */
    mode_t file_mode;            /* of the files it creates */
    gid_t gid;                   /* InboxGroup, or (gid_t)-1 */
    wh_inbox_lock *wlock;        /* SQLite writers' queue, or NULL */
    int wlock_tried;
    struct wh_batcher *batcher;  /* group commit, or NULL */
    int sequencer_off;           /* tests: no sequencer after stores */
    /* Run on each fresh connection: wh_inbox_schema_ensure, set by
     * wh_inbox_open.c, so that the connection never calls up into the
     * schema built on it. */
    wh_conn_status (*ensure_schema)(wh_inbox *ib, apr_pool_t *p, int readonly,
                                    const char **why);
    apr_time_t retry_at;         /* no new connection before this */
    apr_time_t busy_deadline;    /* SQLite: the busy handler gives up then */
    apr_interval_time_t retry_interval;

    /* The current connection, all of it in cpool. */
    apr_pool_t *cpool;
    wh_conn_owner *conn;
    apr_hash_t *prepared;        /* wh_inbox_stmt * -> apr_dbd_prepared_t * */
    int broken;                  /* last use failed: reconnect first */
    int deferred;                /* this connection's commits are synced by
                                    wh_inbox_db_sync (wh_inbox_walsync.c) */
    /* The WAL sync, under sync_mutex (never the connection's mutex: a
     * thread syncs while the next one commits). */
    apr_thread_mutex_t *sync_mutex;
    int wal_fd;                  /* -1 when the connection syncs in SQLite */
    const char *wal_path;        /* once a connection deferred, in root */
    int sync_failed;             /* sticky: no write after a failed sync */
    int relaxed;                 /* wh_inbox_db_set_relaxed: no sync wanted */

    /* The failure a unit of work recorded (wh_inbox_db_fail). */
    const char *fail_what;
    const char *fail_msg;
};

/* wh_inbox_walsync.c: on a fresh writer connection (mutex held), switch
 * to synchronous = NORMAL with a descriptor of the WAL to sync. */
void wh_inbox_walsync_attach(wh_inbox *ib, apr_pool_t *p);
/* Opens a fresh connection, sets it up and runs ensure_schema; the
 * previous connection, if any, is closed. why (may be NULL) gets the
 * reason of a failure, in p. */
wh_conn_status wh_inbox_db_connect(wh_inbox *ib, apr_pool_t *p, const char **why);
/* A driver message on one bounded line (libpq's messages span lines). */
const char *wh_inbox_one_line(apr_pool_t *p, const char *m);

#endif
