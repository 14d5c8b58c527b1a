#ifndef WH_REPLAY_POOL_H
#define WH_REPLAY_POOL_H
/* The connections of a replay store several servers share (redis,
 * memcache, pgsql, mysql), kept one way for all four: at most max per
 * process in an apr_reslist, each opened on first use (after any fork) and
 * kept open;
 * a connection an operation broke is closed when it comes back, and the
 * operation runs once more on a fresh one (the server was restarted since
 * the connection was opened; every operation of the stores gives the same
 * result when repeated).
 *
 * After a connection could not be opened, none is tried again for the
 * pool's back-off (WH_REPLAY_POOL_RETRY): meanwhile an operation that needs
 * a new connection fails at once, and wh_replay_pool_retry_in says when the
 * next attempt is (the 503's Retry-After). A server that is down costs one
 * attempt per back-off, not a connect timeout per request; connections
 * already open are still used. An operation whose connection broke only
 * after waiting out the timeout is not run again: the server is silent
 * (stopped, frozen, cut off), not restarted; for the back-off every
 * operation then fails at once, on the connections open too, so that a
 * stall costs a request the timeout once, not once per connection.
 *
 * A store whose client cannot bound its wait for a reply (libpq and the
 * MySQL client wait for as long as the server is silent) gives the pool
 * its connections' sockets: the pool's watch (verify/wh_sock_watch.h) shuts down the
 * socket of an operation that outlives the timeout, and the operation
 * fails as on a broken connection, so a stalled server is a 503 after the
 * timeout, not a request that never ends. */
#include "wh_replay_store.h"

/* How long after a failed attempt to open a connection the next is made. */
#define WH_REPLAY_POOL_RETRY apr_time_from_sec(2)

typedef struct wh_replay_pool wh_replay_pool;

/* Every pooled connection begins with this. An operation that fails in a
 * way that spoils its connection (an I/O error, a lost reply) sets
 * broken: the pool closes the connection when it comes back. */
typedef struct {
    int broken;
} wh_replay_conn;

typedef struct {
    /* A new connection (a wh_replay_conn first) in *conn; or an APR error, with why (at most
     * why_len bytes, NUL-terminated; "" to let the status speak) saying
     * what failed, never a secret. */
    apr_status_t (*open)(void *params, void **conn, char *why,
                         apr_size_t why_len);
    void (*close)(void *params, void *conn);
    /* The connection's socket, shut down when an operation on it outlives
     * the timeout; -1: none to watch. NULL: the client bounds its waits
     * itself (hiredis, libmemcached). */
    int (*socket)(void *params, void *conn);
} wh_replay_pool_ops;

/* The pool, nothing opened yet, living until p is cleared. unreachable
 * starts the error of an operation that got no connection ("no connection
 * to redis at HOST:PORT"). NULL, or why not. */
const char *wh_replay_pool_create(apr_pool_t *p, const wh_replay_pool_ops *ops,
                                  void *params, const char *unreachable,
                                  int max, apr_interval_time_t timeout,
                                  apr_interval_time_t retry,
                                  wh_replay_pool **out);

/* One operation on a connection: >= 0, or < 0 with *err. */
typedef int (*wh_replay_pool_fn)(void *conn, apr_pool_t *p, void *baton,
                                 const char **err);

/* fn on a pooled connection; when it fails and the connection broke, once
 * more on a fresh one. fn's answer, or -1 with *err (no connection: *err
 * names the server and why). */
int wh_replay_pool_run(wh_replay_pool *pl, apr_pool_t *p, wh_replay_pool_fn fn,
                       void *baton, const char **err);

/* A claim on a connection. */
typedef wh_claim_result (*wh_replay_pool_claim_fn)(void *conn, apr_pool_t *p,
                                                   void *baton,
                                                   const wh_claim *c,
                                                   wh_claim_info *info);

/* fn as wh_replay_pool_run runs an operation (WH_CLAIM_ERROR is its
 * failure), with *info cleared first; an error while no connection can be
 * opened sets info->retry_in; an answer other than FIRST after an attempt
 * whose connection broke sets info->lost, unless every attempt ended with
 * fn saying it was only looking (info->looking). */
wh_claim_result wh_replay_pool_claim(wh_replay_pool *pl, apr_pool_t *p,
                                     wh_replay_pool_claim_fn fn, void *baton,
                                     const wh_claim *c, wh_claim_info *info);

/* Watches fd (a connection being opened, before the pool has it) until
 * wh_replay_pool_unwatch: shut down at now + the pool's timeout. A slot,
 * or -1 when it cannot be watched. */
int wh_replay_pool_watch(wh_replay_pool *pl, int fd);
/* The watch ends; 1 when the socket was shut down meanwhile. */
int wh_replay_pool_unwatch(wh_replay_pool *pl, int slot);

/* While the back-off after a failed attempt runs: how long until the next
 * attempt (> 0); else 0. */
apr_interval_time_t wh_replay_pool_retry_in(wh_replay_pool *pl, apr_time_t now);

#endif
