/* ReplayCache lmdb behind the store interface (see wh_replay_lmdb_store.h). */
#include "wh_replay_lmdb_store.h"
#include "wh_replay.h"
#include <string.h>

typedef struct {
    wh_replay_lmdb *db;
    apr_time_t since;
    wh_replay_owner owner;
} lmdb_store;

static wh_claim_result lmdb_claim(wh_replay_store *st, apr_pool_t *p,
                                  const wh_claim *c, wh_claim_info *info)
{
    lmdb_store *ls = st->impl;
    apr_time_t now = apr_time_now();
    /* a notification signed too early for this store to judge is only
     * looked up: a duplicate is still a duplicate, anything else 503 */
    int may_add = !wh_replay_predates(c->signed_at, ls->since, c->tolerance_sec);
    (void)p;

    memset(info, 0, sizeof(*info));
    switch (wh_replay_lmdb_claim(ls->db, c->id, now,
                                 now + apr_time_from_sec(c->window_sec),
                                 may_add, &ls->owner, &info->err)) {
    case WH_LMDB_FIRST:
        return WH_CLAIM_FIRST;
    case WH_LMDB_DUPLICATE:
        return WH_CLAIM_DUPLICATE;
    case WH_LMDB_IN_PROGRESS:
        return WH_CLAIM_IN_PROGRESS;
    case WH_LMDB_REFUSED:
        info->since = ls->since;
        return WH_CLAIM_PREDATES;
    case WH_LMDB_FULL:
        return WH_CLAIM_FULL;
    case WH_LMDB_ERROR:
    default:
        return WH_CLAIM_ERROR;
    }
}

static int lmdb_confirm(wh_replay_store *st, apr_pool_t *p, const char *id,
                        const char *holder, apr_int64_t window_sec,
                        const char **err)
{
    lmdb_store *ls = st->impl;
    (void)p;
    (void)holder;
    return wh_replay_lmdb_confirm(ls->db, id, ls->owner.self.pid,
                                 apr_time_now() + apr_time_from_sec(window_sec),
                                 err);
}

static int lmdb_forget(wh_replay_store *st, apr_pool_t *p, const char *id,
                       const char *holder, const char **err)
{
    lmdb_store *ls = st->impl;
    (void)p;
    (void)holder;
    return wh_replay_lmdb_remove(ls->db, id, err) < 0 ? -1 : 1;
}

static int lmdb_fill(wh_replay_store *st, apr_uint64_t *live,
                     apr_uint64_t *capacity)
{
    lmdb_store *ls = st->impl;
    apr_uint64_t used, size;
    if (wh_replay_lmdb_usage(ls->db, live, &used, &size) != 0)
        return -1;
    *capacity = size / WH_REPLAY_LMDB_BYTES_PER_ID;
    return 0;
}

static const wh_replay_store_ops lmdb_ops = {
    "lmdb", lmdb_claim, lmdb_confirm, lmdb_forget, NULL, lmdb_fill, NULL, NULL
};

wh_replay_store *wh_replay_lmdb_store(apr_pool_t *p, wh_replay_lmdb *db,
                                      apr_time_t since,
                                      const wh_replay_owner *owner)
{
    wh_replay_store *st = apr_pcalloc(p, sizeof(*st));
    lmdb_store *ls = apr_pcalloc(p, sizeof(*ls));

    ls->db = db;
    ls->since = since;
    ls->owner = *owner;
    st->ops = &lmdb_ops;
    st->impl = ls;
    return st;
}
