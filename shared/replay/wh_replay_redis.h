#ifndef WH_REPLAY_REDIS_H
#define WH_REPLAY_REDIS_H
/* ReplayCache redis:HOST:PORT through hiredis: a replay store several
 * servers share. A claim is one script run atomically by redis: look the
 * id up, and unless it is held, SET it NX PX lease, provided the epoch
 * marker is the one the claimant judged the notification by (a store
 * flushed since answers with its new marker instead). Renewing and
 * forgetting a claim compare its holder inside a script too; confirming
 * is a plain SET PX window. Expiries are redis's own clock.
 *
 * Connections: at most max_conns per process (apr_reslist), opened on
 * first use, after any fork; a connection that failed is closed and
 * the next use opens another. */
#include "wh_replay_store.h"

/* The store; nothing is connected yet. Lives until p is cleared. NULL or
 * the error. */
const char *wh_replay_redis_open(apr_pool_t *p, const char *host, int port,
                                 int max_conns, apr_interval_time_t timeout,
                                 wh_replay_store **out);

#endif
