#ifndef WH_REPLAY_PGSQL_H
#define WH_REPLAY_PGSQL_H
/* ReplayCache pgsql (the inbox's own PostgreSQL database) and
 * pgsql:CONNINFO, through apr_dbd: a replay store several servers share,
 * for sites that run PostgreSQL anyway.
 *
 * One table, wh_replay (id, holder, expires): holder NULL is a delivered
 * id, anything else the token of the delivery claiming it; expires is the
 * end of the window or of the claim's lease, by the database's clock
 * (clock_timestamp()), so the servers' clocks never decide who holds an
 * id. A claim is INSERT ... ON CONFLICT (id) DO NOTHING, made only while
 * the epoch marker (the row 'wirehook:epoch') is the one the claimant
 * judged by; an expired row is taken over with an UPDATE that requires it
 * still to be expired. Renewing and forgetting compare the holder in the
 * statement itself. Every sixteenth claim of a connection purges up to 64
 * expired rows (FOR UPDATE SKIP LOCKED: a purge never waits for a lock,
 * and no statement takes a second row's lock, so none deadlocks).
 *
 * The schema is versioned (wh_replay_meta), created on first use under an
 * advisory lock; a table created new holds a marker saying "new" (judges
 * everything at once), one recreated after it was dropped a marker saying
 * "from now". Connections as wh_replay_redis.h; each session sets
 * synchronous_commit on (a confirmed id is durable before the 200 that
 * follows) and statement and lock timeouts of two thirds of the store's
 * timeout, so that a server that runs always ends a statement before the
 * pool stops waiting for it: the pool cuts (wh_replay_pool.h) only a
 * server that does not run at all (stopped, frozen, cut off). */
#include "wh_replay_store.h"

/* The schema version this wirehook writes. */
#define WH_REPLAY_PG_SCHEMA_VERSION 1

/* conninfo: libpq's. NULL or the error (never the conninfo). */
const char *wh_replay_pgsql_open(apr_pool_t *p, const char *conninfo,
                                 int max_conns, apr_interval_time_t timeout,
                                 wh_replay_store **out);

#endif
