/* The shared stores' connections (see wh_replay_pool.h). */
#include "wh_replay_pool.h"
#include <apr_reslist.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>

/* Room for why a connection could not be opened. */
#define WH_POOL_WHY_MAX 200

/* A socket watched while an operation (or an opening) runs on it. */
typedef struct {
    int fd;                            /* -1: free */
    apr_time_t deadline;
    int cut;                           /* shut down at its deadline */
} watch_slot;

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
    /* the watch (ops->socket): the slots and the thread, under mu */
    apr_pool_t *pool;
    apr_interval_time_t timeout;
    watch_slot *slots;
    int nslots;
    apr_thread_cond_t *watch_wake;
    apr_thread_t *watcher;
    int stopping;
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

/* The watcher: sleeps until the earliest deadline of a watched socket,
 * and shuts down a socket whose deadline passed. It holds the lock while
 * it does, and a watch ends under the lock, so a socket is never shut
 * down once its operation is over (and before it is closed). */
static void *APR_THREAD_FUNC watch_thread(apr_thread_t *t, void *data)
{
    wh_replay_pool *pl = data;

    apr_thread_mutex_lock(pl->mu);
    while (!pl->stopping) {
        apr_time_t now = apr_time_now(), next = 0;

        for (int i = 0; i < pl->nslots; i++) {
            watch_slot *w = &pl->slots[i];
            if (w->fd < 0 || w->cut)
                continue;
            if (w->deadline <= now) {
                (void)shutdown(w->fd, SHUT_RDWR);
                w->cut = 1;
            }
            else if (next == 0 || w->deadline < next)
                next = w->deadline;
        }
        if (next == 0)
            apr_thread_cond_wait(pl->watch_wake, pl->mu);
        else
            apr_thread_cond_timedwait(pl->watch_wake, pl->mu, next - now);
    }
    apr_thread_mutex_unlock(pl->mu);
    (void)t;
    return NULL;
}

/* A pre-cleanup: the watcher stops before the pool's memory goes. */
static apr_status_t watch_stop(void *data)
{
    wh_replay_pool *pl = data;
    apr_status_t ignored;

    if (pl->watcher) {
        apr_thread_mutex_lock(pl->mu);
        pl->stopping = 1;
        apr_thread_cond_signal(pl->watch_wake);
        apr_thread_mutex_unlock(pl->mu);
        apr_thread_join(&ignored, pl->watcher);
        pl->watcher = NULL;
    }
    return APR_SUCCESS;
}

/* Under mu: the watcher, started on first use (after any fork), born
 * with every signal blocked (they are the process's main thread's). */
static int watcher_started(wh_replay_pool *pl)
{
    apr_threadattr_t *attr = NULL;
    sigset_t all, old;
    apr_status_t rv = APR_EGENERAL;

    if (pl->watcher)
        return 1;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (apr_threadattr_create(&attr, pl->pool) == APR_SUCCESS)
        rv = apr_thread_create(&pl->watcher, attr, watch_thread, pl, pl->pool);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rv != APR_SUCCESS)
        pl->watcher = NULL;
    return pl->watcher != NULL;
}

int wh_replay_pool_watch(wh_replay_pool *pl, int fd)
{
    int slot = -1;

    if (fd < 0 || pl->slots == NULL)
        return -1;
    apr_thread_mutex_lock(pl->mu);
    if (!pl->stopping && watcher_started(pl))
        for (int i = 0; i < pl->nslots && slot < 0; i++)
            if (pl->slots[i].fd < 0)
                slot = i;
    if (slot >= 0) {
        pl->slots[slot].fd = fd;
        pl->slots[slot].cut = 0;
        pl->slots[slot].deadline = apr_time_now() + pl->timeout;
        apr_thread_cond_signal(pl->watch_wake);
    }
    apr_thread_mutex_unlock(pl->mu);
    return slot;
}

int wh_replay_pool_unwatch(wh_replay_pool *pl, int slot)
{
    int cut;

    if (slot < 0 || slot >= pl->nslots)
        return 0;
    apr_thread_mutex_lock(pl->mu);
    cut = pl->slots[slot].cut;
    pl->slots[slot].fd = -1;
    pl->slots[slot].cut = 0;
    apr_thread_mutex_unlock(pl->mu);
    return cut;
}

/* ---- the pool -------------------------------------------------------- */

const char *wh_replay_pool_create(apr_pool_t *p, const wh_replay_pool_ops *ops,
                                  void *params, const char *unreachable,
                                  int max, apr_interval_time_t timeout,
                                  apr_interval_time_t retry,
                                  wh_replay_pool **out)
{
    wh_replay_pool *pl = apr_pcalloc(p, sizeof(*pl));

    *out = NULL;
    pl->ops = ops;
    pl->params = params;
    pl->unreachable = apr_pstrdup(p, unreachable);
    pl->retry = retry;
    pl->pool = p;
    pl->timeout = timeout;
    if (max < 1)
        max = 1;
    if (apr_thread_mutex_create(&pl->mu, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS)
        return "cannot create a mutex";
    if (ops->socket) {
        /* each connection in an operation, and as many being opened */
        pl->nslots = 2 * max;
        pl->slots = apr_palloc(p, sizeof(*pl->slots) * (apr_size_t)pl->nslots);
        for (int i = 0; i < pl->nslots; i++)
            pl->slots[i].fd = -1;
        if (apr_thread_cond_create(&pl->watch_wake, p) != APR_SUCCESS)
            return "cannot create a condition";
        apr_pool_pre_cleanup_register(p, pl, watch_stop);
    }
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
} claim_call;

static int claim_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    claim_call *k = baton;
    (void)err;                          /* the claim's own: info->err */
    memset(k->info, 0, sizeof(*k->info));
    k->res = k->fn(conn, p, k->baton, k->c, k->info);
    return k->res == WH_CLAIM_ERROR ? -1 : 0;
}

wh_claim_result wh_replay_pool_claim(wh_replay_pool *pl, apr_pool_t *p,
                                     wh_replay_pool_claim_fn fn, void *baton,
                                     const wh_claim *c, wh_claim_info *info)
{
    claim_call k = { fn, baton, c, info, WH_CLAIM_ERROR };
    const char *err = NULL;
    int unanswered, rv;

    memset(info, 0, sizeof(*info));
    rv = run(pl, p, claim_on, &k, &err, &unanswered);
    /* an attempt whose connection broke may have claimed: unless a later
     * attempt found the claim (this holder's own: FIRST), nobody will
     * deliver under it */
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
