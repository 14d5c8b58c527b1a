#ifndef WH_DB_CONN_H
#define WH_DB_CONN_H
/* One open connection of an inbox and its statement cache: what
 * wh_inbox_stmt.c runs statements on, and what wh_inbox_walsync.c hangs
 * the WAL's descriptor on. Made and renewed by wh_inbox_conn.c. */
#include "wh_inbox_db.h"
#include <apr_hash.h>
#include <sys/types.h>

typedef struct {
    const apr_dbd_driver_t *driver;
    wh_inbox_driver engine;      /* whose SQL a statement is given in */
    apr_dbd_t *handle;           /* NULL until open, or once abandoned */
    pid_t pid;                   /* the process that opened it */
    apr_pool_t *pool;            /* lives as long as the connection */
    apr_hash_t *prepared;        /* wh_inbox_stmt * -> apr_dbd_prepared_t * */
    apr_pool_t *handle_pool;     /* MySQL: the handle's own pool, destroyed
                                    after it is closed (wh_inbox_mysql.h) */
    const char *grant;           /* MySQL: the GRANT the user needs, said
                                    with an "access denied" */
} wh_db_conn;

/* The inbox's current connection, or NULL (mutex held). */
wh_db_conn *wh_inbox_db_conn(wh_inbox *ib);

/* Called before each statement (mutex held): on PostgreSQL the wait for
 * its answer is bounded, the connection's socket shut down when a silent
 * server (stopped, frozen, cut off) lets it pass (wh_inbox_conn.c). */
void wh_inbox_db_awaiting(wh_inbox *ib);

#endif
