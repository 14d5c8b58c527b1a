/* Claims nobody holds, settled once their store answers (see
 * wh_replay_settle.h). Entries are fixed-size (id and holder copied in),
 * allocated as they are needed and recycled through a free list, at most
 * max of them. */
#include "wh_replay_settle.h"
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry entry;
struct entry {
    entry *next;
    wh_replay_store *st;
    wh_settle_kind kind;
    apr_int64_t window_sec;
    apr_time_t due;          /* not tried before */
    apr_time_t nothing_at;   /* a release found nothing then (0: not yet) */
    int waiting;             /* tried, and the store did not answer */
    int busy;                /* being tried: only the one trying it changes it */
    char id[WH_REPLAY_NET_ID_MAX + 1];
    char holder[WH_REPLAY_HOLDER_MAX + 1];
};

struct wh_replay_settle {
    apr_thread_mutex_t *mu;
    wh_logger log;
    unsigned max;
    volatile unsigned n;     /* entries owed (read unlocked by _pending) */
    unsigned allocated;
    entry *owed, *spare;
};

static void free_list(entry *e)
{
    while (e) {
        entry *next = e->next;
        free(e);
        e = next;
    }
}

static apr_status_t settle_cleanup(void *data)
{
    wh_replay_settle *s = data;
    free_list(s->owed);
    free_list(s->spare);
    s->owed = s->spare = NULL;
    return APR_SUCCESS;
}

const char *wh_replay_settle_create(apr_pool_t *p, unsigned max,
                                    const wh_logger *log,
                                    wh_replay_settle **out)
{
    wh_replay_settle *s = apr_pcalloc(p, sizeof(*s));

    *out = NULL;
    if (apr_thread_mutex_create(&s->mu, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS)
        return "cannot create the settle list's lock";
    s->max = max ? max : WH_REPLAY_SETTLE_MAX;
    if (log)
        s->log = *log;
    apr_pool_cleanup_register(p, s, settle_cleanup, apr_pool_cleanup_null);
    *out = s;
    return NULL;
}

int wh_replay_settle_add(wh_replay_settle *s, wh_replay_store *st,
                         wh_settle_kind kind, const char *id,
                         const char *holder, apr_int64_t window_sec,
                         apr_time_t now)
{
    apr_size_t il = id ? strlen(id) : 0, hl = holder ? strlen(holder) : 0;
    entry *e;
    unsigned n;

    if (!s || !st || il == 0 || il > WH_REPLAY_NET_ID_MAX || hl == 0
        || hl > WH_REPLAY_HOLDER_MAX)
        return -1;
    apr_thread_mutex_lock(s->mu);
    for (e = s->owed; e; e = e->next)
        if (e->st == st && e->kind == kind && strcmp(e->id, id) == 0
            && strcmp(e->holder, holder) == 0) {
            apr_thread_mutex_unlock(s->mu);
            return 0;
        }
    n = s->n;
    if (n >= s->max)
        e = NULL;
    else if ((e = s->spare) != NULL)
        s->spare = e->next;
    else if ((e = malloc(sizeof(*e))) != NULL)
        s->allocated++;
    if (e) {
        memset(e, 0, sizeof(*e));
        e->st = st;
        e->kind = kind;
        e->window_sec = window_sec;
        e->due = now + WH_REPLAY_SETTLE_RETRY;
        memcpy(e->id, id, il + 1);
        memcpy(e->holder, holder, hl + 1);
        e->next = s->owed;
        s->owed = e;
        s->n = n + 1;
    }
    apr_thread_mutex_unlock(s->mu);
    if (e == NULL && n >= s->max)
        wh_logf(&s->log, WH_LOG_WARN, "replay store %s: cannot remember to %s "
                "the claim on notificationId=%s (%u owed already): it lapses "
                "after its lease", st->ops->provider,
                kind == WH_SETTLE_RELEASE ? "release" : "confirm", id, n);
    return e ? 0 : -1;
}

/* One try of e (busy, so the caller's alone): 2 done (a claim removed or
 * confirmed), 1 done (nothing was there), 0 tried again later, -1 the
 * store did not answer. */
static int try_entry(wh_replay_settle *s, entry *e, apr_pool_t *p,
                     apr_time_t now, wh_settle_counts *c)
{
    const char *err = NULL;
    int rv;

    if (e->kind == WH_SETTLE_CONFIRM) {
        if (e->st->ops->confirm(e->st, p, e->id, e->holder, e->window_sec, &err) < 0)
            rv = -1;
        else {
            c->confirmed++;
            wh_logf(&s->log, WH_LOG_INFO, "replay store %s: notificationId=%s "
                    "recorded as delivered (its delivery's end could not be "
                    "recorded when it ended)", e->st->ops->provider, e->id);
            return 2;
        }
    }
    else
        rv = e->st->ops->forget(e->st, p, e->id, e->holder, &err);
    if (rv < 0) {
        c->failed++;
        return -1;
    }
    if (rv > 0) {
        c->released++;
        wh_logf(&s->log, WH_LOG_INFO, "replay store %s: released the claim on "
                "notificationId=%s, which nobody held (its answer never came, "
                "or its delivery's end could not be recorded): a copy is "
                "delivered", e->st->ops->provider, e->id);
        return 2;
    }
    /* nothing of the holder's: done once the store has run for QUIET
     * since it first said so */
    if (e->nothing_at != 0 && now >= e->nothing_at + WH_REPLAY_SETTLE_QUIET) {
        c->nothing++;
        return 1;
    }
    if (e->nothing_at == 0)
        e->nothing_at = now;
    return 0;
}

/* After a try (under the lock): e done goes, else it waits for its next. */
static void after_try(wh_replay_settle *s, entry *e, int rv, apr_time_t now)
{
    e->busy = 0;
    if (rv > 0) {
        entry **pp = &s->owed;
        while (*pp && *pp != e)
            pp = &(*pp)->next;
        if (*pp) {
            *pp = e->next;
            e->next = s->spare;
            s->spare = e;
            s->n--;
        }
        return;
    }
    e->waiting = rv < 0;
    if (rv < 0) {
        e->nothing_at = 0;
        e->due = now + WH_REPLAY_SETTLE_RETRY;
    }
    else
        e->due = e->nothing_at + WH_REPLAY_SETTLE_QUIET;
}

/* Entries picked under the lock (marked busy), tried outside it. */
typedef struct {
    entry **e;
    unsigned n;
} picked;

/* Picks (busy) the entries that match: st NULL any store; id NULL any
 * id, and then only those due by now; kind_release: releases only. */
static void pick(wh_replay_settle *s, apr_pool_t *p, wh_replay_store *st,
                 const char *id, apr_time_t now, picked *out)
{
    unsigned cap;

    apr_thread_mutex_lock(s->mu);
    cap = s->n ? s->n : 1;
    out->e = apr_palloc(p, sizeof(*out->e) * cap);
    out->n = 0;
    for (entry *e = s->owed; e && out->n < cap; e = e->next) {
        if (e->busy || (st && e->st != st))
            continue;
        if (id ? (e->kind != WH_SETTLE_RELEASE || strcmp(e->id, id) != 0)
               : e->due > now)
            continue;
        e->busy = 1;
        out->e[out->n++] = e;
    }
    apr_thread_mutex_unlock(s->mu);
}

/* Whether st is among the n stores of list. */
static int listed(wh_replay_store **list, int n, const wh_replay_store *st)
{
    for (int k = 0; k < n; k++)
        if (list[k] == st)
            return 1;
    return 0;
}

/* Tries what was picked; after a store failed to answer, its other
 * entries are put back untried. probe: each store is first asked whether
 * it answers (why: wh_replay_settle.h). Entries done. */
static int run_picked(wh_replay_settle *s, apr_pool_t *p, picked *pk,
                      apr_time_t now, int probe, wh_settle_counts *c,
                      int *released)
{
    apr_size_t cap = sizeof(wh_replay_store *) * (pk->n ? pk->n : 1);
    wh_replay_store **down = apr_pcalloc(p, cap), **up = apr_pcalloc(p, cap);
    int ndown = 0, nup = 0, done = 0;

    for (unsigned i = 0; i < pk->n; i++) {
        entry *e = pk->e[i];
        int rv;

        if (listed(down, ndown, e->st)) {
            apr_thread_mutex_lock(s->mu);
            e->busy = 0;
            apr_thread_mutex_unlock(s->mu);
            continue;
        }
        if (probe && !listed(up, nup, e->st)) {
            const char *err = NULL;
            if (e->st->ops->health && e->st->ops->health(e->st, p, &err) < 0) {
                c->failed++;
                down[ndown++] = e->st;
                apr_thread_mutex_lock(s->mu);
                after_try(s, e, -1, now);
                apr_thread_mutex_unlock(s->mu);
                continue;
            }
            up[nup++] = e->st;
        }
        rv = try_entry(s, e, p, now, c);
        if (rv < 0)
            down[ndown++] = e->st;
        if (rv > 0)
            done++;
        if (rv == 2 && e->kind == WH_SETTLE_RELEASE && released)
            *released = 1;
        apr_thread_mutex_lock(s->mu);
        after_try(s, e, rv, now);
        apr_thread_mutex_unlock(s->mu);
    }
    /* a store that did not answer may have stalled since it last said
     * "nothing": every entry of it waits, and counts anew */
    if (ndown > 0) {
        apr_thread_mutex_lock(s->mu);
        for (entry *e = s->owed; e; e = e->next)
            if (!e->busy && listed(down, ndown, e->st))
                after_try(s, e, -1, now);
        apr_thread_mutex_unlock(s->mu);
    }
    return done;
}

int wh_replay_settle_pass(wh_replay_settle *s, apr_time_t now,
                          wh_settle_counts *c)
{
    wh_settle_counts mine = { 0, 0, 0, 0 };
    apr_pool_t *p;
    picked pk;
    int done;

    if (c == NULL)
        c = &mine;
    memset(c, 0, sizeof(*c));
    if (s == NULL || s->n == 0 || apr_pool_create(&p, NULL) != APR_SUCCESS)
        return 0;
    pick(s, p, NULL, NULL, now, &pk);
    done = run_picked(s, p, &pk, now, 1, c, NULL);
    apr_pool_destroy(p);
    return done;
}

int wh_replay_settle_id(wh_replay_settle *s, wh_replay_store *st,
                        const char *id, apr_time_t now)
{
    wh_settle_counts c = { 0, 0, 0, 0 };
    apr_pool_t *p;
    picked pk;
    int released = 0;

    if (s == NULL || s->n == 0 || id == NULL
        || apr_pool_create(&p, NULL) != APR_SUCCESS)
        return 0;
    pick(s, p, st, id, now, &pk);
    /* the store has just answered the copy's claim: no need to ask */
    (void)run_picked(s, p, &pk, now, 0, &c, &released);
    apr_pool_destroy(p);
    return released;
}

wh_claim_result wh_replay_settle_claim(wh_replay_settle *s, wh_replay_store *st,
                                       apr_pool_t *p, wh_replay_holders *h,
                                       wh_claim *c, wh_claim_info *info,
                                       int *wake)
{
    wh_claim_result res;

    *wake = 0;
    memset(info, 0, sizeof(*info));
    res = st->ops->claim(st, p, c, info);
    if (s == NULL || c->holder == NULL)
        return res;
    if (info->lost)
        *wake = wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, c->id, c->holder,
                                     0, apr_time_now()) == 0;
    else if (res != WH_CLAIM_ERROR)
        *wake = wh_replay_settle_answered(s, st);
    if (res != WH_CLAIM_IN_PROGRESS
        || !wh_replay_settle_id(s, st, c->id, apr_time_now()))
        return res;
    /* the id was held by a claim nobody held: claim it afresh */
    c->holder = wh_replay_holder_next(p, h);
    memset(info, 0, sizeof(*info));
    res = st->ops->claim(st, p, c, info);
    if (info->lost)
        *wake |= wh_replay_settle_add(s, st, WH_SETTLE_RELEASE, c->id, c->holder,
                                      0, apr_time_now()) == 0;
    return res;
}

int wh_replay_settle_answered(wh_replay_settle *s, wh_replay_store *st)
{
    int any = 0;

    if (s == NULL || s->n == 0)
        return 0;
    apr_thread_mutex_lock(s->mu);
    for (entry *e = s->owed; e; e = e->next)
        if (e->st == st && e->waiting && !e->busy) {
            e->waiting = 0;
            e->due = 0;
            any = 1;
        }
    apr_thread_mutex_unlock(s->mu);
    return any;
}

apr_time_t wh_replay_settle_due(wh_replay_settle *s)
{
    apr_time_t due = 0;

    if (s == NULL || s->n == 0)
        return 0;
    apr_thread_mutex_lock(s->mu);
    for (entry *e = s->owed; e; e = e->next)
        if (!e->busy && (due == 0 || e->due < due))
            due = e->due ? e->due : 1;
    apr_thread_mutex_unlock(s->mu);
    return due;
}

unsigned wh_replay_settle_pending(const wh_replay_settle *s)
{
    return s ? s->n : 0;
}
