/* The configurations (loaded WirehookConfig files) and the per-request state a
 * request chain carries. */
#include "wh_mod_config.h"
#include "http_core.h"
#include <apr_hash.h>

#define WH_CONFIGS_KEY "wirehook-configs"

/* A hash kept as userdata of pool p under key, created on first use. */
apr_hash_t *wh_mod_pool_hash(apr_pool_t *p, const char *key)
{
    void *data = NULL;
    apr_pool_userdata_get(&data, key, p);
    if (data == NULL) {
        data = apr_hash_make(p);
        apr_pool_userdata_set(data, key, apr_pool_cleanup_null, p);
    }
    return data;
}

/* Loaded configuration files of this configuration generation, keyed by
 * absolute path. Lives in pconf, so a restart re-reads every file. */
apr_hash_t *wh_mod_configs(apr_pool_t *pconf)
{
    return wh_mod_pool_hash(pconf, WH_CONFIGS_KEY);
}

wh_mod_config *wh_mod_config_of(const request_rec *r)
{
    const wh_mod_dir_conf *dconf =
        ap_get_module_config(r->per_dir_config, &wirehook_module);
    return dconf ? dconf->config : NULL;
}

wh_mod_state *wh_mod_state_of(const request_rec *r)
{
    return ap_get_module_config(r->request_config, &wirehook_module);
}

wh_mod_state *wh_mod_chain_state(const request_rec *r)
{
    for (const request_rec *q = r; q; q = q->prev) {
        wh_mod_state *st = wh_mod_state_of(q);
        if (st)
            return st;
    }
    return NULL;
}
