/* What the replay stores several servers share have in common: their keys
 * and values, and the tokens that say who holds a claim (see
 * wh_replay_store.h). */
#include "wh_replay_store.h"
#include <apr_atomic.h>
#include <apr_general.h>
#include <apr_strings.h>
#include <string.h>

const char *wh_replay_net_key(apr_pool_t *p, const char *id)
{
    static const char hex[] = "0123456789abcdef";
    apr_size_t n = strlen(id), pre = sizeof(WH_REPLAY_NET_PREFIX) - 1;
    char *k = apr_palloc(p, pre + 2 * n + 1), *o = k + pre;

    memcpy(k, WH_REPLAY_NET_PREFIX, pre);
    for (const unsigned char *c = (const unsigned char *)id; *c; c++) {
        *o++ = hex[*c >> 4];
        *o++ = hex[*c & 15];
    }
    *o = '\0';
    return k;
}

wh_net_state wh_replay_net_state(const char *v, apr_size_t len,
                                 const char *holder, int *mine)
{
    *mine = 0;
    if (v == NULL || len == 0)
        return WH_NET_FREE;
    if (len == 1 && v[0] == WH_REPLAY_NET_CONFIRMED[0])
        return WH_NET_CONFIRMED;
    if (v[0] == WH_REPLAY_NET_CLAIM) {
        *mine = holder && *holder && strlen(holder) == len - 1
                && memcmp(v + 1, holder, len - 1) == 0;
        return WH_NET_CLAIMED;
    }
    /* anything else (the "0" a forgotten memcached claim leaves while it
     * expires) holds nothing */
    return WH_NET_FREE;
}

const char *wh_replay_net_claim_value(apr_pool_t *p, const char *holder)
{
    char claim[2] = { WH_REPLAY_NET_CLAIM, '\0' };
    return apr_pstrcat(p, claim, holder ? holder : "", NULL);
}

wh_claim_result wh_replay_net_held(wh_net_state s)
{
    return s == WH_NET_CONFIRMED ? WH_CLAIM_DUPLICATE : WH_CLAIM_IN_PROGRESS;
}

const char *wh_replay_holders_init(wh_replay_holders *h)
{
    unsigned char r[8];
    static const char hex[] = "0123456789abcdef";

    memset(h, 0, sizeof(*h));
    if (apr_generate_random_bytes(r, sizeof(r)) != APR_SUCCESS)
        return "no random bytes for the claims' holder tokens";
    for (apr_size_t i = 0; i < sizeof(r); i++) {
        h->prefix[2 * i] = hex[r[i] >> 4];
        h->prefix[2 * i + 1] = hex[r[i] & 15];
    }
    h->prefix[2 * sizeof(r)] = '\0';
    return NULL;
}

const char *wh_replay_holder_next(apr_pool_t *p, wh_replay_holders *h)
{
    apr_uint32_t n = apr_atomic_inc32(&h->seq);
    return apr_psprintf(p, "%s.%x", h->prefix, n);
}
