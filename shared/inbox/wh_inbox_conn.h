#ifndef WH_INBOX_CONN_H
#define WH_INBOX_CONN_H
/* Making an inbox, for wh_inbox_open.c: the connection layer
 * (wh_inbox_conn.c) keeps struct wh_inbox to itself; the other files
 * reach its parts through wh_inbox_db.h and the small headers of those
 * parts (wh_db_conn.h, wh_inbox_walsync.h, wh_inbox_writers.h). */
#include "wh_inbox_db.h"
#include "wh_inbox_settings.h"

/* Run on each fresh connection: wh_inbox_schema_ensure, handed over by
 * wh_inbox_open.c so that the connection never calls up into the schema
 * built on it. */
typedef wh_conn_status (*wh_inbox_schema_fn)(wh_inbox *ib, apr_pool_t *p, int readonly,
                                             const char **why);

/* An inbox with no connection yet, living as long as p. NULL or what
 * failed. */
const char *wh_inbox_db_create(apr_pool_t *p, const wh_inbox_settings *s,
                               wh_inbox_schema_fn ensure_schema, wh_inbox **out);

/* Hands the inbox its group commit (wh_inbox_store_batcher). */
void wh_inbox_db_set_batcher(wh_inbox *ib, struct wh_batcher *b);

/* Opens a fresh connection, sets it up and runs the schema hook; the
 * previous connection, if any, is closed. Not OK: no new connection
 * before the retry interval has passed. why (may be NULL) gets the
 * reason of a failure, in p. */
wh_conn_status wh_inbox_db_connect(wh_inbox *ib, apr_pool_t *p, const char **why);

#endif
