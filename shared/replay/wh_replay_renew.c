/* The claims of running deliveries, renewed while they run (see
 * wh_replay_renew.h). Open claims are a list of fixed-size entries (the
 * id and the holder copied in), recycled through a free list, so the
 * memory is bounded by the most deliveries ever open at once. */
#include "wh_replay_renew.h"
#include "wh_replay_settle.h"
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct wh_replay_open {
    wh_replay_open *prev, *next;
    wh_replay_store *st;
    apr_interval_time_t lease;
    char id[WH_REPLAY_NET_ID_MAX + 1];
    char holder[WH_REPLAY_HOLDER_MAX + 1];
};

struct wh_replay_renewer {
    apr_pool_t *pool;
    apr_thread_mutex_t *mu;
    apr_thread_cond_t *wake;
    apr_thread_t *thread;
    apr_interval_time_t period;
    wh_logger log;
    wh_replay_open *open, *spare;
    unsigned n_open, passes;
    int stopping;
    int poked;                          /* settle now, whatever is due */
    wh_replay_settle *settle;           /* NULL: nothing to settle */
};

static void free_list(wh_replay_open *o)
{
    while (o) {
        wh_replay_open *next = o->next;
        free(o);
        o = next;
    }
}

/* A pre-cleanup, run before the pool's subpools (the thread's own among
 * them) go: stops the thread, which finishes the pass under way. */
static apr_status_t renewer_stop(void *data)
{
    wh_replay_renewer *rn = data;
    apr_status_t ignored;

    if (rn->thread) {
        apr_thread_mutex_lock(rn->mu);
        rn->stopping = 1;
        apr_thread_cond_signal(rn->wake);
        apr_thread_mutex_unlock(rn->mu);
        apr_thread_join(&ignored, rn->thread);
        rn->thread = NULL;
    }
    return APR_SUCCESS;
}

static apr_status_t renewer_cleanup(void *data)
{
    wh_replay_renewer *rn = data;

    free_list(rn->open);
    free_list(rn->spare);
    rn->open = rn->spare = NULL;
    return APR_SUCCESS;
}

const char *wh_replay_renewer_create(apr_pool_t *p, const wh_logger *log,
                                     wh_replay_renewer **out)
{
    wh_replay_renewer *rn = apr_pcalloc(p, sizeof(*rn));

    *out = NULL;
    if (apr_thread_mutex_create(&rn->mu, APR_THREAD_MUTEX_DEFAULT, p)
            != APR_SUCCESS
        || apr_thread_cond_create(&rn->wake, p) != APR_SUCCESS)
        return "cannot create the renewer's lock";
    rn->pool = p;
    if (log)
        rn->log = *log;
    apr_pool_pre_cleanup_register(p, rn, renewer_stop);
    apr_pool_cleanup_register(p, rn, renewer_cleanup, apr_pool_cleanup_null);
    *out = rn;
    return NULL;
}

wh_replay_open *wh_replay_renewer_add(wh_replay_renewer *rn,
                                      wh_replay_store *st, const char *id,
                                      const char *holder,
                                      apr_interval_time_t lease)
{
    apr_size_t il = id ? strlen(id) : 0, hl = holder ? strlen(holder) : 0;
    wh_replay_open *o;

    if (!rn || !st || il == 0 || il > WH_REPLAY_NET_ID_MAX || hl == 0
        || hl > WH_REPLAY_HOLDER_MAX || lease <= 0)
        return NULL;
    apr_thread_mutex_lock(rn->mu);
    if ((o = rn->spare) != NULL)
        rn->spare = o->next;
    apr_thread_mutex_unlock(rn->mu);
    if (o == NULL && (o = malloc(sizeof(*o))) == NULL)
        return NULL;
    o->st = st;
    o->lease = lease;
    memcpy(o->id, id, il + 1);
    memcpy(o->holder, holder, hl + 1);
    o->prev = NULL;
    apr_thread_mutex_lock(rn->mu);
    o->next = rn->open;
    if (rn->open)
        rn->open->prev = o;
    rn->open = o;
    rn->n_open++;
    apr_thread_mutex_unlock(rn->mu);
    return o;
}

void wh_replay_renewer_remove(wh_replay_renewer *rn, wh_replay_open *o)
{
    if (!rn || !o)
        return;
    apr_thread_mutex_lock(rn->mu);
    if (o->prev)
        o->prev->next = o->next;
    else
        rn->open = o->next;
    if (o->next)
        o->next->prev = o->prev;
    rn->n_open--;
    o->prev = NULL;
    o->next = rn->spare;
    rn->spare = o;
    apr_thread_mutex_unlock(rn->mu);
}

/* What a pass renews: a copy of each open claim, taken under the lock. */
typedef struct {
    wh_replay_store *st;
    apr_interval_time_t lease;
    const char *id, *holder;
} claim_copy;

int wh_replay_renewer_pass(wh_replay_renewer *rn, int *lost, int *failed)
{
    apr_pool_t *p;
    claim_copy *c;
    unsigned n = 0, i;
    int renewed = 0, gone = 0, bad = 0;

    if (lost)
        *lost = 0;
    if (failed)
        *failed = 0;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS)
        return 0;
    apr_thread_mutex_lock(rn->mu);
    c = apr_palloc(p, sizeof(*c) * (rn->n_open ? rn->n_open : 1));
    for (wh_replay_open *o = rn->open; o && n < rn->n_open; o = o->next) {
        c[n].st = o->st;
        c[n].lease = o->lease;
        c[n].id = apr_pstrdup(p, o->id);
        c[n].holder = apr_pstrdup(p, o->holder);
        n++;
    }
    apr_thread_mutex_unlock(rn->mu);

    for (i = 0; i < n; i++) {
        const char *err = NULL;
        int rv = c[i].st->ops->renew
                 ? c[i].st->ops->renew(c[i].st, p, c[i].id, c[i].holder,
                                       c[i].lease, &err)
                 : 1;
        if (rv > 0) {
            renewed++;
            continue;
        }
        /* 0: confirmed or forgotten since the copy was taken (nothing to
         * say), or lapsed and taken over (the log says so): the claim is
         * no longer this delivery's. */
        if (rv == 0) {
            int open = 0;
            apr_thread_mutex_lock(rn->mu);
            for (wh_replay_open *o = rn->open; o && !open; o = o->next)
                open = o->st == c[i].st && strcmp(o->id, c[i].id) == 0
                       && strcmp(o->holder, c[i].holder) == 0;
            apr_thread_mutex_unlock(rn->mu);
            if (open) {
                gone++;
                wh_logf(&rn->log, WH_LOG_WARN, "replay store %s: the claim on "
                        "notificationId=%s lapsed while its delivery still "
                        "ran (the store was unreachable for a lease, or "
                        "lost it): a copy may be delivered again",
                        c[i].st->ops->provider, c[i].id);
            }
            continue;
        }
        bad++;
        wh_logf(&rn->log, WH_LOG_WARN, "replay store %s: cannot renew the "
                "claim on notificationId=%s (%s); tried again in a third of "
                "its lease", c[i].st->ops->provider, c[i].id,
                err ? err : "-");
    }
    apr_pool_destroy(p);
    if (lost)
        *lost = gone;
    if (failed)
        *failed = bad;
    return renewed;
}

static void *APR_THREAD_FUNC renew_thread(apr_thread_t *t, void *data)
{
    wh_replay_renewer *rn = data;
    apr_time_t renew_at = apr_time_now() + rn->period;

    apr_thread_mutex_lock(rn->mu);
    while (!rn->stopping) {
        apr_time_t now = apr_time_now();
        /* owed outcomes are settled when due, between renewal passes */
        apr_time_t settle_at = wh_replay_settle_due(rn->settle);
        apr_time_t until = settle_at && settle_at < renew_at ? settle_at : renew_at;
        int settle;

        /* spurious wakes: wait out the rest */
        if (until > now && !rn->poked) {
            apr_thread_cond_timedwait(rn->wake, rn->mu, until - now);
            continue;
        }
        settle = rn->poked || (settle_at && settle_at <= now);
        rn->poked = 0;
        apr_thread_mutex_unlock(rn->mu);
        if (settle)
            (void)wh_replay_settle_pass(rn->settle, now, NULL);
        if (renew_at <= now) {
            (void)wh_replay_renewer_pass(rn, NULL, NULL);
            renew_at = apr_time_now() + rn->period;
            apr_thread_mutex_lock(rn->mu);
            rn->passes++;
        }
        else
            apr_thread_mutex_lock(rn->mu);
    }
    apr_thread_mutex_unlock(rn->mu);
    /* returns rather than apr_thread_exit(): the thread's pool goes with
     * the renewer's, and no pthread_exit unwinds this stack */
    (void)t;
    return NULL;
}

const char *wh_replay_renewer_start(wh_replay_renewer *rn,
                                    apr_interval_time_t period)
{
    apr_threadattr_t *attr = NULL;
    apr_pool_t *p = rn->pool;
    sigset_t all, old;
    apr_status_t rv = APR_EGENERAL;

    if (rn->thread)
        return NULL;
    rn->period = period > 0 ? period : 1;
    /* The thread is born with every signal blocked (it inherits its
     * creator's mask): a signal meant for the process (a prefork child's
     * SIGTERM, whose handler exits and tears the pool down, joining this
     * very thread) must reach the thread that handles it. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (apr_threadattr_create(&attr, p) == APR_SUCCESS)
        rv = apr_thread_create(&rn->thread, attr, renew_thread, rn, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rv != APR_SUCCESS) {
        rn->thread = NULL;
        return "cannot start the claims' renewal thread";
    }
    return NULL;
}

void wh_replay_renewer_settle(wh_replay_renewer *rn, wh_replay_settle *s)
{
    apr_thread_mutex_lock(rn->mu);
    rn->settle = s;
    apr_thread_mutex_unlock(rn->mu);
}

void wh_replay_renewer_poke(wh_replay_renewer *rn)
{
    if (!rn)
        return;
    apr_thread_mutex_lock(rn->mu);
    rn->poked = 1;
    apr_thread_cond_signal(rn->wake);
    apr_thread_mutex_unlock(rn->mu);
}

unsigned wh_replay_renewer_open_count(wh_replay_renewer *rn)
{
    unsigned n;
    apr_thread_mutex_lock(rn->mu);
    n = rn->n_open;
    apr_thread_mutex_unlock(rn->mu);
    return n;
}

unsigned wh_replay_renewer_passes(wh_replay_renewer *rn)
{
    unsigned n;
    apr_thread_mutex_lock(rn->mu);
    n = rn->passes;
    apr_thread_mutex_unlock(rn->mu);
    return n;
}
