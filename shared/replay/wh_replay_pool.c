/* The shared stores' connections (see wh_replay_pool.h). */
#include "wh_replay_pool.h"
#include "verify/wh_sock_watch.h"
#include <apr_reslist.h>
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <string.h>

/* Room for why a connection could not be opened. */
#define WH_POOL_WHY_MAX 200

struct wh_replay_pool {
    const wh_replay_pool_ops *ops;
    void *params;
    const char *unreachable;
    apr_interval_time_t retry;
    apr_reslist_t *conns;
    apr_thread_mutex_t *mu;            /* guards what follows */
    apr_time_t retry_at;               /* no attempt before (0: none due) */
    int silent;                        /* the server gave no answer: until
                                          retry_at, not even the connections
                                          open are tried */
    apr_status_t last_rv;
    char why[WH_POOL_WHY_MAX];         /* the last failed attempt's */
    apr_interval_time_t timeout;
    wh_sock_watch *watch;              /* ops->socket's, or NULL */
};

/* The reslist's constructor: the store opens a connection, unless the
 * back-off after the last failure still runs. */
static apr_status_t conn_make(void **res, void *params, apr_pool_t *pool)
{
    wh_replay_pool *pl = params;
    char why[WH_POOL_WHY_MAX] = "";
    apr_time_t now = apr_time_now();
    apr_status_t rv;
    (void)pool;

    *res = NULL;
    apr_thread_mutex_lock(pl->mu);
    rv = now < pl->retry_at ? pl->last_rv : APR_SUCCESS;
    apr_thread_mutex_unlock(pl->mu);
    if (rv != APR_SUCCESS)
        return rv;
    rv = pl->ops->open(pl->params, res, why, sizeof(why));
    apr_thread_mutex_lock(pl->mu);
    if (rv == APR_SUCCESS) {
        pl->retry_at = 0;
    }
    else {
        char buf[120];
        *res = NULL;
        pl->retry_at = apr_time_now() + pl->retry;
        pl->last_rv = rv;
        apr_cpystrn(pl->why, why[0] ? why : apr_strerror(rv, buf, sizeof(buf)),
                    sizeof(pl->why));
    }
    apr_thread_mutex_unlock(pl->mu);
    return rv;
}

static apr_status_t conn_free(void *res, void *params, apr_pool_t *pool)
{
    wh_replay_pool *pl = params;
    (void)pool;
    if (res)
        pl->ops->close(pl->params, res);
    return APR_SUCCESS;
}

/* ---- the watch -------------------------------------------------------- */

int wh_replay_pool_watch(wh_replay_pool *pl, int fd)
{
    return wh_sock_watch_begin(pl->watch, fd, pl->timeout);
}

int wh_replay_pool_unwatch(wh_replay_pool *pl, int slot)
{
    return wh_sock_watch_end(pl->watch, slot);
}

/* ---- the pool -------------------------------------------------------- */

const char *wh_replay_pool_create(apr_pool_t *p, const wh_replay_pool_ops *ops,
                                  void *params, const char *unreachable,
                                  int max, apr_interval_time_t timeout,
                                  apr_interval_time_t retry,
                                  wh_replay_pool **out)
{
    wh_replay_pool *pl = apr_pcalloc(p, sizeof(*pl));
    const char *err;

    *out = NULL;
    pl->ops = ops;
    pl->params = params;
    pl->unreachable = apr_pstrdup(p, unreachable);
    pl->retry = retry;
    pl->timeout = timeout;
    if (max < 1)
        max = 1;
    if (apr_thread_mutex_create(&pl->mu, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS)
        return "cannot create a mutex";
    /* each connection in an operation, and as many being opened */
    if (ops->socket && (err = wh_sock_watch_create(p, 2 * max, &pl->watch)) != NULL)
        return err;
    if (apr_reslist_create(&pl->conns, 0, max, max, apr_time_from_sec(60),
                           conn_make, conn_free, pl, p) != APR_SUCCESS)
        return "cannot create the connection pool";
    apr_reslist_timeout_set(pl->conns, timeout);
    *out = pl;
    return NULL;
}

/* A connection, or -1 with *err: why the last attempt failed (the back-off
 * answers with it too), or that every connection stayed busy. */
static int acquire(wh_replay_pool *pl, apr_pool_t *p, void **conn,
                   const char **err)
{
    apr_status_t rv;
    char buf[120];

    apr_thread_mutex_lock(pl->mu);
    if (pl->silent && apr_time_now() < pl->retry_at) {
        *err = apr_psprintf(p, "%s: %s", pl->unreachable, pl->why);
        apr_thread_mutex_unlock(pl->mu);
        return -1;
    }
    pl->silent = 0;
    apr_thread_mutex_unlock(pl->mu);
    rv = apr_reslist_acquire(pl->conns, conn);

    if (rv == APR_SUCCESS && *conn != NULL)
        return 0;
    if (rv == APR_TIMEUP || rv == APR_SUCCESS) {
        *err = apr_psprintf(p, "%s: %s", pl->unreachable,
                            apr_strerror(rv == APR_SUCCESS ? APR_EGENERAL : rv,
                                         buf, sizeof(buf)));
        return -1;
    }
    apr_thread_mutex_lock(pl->mu);
    *err = apr_psprintf(p, "%s: %s", pl->unreachable, pl->why);
    apr_thread_mutex_unlock(pl->mu);
    return -1;
}

static int broken(const void *conn)
{
    return ((const wh_replay_conn *)conn)->broken;
}

static void release(wh_replay_pool *pl, void *conn)
{
    if (broken(conn))
        apr_reslist_invalidate(pl->conns, conn);
    else
        apr_reslist_release(pl->conns, conn);
}

/* wh_replay_pool_run; *unanswered: an attempt's connection broke under
 * it (what it sent may have reached the store without its answer coming
 * back). */
static int run(wh_replay_pool *pl, apr_pool_t *p, wh_replay_pool_fn fn,
               void *baton, const char **err, int *unanswered)
{
    int rv = -1;

    *unanswered = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        void *conn = NULL;
        int spoilt;

        int slot = -1;

        apr_time_t began;

        if (acquire(pl, p, &conn, err) != 0)
            return -1;
        if (pl->ops->socket)
            slot = wh_replay_pool_watch(pl, pl->ops->socket(pl->params, conn));
        began = apr_time_now();
        rv = fn(conn, p, baton, err);
        if (wh_replay_pool_unwatch(pl, slot)) {
            /* shut down under it: whatever it answered, the connection is
             * gone, and a failure is the silence's */
            ((wh_replay_conn *)conn)->broken = 1;
            if (rv < 0)
                *err = apr_psprintf(p, "%s: no answer within %" APR_TIME_T_FMT
                                    " s", pl->unreachable, apr_time_sec(pl->timeout));
        }
        spoilt = broken(conn);
        release(pl, conn);
        if (spoilt)
            *unanswered = 1;
        if (rv >= 0 || !spoilt)
            break;
        /* broken after waiting out the timeout: the server is silent
         * (stopped, frozen, cut off), not restarted, and a fresh
         * connection would wait as long; every operation fails at once
         * for the back-off instead of waiting in turn */
        if (apr_time_now() - began >= pl->timeout) {
            apr_thread_mutex_lock(pl->mu);
            pl->silent = 1;
            pl->retry_at = apr_time_now() + pl->retry;
            pl->last_rv = APR_TIMEUP;
            apr_snprintf(pl->why, sizeof(pl->why), "no answer within %"
                         APR_TIME_T_FMT " s", apr_time_sec(pl->timeout));
            apr_thread_mutex_unlock(pl->mu);
            break;
        }
    }
    return rv;
}

int wh_replay_pool_run(wh_replay_pool *pl, apr_pool_t *p, wh_replay_pool_fn fn,
                       void *baton, const char **err)
{
    int unanswered;
    return run(pl, p, fn, baton, err, &unanswered);
}

typedef struct {
    wh_replay_pool_claim_fn fn;
    void *baton;
    const wh_claim *c;
    wh_claim_info *info;
    wh_claim_result res;
    int could_claim;            /* an attempt ended with a claim sent */
} claim_call;

static int claim_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    claim_call *k = baton;
    (void)err;                          /* the claim's own: info->err */
    memset(k->info, 0, sizeof(*k->info));
    k->res = k->fn(conn, p, k->baton, k->c, k->info);
    if (!k->info->looking)
        k->could_claim = 1;
    return k->res == WH_CLAIM_ERROR ? -1 : 0;
}

wh_claim_result wh_replay_pool_claim(wh_replay_pool *pl, apr_pool_t *p,
                                     wh_replay_pool_claim_fn fn, void *baton,
                                     const wh_claim *c, wh_claim_info *info)
{
    claim_call k = { fn, baton, c, info, WH_CLAIM_ERROR, 0 };
    const char *err = NULL;
    int unanswered, rv;

    memset(info, 0, sizeof(*info));
    rv = run(pl, p, claim_on, &k, &err, &unanswered);
    /* an attempt whose connection broke may have claimed (unless all it
     * sent was a look): unless a later attempt found the claim (this
     * holder's own: FIRST), nobody will deliver under it */
    unanswered = unanswered && k.could_claim;
    if (rv < 0) {
        if (err)                        /* no connection */
            info->err = err;
        info->retry_in = wh_replay_pool_retry_in(pl, apr_time_now());
        info->lost = unanswered;
        return WH_CLAIM_ERROR;
    }
    if (k.res != WH_CLAIM_FIRST)
        info->lost = unanswered;
    return k.res;
}

apr_interval_time_t wh_replay_pool_retry_in(wh_replay_pool *pl, apr_time_t now)
{
    apr_time_t at;

    apr_thread_mutex_lock(pl->mu);
    at = pl->retry_at;
    apr_thread_mutex_unlock(pl->mu);
    return at > now ? at - now : 0;
}
