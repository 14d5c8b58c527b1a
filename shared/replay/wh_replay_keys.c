/* Replay protection's configuration keys (wh_replay_keys.h). The floor
 * of ReplayWindow, 2 * TimestampTolerance, which is also its default, is
 * wh_config_finalize()'s: the two keys may come in either order. */
#include "wh_replay_keys.h"

#include <apr_strings.h>

/* One value, three fields: as written (for messages and the module's
 * store per distinct spec), the provider, and its arguments. */
static const char *set_replay_cache(apr_pool_t *p, const char *arg,
                                    wh_config *cfg)
{
    const char *provider;
    const char *args;
    const char *err = wh_parse_replay_cache(p, arg, &provider, &args);

    if (err)
        return err;
    cfg->replay_cache = apr_pstrdup(p, arg);
    cfg->replay_cache_provider = provider;
    cfg->replay_cache_args = args;
    return NULL;
}

const wh_key wh_replay_keys[] = {
    WH_KEY_CUSTOM_ROW("ReplayCache", set_replay_cache, "SPEC", "lmdb",
                      "provider[:args] of the replay store"),
    WH_KEY_DURATION_ROW("ReplayWindow", replay_window, WH_US_S, WH_US_S, 1,
                        7 * 86400, NULL, "notificationIds kept this long "
                        "(default and least: 2 * TimestampTolerance)"),
    /* A claim is renewed every third of its lease and a store may take
     * WH_REPLAY_NET_TIMEOUT to answer, so the least lease still outlives
     * a renewal that times out. */
    WH_KEY_DURATION_ROW("ReplayLease", replay_lease, WH_US_S, WH_US_S, 10,
                        3600, "2m", "a claim outlives its server this long"),
    WH_KEY_END
};
