/* ReplayCache redis (see wh_replay_redis.h). */
#include "wh_replay_redis.h"
#include "wh_replay.h"
#include "wh_replay_pool.h"
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <errno.h>
#include <hiredis/hiredis.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

enum { S_CLAIM, S_FORGET, S_RENEW, S_COUNT };

/* Each runs atomically in redis. KEYS[1] is the id's key.
 * claim: KEYS[2] the epoch marker; ARGV[1] the claim, ARGV[2] the lease
 *   (ms), ARGV[3] the marker the caller judged by ("": only look).
 *   'C': claimed; 'H' + the key's PTTL (ms; -1: none) + ' ' + value: held;
 *   'M' + marker ('M' alone: none): not claimed, judge by this marker.
 * forget: ARGV[1] the claim: deleted only if it is still this one.
 * renew: ARGV[1] the claim, ARGV[2] the lease (ms): extended only if it
 *   is still this one. */
static const char *const script_text[S_COUNT] = {
    "local function held(v)\n"
    "  return 'H' .. redis.call('PTTL', KEYS[1]) .. ' ' .. v\n"
    "end\n"
    "local v = redis.call('GET', KEYS[1])\n"
    "if v then return held(v) end\n"
    "local m = redis.call('GET', KEYS[2])\n"
    "if m and ARGV[3] ~= '' and m == ARGV[3] then\n"
    "  if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then\n"
    "    return 'C'\n"
    "  end\n"
    "  return held(redis.call('GET', KEYS[1]) or '')\n"
    "end\n"
    "return 'M' .. (m or '')\n",
    "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
    "  return redis.call('DEL', KEYS[1])\n"
    "end\n"
    "return 0\n",
    "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
    "  return redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "end\n"
    "return 0\n",
};

typedef struct {
    char *host;
    int port;
    struct timeval tv;
    wh_replay_pool *conns;
    const char *marker_key;
    char sha[S_COUNT][41];
    /* the epoch marker a connection of this process last read (a new
     * connection's first claim names it: see seed_marker) */
    apr_thread_mutex_t *mu;
    char marker[WH_REPLAY_NET_VALUE_MAX];
    apr_time_t since;
} redis_store;

typedef struct {
    wh_replay_conn base;     /* first: the pool reads it */
    redisContext *c;
    /* the epoch marker last read on this connection, and when the store's
     * memory began by it: a claim names it, and is made only while the
     * store still has it */
    char marker[WH_REPLAY_NET_VALUE_MAX];
    int has_marker;
    apr_time_t since;
    int persisted;           /* the marker's expiry removed (once) */
} redis_conn;

/* ---- connections ----------------------------------------------------- */

static apr_status_t conn_open(void *params, void **res, char *why,
                              apr_size_t why_len)
{
    redis_store *rs = params;
    redis_conn *rc;
    redisContext *c;
    (void)why;
    (void)why_len;                      /* the status says it all */

    *res = NULL;
    c = redisConnectWithTimeout(rs->host, rs->port, rs->tv);
    if (c == NULL)
        return APR_ENOMEM;
    if (c->err) {
        int e = c->err == REDIS_ERR_IO && errno ? errno : ECONNREFUSED;
        redisFree(c);
        return APR_FROM_OS_ERROR(e);
    }
    if (redisSetTimeout(c, rs->tv) != REDIS_OK
        || (rc = calloc(1, sizeof(*rc))) == NULL) {
        redisFree(c);
        return APR_ENOMEM;
    }
    rc->c = c;
    *res = rc;
    return APR_SUCCESS;
}

static void conn_close(void *params, void *res)
{
    redis_conn *rc = res;
    (void)params;
    if (rc->c)
        redisFree(rc->c);
    free(rc);
}

/* hiredis and libmemcached time out by themselves: no socket to watch */
static const wh_replay_pool_ops conn_ops = { conn_open, conn_close, NULL };

/* ---- commands -------------------------------------------------------- */

/* One command; NULL when the connection failed (*err set, the
 * connection marked for closing). */
static redisReply *command(redis_conn *rc, apr_pool_t *p, int argc,
                           const char **argv, const size_t *lens,
                           const char **err)
{
    redisReply *r = redisCommandArgv(rc->c, argc, argv, lens);
    if (r == NULL) {
        *err = apr_pstrcat(p, "redis: ", rc->c->errstr[0] ? rc->c->errstr
                                                          : "no reply", NULL);
        rc->base.broken = 1;
    }
    return r;
}

/* A reply's error text, or what it was instead of the one expected. */
static const char *unexpected(apr_pool_t *p, const redisReply *r)
{
    if (r->type == REDIS_REPLY_ERROR)
        return apr_psprintf(p, "redis: %.*s", (int)(r->len > 200 ? 200 : r->len),
                            r->str);
    return apr_psprintf(p, "redis: unexpected reply (type %d)", r->type);
}

/* A script by its SHA1, loaded with its text when redis does not have it
 * (a restarted redis, SCRIPT FLUSH). */
static redisReply *run_script(redis_store *rs, redis_conn *rc, apr_pool_t *p,
                              int which, const char *key, const char **args,
                              int nargs, const char **err)
{
    const char *argv[8];
    size_t lens[8];
    int n = 0;
    redisReply *r;

    argv[n++] = "EVALSHA";
    argv[n++] = rs->sha[which];
    argv[n++] = which == S_CLAIM ? "2" : "1";
    argv[n++] = key;
    if (which == S_CLAIM)
        argv[n++] = rs->marker_key;
    for (int i = 0; i < nargs; i++)
        argv[n++] = args[i];
    for (int i = 0; i < n; i++)
        lens[i] = strlen(argv[i]);
    r = command(rc, p, n, argv, lens, err);
    if (r && r->type == REDIS_REPLY_ERROR && r->len >= 8
        && memcmp(r->str, "NOSCRIPT", 8) == 0) {
        freeReplyObject(r);
        argv[0] = "EVAL";
        argv[1] = script_text[which];
        lens[0] = 4;
        lens[1] = strlen(argv[1]);
        r = command(rc, p, n, argv, lens, err);
    }
    return r;
}

static const char *ms(apr_pool_t *p, apr_interval_time_t t)
{
    apr_int64_t m = (t + 999) / 1000;
    return apr_psprintf(p, "%" APR_INT64_T_FMT, m > 0 ? m : 1);
}

/* SET key value [NX]: 1 set, 0 not (NX, key present), -1 failed. */
static int set_value(redis_conn *rc, apr_pool_t *p, const char *key,
                     const char *value, int nx, const char **err)
{
    const char *argv[4] = { "SET", key, value, "NX" };
    size_t lens[4] = { 3, strlen(key), strlen(value), 2 };
    redisReply *r = command(rc, p, nx ? 4 : 3, argv, lens, err);
    int rv;

    if (r == NULL)
        return -1;
    if (r->type == REDIS_REPLY_STATUS)
        rv = 1;
    else if (r->type == REDIS_REPLY_NIL)
        rv = 0;
    else {
        *err = unexpected(p, r);
        rv = -1;
    }
    freeReplyObject(r);
    return rv;
}

/* The marker the store answered with (m, len; len 0: none): remembered on
 * the connection. A store without one (or with one wirehook did not
 * write) was emptied behind our back: a marker saying "from now" is
 * written. 0, 1 when this connection wrote it, -1 failed. */
static int take_marker(redis_store *rs, redis_conn *rc, apr_pool_t *p,
                       const char *m, apr_size_t len, const char **err)
{
    apr_time_t since, set;
    int rv;

    if (len > 0 && len < sizeof(rc->marker)
        && wh_replay_marker_decode(m, len, &since, &set) == 0) {
        memcpy(rc->marker, m, len);
        rc->marker[len] = '\0';
        rc->has_marker = 1;
        rc->since = since;
        if (!rc->persisted) {
            /* markers written through mod_socache_redis expire: this one
             * must not while in use */
            const char *argv[2] = { "PERSIST", rs->marker_key };
            size_t lens[2] = { 7, strlen(rs->marker_key) };
            redisReply *r = command(rc, p, 2, argv, lens, err);
            if (r == NULL)
                return -1;
            freeReplyObject(r);
            rc->persisted = 1;
        }
        apr_thread_mutex_lock(rs->mu);
        memcpy(rs->marker, rc->marker, len + 1);
        rs->since = since;
        apr_thread_mutex_unlock(rs->mu);
        return 0;
    }
    since = apr_time_now();
    rc->has_marker = 0;
    /* NX when there was none: another server may be writing one now */
    rv = set_value(rc, p, rs->marker_key, wh_replay_marker_encode(p, since, since),
                   len == 0, err);
    return rv < 0 ? -1 : rv;
}

/* A connection that has read no marker yet starts from the one another
 * connection of this process read, so that its first claim is a claim
 * (one round trip, not a look to learn the marker and then the claim).
 * It matters most in a stall: a claim sent on a connection opened then
 * would otherwise be a mere look, never made, and whether a stall left
 * claims to release would depend on which connection each rode. The
 * script still claims only while the store has that very marker; when it
 * has another, the answer names it and the next round uses it. */
static void seed_marker(redis_store *rs, redis_conn *rc)
{
    apr_thread_mutex_lock(rs->mu);
    if (rs->marker[0] != '\0') {
        memcpy(rc->marker, rs->marker, sizeof(rc->marker));
        rc->since = rs->since;
        rc->has_marker = 1;
        /* its expiry was removed by the connection that read it */
        rc->persisted = 1;
    }
    apr_thread_mutex_unlock(rs->mu);
}

/* 'H' + PTTL + ' ' + value: the id is held. A claim says when it lapses
 * unless renewed (info->retry_in). Frees r. */
static wh_claim_result held(redisReply *r, apr_pool_t *p, const wh_claim *c,
                            wh_claim_info *info)
{
    const char *sp = memchr(r->str, ' ', r->len);
    apr_int64_t ttl_ms;
    wh_net_state s;
    int mine;

    if (sp == NULL) {
        info->err = unexpected(p, r);
        freeReplyObject(r);
        return WH_CLAIM_ERROR;
    }
    ttl_ms = apr_atoi64(r->str + 1);
    s = wh_replay_net_state(sp + 1, r->len - (apr_size_t)(sp + 1 - r->str),
                            c->holder, &mine);
    freeReplyObject(r);
    if (mine)
        return WH_CLAIM_FIRST;
    if (s == WH_NET_CLAIMED && ttl_ms > 0)
        info->retry_in = apr_time_from_msec(ttl_ms);
    return wh_replay_net_held(s);
}

/* The claim on one connection (a claim the lost reply of an earlier try
 * had made is found again as this holder's own). */
static wh_claim_result claim_on(void *conn, apr_pool_t *p, void *baton,
                                const wh_claim *c, wh_claim_info *info)
{
    redis_store *rs = baton;
    redis_conn *rc = conn;
    const char *key = wh_replay_net_key(p, c->id);
    const char *args[3] = { wh_replay_net_claim_value(p, c->holder),
                            ms(p, c->lease), "" };

    if (!rc->has_marker)
        seed_marker(rs, rc);
    for (int round = 0; round < 4; round++) {
        int may = rc->has_marker
                  && !wh_replay_predates(c->signed_at, rc->since, c->tolerance_sec);
        redisReply *r;
        int wrote;

        args[2] = may ? rc->marker : "";
        /* without a marker it only looks, and so does what follows
         * until the next round's script */
        info->looking = !may;
        if ((r = run_script(rs, rc, p, S_CLAIM, key, args, 3, &info->err)) == NULL)
            return WH_CLAIM_ERROR;
        if (r->type != REDIS_REPLY_STRING || r->len < 1) {
            info->err = unexpected(p, r);
            freeReplyObject(r);
            return WH_CLAIM_ERROR;
        }
        if (r->str[0] == 'C') {
            freeReplyObject(r);
            return WH_CLAIM_FIRST;
        }
        if (r->str[0] == 'H')
            return held(r, p, c, info);
        wrote = take_marker(rs, rc, p, r->str + 1, r->len - 1, &info->err);
        freeReplyObject(r);
        if (wrote < 0)
            return WH_CLAIM_ERROR;
        if (wrote > 0)
            info->emptied = 1;
        /* a marker written just now is read back, as every server reads it,
         * in the next round */
        if (rc->has_marker
            && wh_replay_predates(c->signed_at, rc->since, c->tolerance_sec)) {
            info->since = rc->since;
            return WH_CLAIM_PREDATES;
        }
    }
    info->err = "redis: the epoch marker kept changing";
    return WH_CLAIM_ERROR;
}

static wh_claim_result redis_claim(wh_replay_store *st, apr_pool_t *p,
                                   const wh_claim *c, wh_claim_info *info)
{
    redis_store *rs = st->impl;
    return wh_replay_pool_claim(rs->conns, p, claim_on, rs, c, info);
}

typedef struct {
    int argc;
    const char **argv;
    const size_t *lens;
    int script;                 /* S_* when it is one, else -1 */
    const char *key;
    const char **args;
    int nargs;
    redis_store *rs;
    redisReply *reply;          /* the answer */
} redis_call;

static int call_on(void *conn, apr_pool_t *p, void *baton, const char **err)
{
    redis_call *k = baton;
    k->reply = k->script >= 0
               ? run_script(k->rs, conn, p, k->script, k->key, k->args,
                            k->nargs, err)
               : command(conn, p, k->argc, k->argv, k->lens, err);
    return k->reply ? 0 : -1;
}

/* k's command or script on a pooled connection: its reply, or NULL with
 * *err. */
static redisReply *call(redis_store *rs, apr_pool_t *p, redis_call *k,
                        const char **err)
{
    k->rs = rs;
    k->reply = NULL;
    return wh_replay_pool_run(rs->conns, p, call_on, k, err) < 0 ? NULL : k->reply;
}

/* A status reply (OK, PONG): 0, else -1 with *err. */
static int status_of(apr_pool_t *p, redisReply *r, const char **err)
{
    int rv = -1;
    if (r == NULL)
        return -1;
    if (r->type == REDIS_REPLY_STATUS)
        rv = 0;
    else
        *err = unexpected(p, r);
    freeReplyObject(r);
    return rv;
}

static int redis_confirm(wh_replay_store *st, apr_pool_t *p, const char *id,
                         const char *holder, apr_int64_t window_sec,
                         const char **err)
{
    const char *key = wh_replay_net_key(p, id);
    const char *ttl = ms(p, apr_time_from_sec(window_sec));
    const char *argv[5] = { "SET", key, WH_REPLAY_NET_CONFIRMED, "PX", ttl };
    size_t lens[5] = { 3, strlen(key), 1, 2, strlen(ttl) };
    redis_call k = { 5, argv, lens, -1, NULL, NULL, 0, NULL, NULL };
    (void)holder;

    return status_of(p, call(st->impl, p, &k, err), err);
}

/* forget or renew: a script comparing the holder; its integer answer
 * (1 done, 0 not this holder's), or -1. */
static int compare_and(wh_replay_store *st, apr_pool_t *p, int which,
                       const char *id, const char *holder,
                       apr_interval_time_t lease, const char **err)
{
    const char *args[2] = { wh_replay_net_claim_value(p, holder), ms(p, lease) };
    redis_call k = { 0, NULL, NULL, which, wh_replay_net_key(p, id), args,
                     which == S_RENEW ? 2 : 1, NULL, NULL };
    redisReply *r = call(st->impl, p, &k, err);
    int rv = -1;

    if (r) {
        if (r->type == REDIS_REPLY_INTEGER)
            rv = r->integer > 0;
        else
            *err = unexpected(p, r);
        freeReplyObject(r);
    }
    return rv;
}

static int redis_forget(wh_replay_store *st, apr_pool_t *p, const char *id,
                        const char *holder, const char **err)
{
    return compare_and(st, p, S_FORGET, id, holder, 0, err);
}

static int redis_renew(wh_replay_store *st, apr_pool_t *p, const char *id,
                       const char *holder, apr_interval_time_t lease,
                       const char **err)
{
    return compare_and(st, p, S_RENEW, id, holder, lease, err);
}

static int redis_health(wh_replay_store *st, apr_pool_t *p, const char **err)
{
    const char *argv[1] = { "PING" };
    size_t lens[1] = { 4 };
    redis_call k = { 1, argv, lens, -1, NULL, NULL, 0, NULL, NULL };

    return status_of(p, call(st->impl, p, &k, err), err);
}

static int redis_init(wh_replay_store *st, apr_pool_t *p, apr_time_t *since,
                      const char **err)
{
    redis_store *rs = st->impl;
    const char *mark = wh_replay_marker_encode(p, 0, apr_time_now());
    const char *set_argv[4] = { "SET", rs->marker_key, mark, "NX" };
    size_t set_lens[4] = { 3, strlen(rs->marker_key), strlen(mark), 2 };
    const char *get_argv[2] = { "GET", rs->marker_key };
    size_t get_lens[2] = { 3, strlen(rs->marker_key) };
    redis_call set = { 4, set_argv, set_lens, -1, NULL, NULL, 0, NULL, NULL };
    redis_call get = { 2, get_argv, get_lens, -1, NULL, NULL, 0, NULL, NULL };
    redisReply *r;
    apr_time_t set_at;
    int rv = -1;

    *since = 0;
    if ((r = call(rs, p, &set, err)) == NULL)
        return -1;
    if (r->type == REDIS_REPLY_STATUS)
        rv = 1;
    else if (r->type != REDIS_REPLY_NIL)
        *err = unexpected(p, r);
    else
        rv = 0;
    freeReplyObject(r);
    if (rv != 0)
        return rv;
    if ((r = call(rs, p, &get, err)) == NULL)
        return -1;
    if (r->type != REDIS_REPLY_STRING
        || wh_replay_marker_decode(r->str, r->len, since, &set_at) != 0) {
        *err = "redis: the epoch marker's key holds something wirehook did not write";
        rv = -1;
    }
    freeReplyObject(r);
    return rv;
}

static const wh_replay_store_ops redis_ops = {
    "redis", redis_claim, redis_confirm, redis_forget, redis_renew, NULL,
    redis_health, redis_init
};

static int sha1_hex(const char *text, char out[41])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;

    if (EVP_Digest(text, strlen(text), md, &n, EVP_sha1(), NULL) != 1 || n != 20)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[40] = '\0';
    return 0;
}

const char *wh_replay_redis_open(apr_pool_t *p, const char *host, int port,
                                 int max_conns, apr_interval_time_t timeout,
                                 wh_replay_store **out)
{
    redis_store *rs = apr_pcalloc(p, sizeof(*rs));
    wh_replay_store *st = apr_pcalloc(p, sizeof(*st));
    const char *err;

    *out = NULL;
    rs->host = apr_pstrdup(p, host);
    rs->port = port;
    rs->tv.tv_sec = (long)apr_time_sec(timeout);
    rs->tv.tv_usec = (long)apr_time_usec(timeout);
    rs->marker_key = wh_replay_net_key(p, WH_REPLAY_MARKER_KEY);
    if (apr_thread_mutex_create(&rs->mu, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS)
        return "redis: cannot create a mutex";
    for (int i = 0; i < S_COUNT; i++)
        if (sha1_hex(script_text[i], rs->sha[i]) != 0)
            return "redis: cannot hash the scripts";
    err = wh_replay_pool_create(p, &conn_ops, rs,
                                apr_psprintf(p, "no connection to redis at %s:%d",
                                             host, port),
                                max_conns, timeout, WH_REPLAY_POOL_RETRY,
                                &rs->conns);
    if (err)
        return apr_pstrcat(p, "redis: ", err, NULL);
    st->ops = &redis_ops;
    st->impl = rs;
    *out = st;
    return NULL;
}
