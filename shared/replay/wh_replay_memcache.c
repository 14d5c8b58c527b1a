/* ReplayCache memcache (see wh_replay_memcache.h). */
#include "wh_replay_memcache.h"
#include "wh_replay.h"
#include "wh_replay_pool.h"
#include <apr_strings.h>
#include <libmemcached/memcached.h>
#include <stdlib.h>
#include <string.h>

/* What a forgotten claim leaves behind until it expires (see the header). */
#define WH_MC_TOMBSTONE "0"

typedef struct {
    char *host;
    int port;
    apr_interval_time_t timeout;
    wh_replay_pool *conns;
    const char *marker_key;
} mc_store;

typedef struct {
    wh_replay_conn base;     /* first: the pool reads it */
    memcached_st *mc;
    int persisted;          /* the marker's expiry removed (once) */
} mc_conn;

/* ---- connections ----------------------------------------------------- */

static apr_status_t conn_open(void *params, void **res, char *why,
                              apr_size_t why_len)
{
    mc_store *ms = params;
    mc_conn *c;
    uint64_t to_ms = (uint64_t)apr_time_as_msec(ms->timeout);
    memcached_return_t rc;

    *res = NULL;
    if ((c = calloc(1, sizeof(*c))) == NULL)
        return APR_ENOMEM;
    if ((c->mc = memcached_create(NULL)) == NULL) {
        free(c);
        return APR_ENOMEM;
    }
    if (memcached_server_add(c->mc, ms->host, (in_port_t)ms->port)
            != MEMCACHED_SUCCESS
        || memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_SUPPORT_CAS, 1)
               != MEMCACHED_SUCCESS) {
        memcached_free(c->mc);
        free(c);
        return APR_EINVAL;
    }
    memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, to_ms);
    memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, to_ms);
    memcached_behavior_set(c->mc, MEMCACHED_BEHAVIOR_TCP_NODELAY, 1);
    /* libmemcached connects at the first command: one now, so that a
     * server that is down is found here and the pool backs off */
    if ((rc = memcached_version(c->mc)) != MEMCACHED_SUCCESS) {
        apr_cpystrn(why, memcached_strerror(c->mc, rc), why_len);
        memcached_free(c->mc);
        free(c);
        return APR_ECONNREFUSED;
    }
    *res = c;
    return APR_SUCCESS;
}

static void conn_close(void *params, void *res)
{
    mc_conn *c = res;
    (void)params;
    if (c->mc)
        memcached_free(c->mc);
    free(c);
}

/* hiredis and libmemcached time out by themselves: no socket to watch */
static const wh_replay_pool_ops conn_ops = { conn_open, conn_close, NULL };

/* The answers that are memcached's word on a key; anything else is the
 * connection failing (the connection is then closed, *err set). */
static int answered(mc_conn *c, apr_pool_t *p, memcached_return_t rc,
                    const char **err)
{
    switch (rc) {
    case MEMCACHED_SUCCESS:
    case MEMCACHED_STORED:
    case MEMCACHED_NOTSTORED:
    case MEMCACHED_DATA_EXISTS:
    case MEMCACHED_NOTFOUND:
    case MEMCACHED_END:
    case MEMCACHED_DELETED:
        return 1;
    default:
        *err = apr_pstrcat(p, "memcached: ", memcached_strerror(c->mc, rc), NULL);
        c->base.broken = 1;
        return 0;
    }
}

static time_t seconds(apr_interval_time_t t)
{
    apr_int64_t s = (t + APR_USEC_PER_SEC - 1) / APR_USEC_PER_SEC;
    return (time_t)(s > 0 ? s : 1);
}

/* ---- reads ----------------------------------------------------------- */

typedef struct {
    int found;
    char value[WH_REPLAY_NET_VALUE_MAX];
    apr_size_t len;
    uint64_t cas;
} mc_item;

/* One multi-get of n keys (their values and cas). 0, or -1 with *err. */
static int get_many(mc_conn *c, apr_pool_t *p, const char **keys, int n,
                    mc_item *out, const char **err)
{
    size_t lens[2];
    memcached_return_t rc;
    memcached_result_st res, *r;

    for (int i = 0; i < n; i++) {
        lens[i] = strlen(keys[i]);
        out[i].found = 0;
    }
    rc = memcached_mget(c->mc, keys, lens, (size_t)n);
    if (!answered(c, p, rc, err))
        return -1;
    if (memcached_result_create(c->mc, &res) == NULL) {
        *err = "memcached: out of memory";
        return -1;
    }
    while ((r = memcached_fetch_result(c->mc, &res, &rc)) != NULL) {
        const char *k = memcached_result_key_value(r);
        size_t kl = memcached_result_key_length(r), vl = memcached_result_length(r);
        for (int i = 0; i < n; i++)
            if (kl == lens[i] && memcmp(k, keys[i], kl) == 0
                && vl < sizeof(out[i].value)) {
                out[i].found = 1;
                memcpy(out[i].value, memcached_result_value(r), vl);
                out[i].value[vl] = '\0';
                out[i].len = vl;
                out[i].cas = memcached_result_cas(r);
            }
    }
    memcached_result_free(&res);
    /* the end of the results, or a failure partway */
    return answered(c, p, rc, err) ? 0 : -1;
}

/* ---- the operations -------------------------------------------------- */

/* The epoch marker as read (m): 0 with *since; or a store without one (or
 * with one wirehook did not write), emptied behind our back: a marker
 * saying "from now" is written, 1 (read it back next), -1 failed. */
static int take_marker(mc_store *ms, mc_conn *c, apr_pool_t *p,
                       const mc_item *m, apr_time_t *since, const char **err)
{
    apr_time_t set;
    const char *v;
    memcached_return_t rc;

    if (m->found && wh_replay_marker_decode(m->value, m->len, since, &set) == 0) {
        if (!c->persisted) {
            /* markers written through mod_socache_memcache expire */
            rc = memcached_touch(c->mc, ms->marker_key, strlen(ms->marker_key), 0);
            if (!answered(c, p, rc, err))
                return -1;
            c->persisted = 1;
        }
        return 0;
    }
    *since = apr_time_now();
    v = wh_replay_marker_encode(p, *since, *since);
    rc = m->found ? memcached_set(c->mc, ms->marker_key, strlen(ms->marker_key),
                                  v, strlen(v), 0, 0)
                  : memcached_add(c->mc, ms->marker_key, strlen(ms->marker_key),
                                  v, strlen(v), 0, 0);
    if (!answered(c, p, rc, err))
        return -1;
    return rc == MEMCACHED_SUCCESS || rc == MEMCACHED_STORED;
}

/* The claim on one connection (a claim the lost reply of an earlier try
 * had made reads as this holder's own). */
static wh_claim_result claim_on(void *conn, apr_pool_t *p, void *baton,
                                const wh_claim *cl, wh_claim_info *info)
{
    mc_store *ms = baton;
    mc_conn *c = conn;
    const char *key = wh_replay_net_key(p, cl->id);
    const char *keys[2] = { key, ms->marker_key };
    const char *val = wh_replay_net_claim_value(p, cl->holder);
    mc_item it[2];

    for (int round = 0; round < 4; round++) {
        apr_time_t since = 0;
        memcached_return_t rc;
        int mine, wrote;
        wh_net_state s;

        if (get_many(c, p, keys, 2, it, &info->err) != 0)
            return WH_CLAIM_ERROR;
        s = it[0].found ? wh_replay_net_state(it[0].value, it[0].len, cl->holder, &mine)
                        : WH_NET_FREE;
        if (it[0].found && mine)
            return WH_CLAIM_FIRST;       /* a lost reply's own claim */
        if (s != WH_NET_FREE)
            return wh_replay_net_held(s);
        if ((wrote = take_marker(ms, c, p, &it[1], &since, &info->err)) < 0)
            return WH_CLAIM_ERROR;
        if (wrote > 0)
            info->emptied = 1;
        if (wrote || !it[1].found)
            continue;                    /* read the marker back */
        if (wh_replay_predates(cl->signed_at, since, cl->tolerance_sec)) {
            info->since = since;
            return WH_CLAIM_PREDATES;
        }
        rc = it[0].found
             ? memcached_cas(c->mc, key, strlen(key), val, strlen(val),
                             seconds(cl->lease), 0, it[0].cas)
             : memcached_add(c->mc, key, strlen(key), val, strlen(val),
                             seconds(cl->lease), 0);
        if (!answered(c, p, rc, &info->err))
            return WH_CLAIM_ERROR;
        if (rc == MEMCACHED_SUCCESS || rc == MEMCACHED_STORED)
            return WH_CLAIM_FIRST;
        /* another copy came first: look again */
    }
    info->err = "memcached: the id or the epoch marker kept changing";
    return WH_CLAIM_ERROR;
}

static wh_claim_result mc_claim(wh_replay_store *st, apr_pool_t *p,
                                const wh_claim *cl, wh_claim_info *info)
{
    mc_store *ms = st->impl;
    return wh_replay_pool_claim(ms->conns, p, claim_on, ms, cl, info);
}

/* fn on one of the store's connections (see wh_replay_pool.h). */
static int on_conn(wh_replay_store *st, apr_pool_t *p, wh_replay_pool_fn fn,
                   void *baton, const char **err)
{
    mc_store *ms = st->impl;
    return wh_replay_pool_run(ms->conns, p, fn, baton, err);
}

typedef struct {
    const char *id, *holder;
    apr_interval_time_t ttl;
    int renew;                   /* 1 renew, 0 forget */
} mc_args;

static int confirm_fn(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    mc_conn *c = conn;
    mc_args *a = baton;
    const char *key = wh_replay_net_key(p, a->id);
    memcached_return_t rc = memcached_set(c->mc, key, strlen(key),
                                          WH_REPLAY_NET_CONFIRMED, 1,
                                          seconds(a->ttl), 0);
    if (!answered(c, p, rc, err))
        return -1;
    if (rc != MEMCACHED_SUCCESS && rc != MEMCACHED_STORED) {
        *err = apr_pstrcat(p, "memcached: ", memcached_strerror(c->mc, rc), NULL);
        return -1;
    }
    return 0;
}

/* Renew (the same claim, a new expiry) or forget (a tombstone) the claim,
 * only while it is still a->holder's: gets, then cas on what was read. */
static int compare_fn(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    mc_conn *c = conn;
    mc_args *a = baton;
    const char *key = wh_replay_net_key(p, a->id);
    const char *keys[1] = { key };
    mc_item it;

    for (int round = 0; round < 3; round++) {
        memcached_return_t rc;
        int mine = 0;

        if (get_many(c, p, keys, 1, &it, err) != 0)
            return -1;
        if (!it.found
            || wh_replay_net_state(it.value, it.len, a->holder, &mine) != WH_NET_CLAIMED
            || !mine)
            return 0;
        rc = a->renew ? memcached_cas(c->mc, key, strlen(key), it.value, it.len,
                                      seconds(a->ttl), 0, it.cas)
                      : memcached_cas(c->mc, key, strlen(key), WH_MC_TOMBSTONE,
                                      1, 1, 0, it.cas);
        if (!answered(c, p, rc, err))
            return -1;
        if (rc == MEMCACHED_SUCCESS || rc == MEMCACHED_STORED)
            return 1;
        /* changed since the read (DATA_EXISTS) or gone: read again */
    }
    return 0;
}

static int mc_confirm(wh_replay_store *st, apr_pool_t *p, const char *id,
                      const char *holder, apr_int64_t window_sec,
                      const char **err)
{
    mc_args a = { id, holder, apr_time_from_sec(window_sec), 0 };
    return on_conn(st, p, confirm_fn, &a, err);
}

static int mc_forget(wh_replay_store *st, apr_pool_t *p, const char *id,
                     const char *holder, const char **err)
{
    mc_args a = { id, holder, 0, 0 };
    return on_conn(st, p, compare_fn, &a, err);
}

static int mc_renew(wh_replay_store *st, apr_pool_t *p, const char *id,
                    const char *holder, apr_interval_time_t lease,
                    const char **err)
{
    mc_args a = { id, holder, lease, 1 };
    return on_conn(st, p, compare_fn, &a, err);
}

static int health_fn(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    mc_store *ms = baton;
    const char *keys[1] = { ms->marker_key };
    mc_item it;
    return get_many(conn, p, keys, 1, &it, err);
}

static int mc_health(wh_replay_store *st, apr_pool_t *p, const char **err)
{
    return on_conn(st, p, health_fn, st->impl, err);
}

typedef struct {
    mc_store *ms;
    apr_time_t since;
} mc_init_args;

static int init_fn(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    mc_init_args *a = baton;
    mc_store *ms = a->ms;
    mc_conn *c = conn;
    apr_time_t *since = &a->since, set;
    const char *keys[1] = { ms->marker_key };
    const char *v = wh_replay_marker_encode(p, 0, apr_time_now());
    memcached_return_t rc = memcached_add(c->mc, ms->marker_key,
                                          strlen(ms->marker_key), v, strlen(v),
                                          0, 0);
    mc_item it;

    *since = 0;
    if (!answered(c, p, rc, err))
        return -1;
    if (rc == MEMCACHED_SUCCESS || rc == MEMCACHED_STORED)
        return 1;
    if (get_many(c, p, keys, 1, &it, err) != 0)
        return -1;
    if (!it.found || wh_replay_marker_decode(it.value, it.len, since, &set) != 0) {
        *err = "memcached: the epoch marker's key holds something wirehook did not write";
        return -1;
    }
    return 0;
}

static int mc_init(wh_replay_store *st, apr_pool_t *p, apr_time_t *since,
                   const char **err)
{
    mc_init_args a = { st->impl, 0 };
    int rv = on_conn(st, p, init_fn, &a, err);

    *since = a.since;
    return rv;
}

static const wh_replay_store_ops mc_ops = {
    "memcache", mc_claim, mc_confirm, mc_forget, mc_renew, NULL, mc_health,
    mc_init
};

const char *wh_replay_memcache_open(apr_pool_t *p, const char *host, int port,
                                    int max_conns, apr_interval_time_t timeout,
                                    wh_replay_store **out)
{
    mc_store *ms = apr_pcalloc(p, sizeof(*ms));
    wh_replay_store *st = apr_pcalloc(p, sizeof(*st));
    const char *err;

    *out = NULL;
    ms->host = apr_pstrdup(p, host);
    ms->port = port;
    ms->timeout = timeout;
    ms->marker_key = wh_replay_net_key(p, WH_REPLAY_MARKER_KEY);
    err = wh_replay_pool_create(p, &conn_ops, ms,
                                apr_psprintf(p, "no connection to memcached at "
                                             "%s:%d", host, port),
                                max_conns, timeout, WH_REPLAY_POOL_RETRY,
                                &ms->conns);
    if (err)
        return apr_pstrcat(p, "memcache: ", err, NULL);
    st->ops = &mc_ops;
    st->impl = ms;
    *out = st;
    return NULL;
}
