#ifndef WH_INBOX_CONN_H
#define WH_INBOX_CONN_H
/* struct wh_inbox, shared by the two files that touch the connection
 * itself: wh_inbox_conn.c (its life) and wh_inbox_stmt.c (statements on
 * it). Every other file goes through wh_inbox_db.h. */
#include "wh_inbox_db.h"
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

    /* The current connection, all of it in cpool. */
    apr_pool_t *cpool;
    wh_conn_owner *conn;
    apr_hash_t *prepared;        /* wh_inbox_stmt * -> apr_dbd_prepared_t * */
    int broken;                  /* last use failed: reconnect first */
    int sequencer_off;           /* tests: no sequencer after stores */

    /* The failure a unit of work recorded (wh_inbox_db_fail). */
    const char *fail_what;
    const char *fail_msg;
};

/* A driver message on one bounded line (libpq's messages span lines). */
const char *wh_inbox_one_line(apr_pool_t *p, const char *m);

#endif
