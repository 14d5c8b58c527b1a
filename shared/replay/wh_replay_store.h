#ifndef WH_REPLAY_STORE_H
#define WH_REPLAY_STORE_H
/* One small interface in front of every replay store, so that the host
 * (mod_wirehook's wh_mod_replay.c, `wirehook replay init`) picks a store by
 * its ReplayCache spec and never learns how it keeps its promise:
 *
 *   claim    look the id up and, unless it is held, claim it for this
 *            delivery: one atomic step in the store itself (lmdb: one
 *            write transaction; redis: SET NX PX inside a script; memcached:
 *            add; PostgreSQL: INSERT ... ON CONFLICT DO NOTHING; MySQL:
 *            INSERT ... ON DUPLICATE KEY UPDATE), so two
 *            copies reaching two servers at once are delivered once;
 *   confirm  the delivery succeeded: the id is a duplicate for the window;
 *   forget   the delivery failed (5xx): the claim goes, a copy is delivered;
 *   renew    a claim of a delivery still running is extended (the stores
 *            several servers share: a lease lapses only when its holder
 *            stops renewing it, that is, when it is gone);
 *   fill, health, init   server-status, and marking a new store new.
 *
 * redis and memcache keep their values in one form: "1" for a confirmed
 * id, "P" and the holder's token for a claim; the ids under
 * "wirehook-replay:" and the id in hex, as httpd's mod_socache_redis and
 * mod_socache_memcache wrote them, so a store used through those modules
 * before keeps its ids and its epoch marker (pgsql and mysql keep rows of
 * their own). */
#include <apr_pools.h>
#include <apr_time.h>

typedef enum {
    WH_CLAIM_FIRST = 0,    /* claimed now: deliver */
    WH_CLAIM_DUPLICATE,    /* delivered within the window */
    WH_CLAIM_IN_PROGRESS,  /* another delivery holds it: 503, retry later */
    WH_CLAIM_PREDATES,     /* not held, but signed before the store's memory
                              began + TimestampTolerance: it cannot judge */
    WH_CLAIM_FULL,         /* not held, and no room without evicting */
    WH_CLAIM_ERROR         /* the store failed or cannot be reached */
} wh_claim_result;

/* One claim asked of a store. */
typedef struct {
    const char *id;               /* the notificationId */
    const char *holder;           /* this delivery's token (shared stores) */
    apr_time_t signed_at;         /* the notification's timestamp */
    apr_int64_t tolerance_sec;    /* TimestampTolerance the store judges by */
    apr_int64_t window_sec;       /* ReplayWindow */
    apr_interval_time_t lease;    /* how long a claim nobody renews holds */
} wh_claim;

typedef struct {
    apr_time_t since;      /* when the store's memory began (PREDATES) */
    int emptied;           /* it had no epoch marker (emptied behind our
                              back): one saying "from now" was written */
    const char *err;       /* FULL, ERROR: why, without any secret */
    apr_interval_time_t retry_in;  /* IN_PROGRESS, FULL, ERROR: how soon
                              the store may answer otherwise, where it
                              knows (a claim's lease that ends sooner, a
                              connection's back-off); 0: it does not */
    int lost;              /* any answer but FIRST: the claim was sent and
                              its answer never came (a reply timed out, a
                              connection broke), so the store may have
                              made it, or make it when it runs again, for
                              a delivery that will not happen: the host
                              has it released (wh_replay_settle.h) */
    int looking;           /* set by a store while what it sends cannot
                              make the claim (a look before it): a lost
                              answer to that is no claim lost */
} wh_claim_info;

typedef struct wh_replay_store wh_replay_store;

typedef struct {
    const char *provider;
    wh_claim_result (*claim)(wh_replay_store *st, apr_pool_t *p,
                             const wh_claim *c, wh_claim_info *info);
    /* The delivery succeeded: id is a duplicate for window_sec from now,
     * whoever holds it. 0, or -1 with *err. */
    int (*confirm)(wh_replay_store *st, apr_pool_t *p, const char *id,
                   const char *holder, apr_int64_t window_sec,
                   const char **err);
    /* The delivery failed, or nobody delivers under the claim: holder's
     * claim is removed (a claim another holder took over, or a confirmed
     * id, stays). 1 removed, 0 nothing of holder's was there, -1 with
     * *err. Stores without holders (lmdb) remove the id: 1. */
    int (*forget)(wh_replay_store *st, apr_pool_t *p, const char *id,
                  const char *holder, const char **err);
    /* holder's claim holds lease from now: 1; 0 when it is not holder's
     * any more (confirmed, forgotten, lapsed and taken over); -1 with
     * *err. NULL: claims need no renewal (lmdb: they hold while their
     * process lives). */
    int (*renew)(wh_replay_store *st, apr_pool_t *p, const char *id,
                 const char *holder, apr_interval_time_t lease,
                 const char **err);
    /* ids held against capacity (0: none fixed); NULL or -1: unknown. */
    int (*fill)(wh_replay_store *st, apr_uint64_t *live,
                apr_uint64_t *capacity);
    /* 0 when the store answers, -1 with *err; NULL: nothing to reach. */
    int (*health)(wh_replay_store *st, apr_pool_t *p, const char **err);
    /* `wirehook replay init`: writes the epoch marker "a new store, it
     * judges everything" unless the store has one. 1 written, 0 there
     * was one (*since: what it says), -1 with *err. NULL: the store
     * decides that itself (lmdb's state file, a new PostgreSQL table). */
    int (*init)(wh_replay_store *st, apr_pool_t *p, apr_time_t *since,
                const char **err);
} wh_replay_store_ops;

struct wh_replay_store {
    const wh_replay_store_ops *ops;
    void *impl;
};

/* ---- what the shared stores have in common -------------------------- */

/* The namespace every shared store's keys live under. */
#define WH_REPLAY_NET_PREFIX "wirehook-replay:"
/* Values: a confirmed id, and the first byte of a claim ("P" + holder;
 * a lone "P" is a claim written by mod_socache before holders existed). */
#define WH_REPLAY_NET_CONFIRMED "1"
#define WH_REPLAY_NET_CLAIM 'P'
/* Longest holder token; longest value and key the stores handle. */
#define WH_REPLAY_HOLDER_MAX 48
#define WH_REPLAY_NET_VALUE_MAX 160
#define WH_REPLAY_NET_ID_MAX 128
/* Shared-store connections each process keeps open at most. */
#define WH_REPLAY_NET_CONNS_MAX 4
/* How long an operation on a shared store may take before the answer is
 * 503 (connect, each reply, waiting for a free connection). */
#define WH_REPLAY_NET_TIMEOUT apr_time_from_sec(3)

/* "wirehook-replay:" + the id's bytes in lowercase hex, in p. */
const char *wh_replay_net_key(apr_pool_t *p, const char *id);

typedef enum {
    WH_NET_FREE = 0,       /* no id, or one nothing holds (a forgotten
                              claim's tombstone) */
    WH_NET_CONFIRMED,
    WH_NET_CLAIMED         /* a claim; *mine says whether holder's */
} wh_net_state;

/* What a stored value means, for holder (NULL: nobody's). */
wh_net_state wh_replay_net_state(const char *v, apr_size_t len,
                                 const char *holder, int *mine);

/* The claim value for holder ("P" + holder), in p. */
const char *wh_replay_net_claim_value(apr_pool_t *p, const char *holder);

/* The claim's answer when the id is held (DUPLICATE or IN_PROGRESS). */
wh_claim_result wh_replay_net_held(wh_net_state s);

/* ---- holders: who claims ------------------------------------------- */

/* Each process (httpd child) draws a random prefix once; a claim's token
 * is the prefix and a counter, unique across servers and restarts. */
typedef struct {
    char prefix[24];
    volatile apr_uint32_t seq;
} wh_replay_holders;

/* Draws the prefix. NULL, or why not (no randomness). */
const char *wh_replay_holders_init(wh_replay_holders *h);
/* A new token in p (thread-safe). */
const char *wh_replay_holder_next(apr_pool_t *p, wh_replay_holders *h);

#endif
