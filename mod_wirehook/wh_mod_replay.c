/* Replay protection across processes (and, with memcache/redis, servers)
 * on mod_socache, following mod_authn_socache's lifecycle:
 *   pre_config   register the "wirehook-replay" mutex type (Mutex directive)
 *   check_config every ReplayCache provider is loaded, else startup fails
 *   post_config  one socache instance + global mutex per distinct spec
 *   child_init   re-attach the global mutexes
 *
 * Semantics: the notificationId of an accepted notification is recorded
 * BEFORE the handler runs, under the global mutex (retrieve; absent ->
 * store with expiry now + ReplayWindow), so two copies arriving at the
 * same moment on different workers are delivered exactly once. When the
 * application's final status is 5xx the id is removed again (log_transaction
 * in mod_wirehook.c), so the bank's retry is delivered. Any cache or mutex
 * failure answers 503 replay_cache_unavailable rather than risk a double
 * delivery. The key is the notificationId alone, so every location sharing
 * one ReplayCache spec (or one memcache/redis server) shares the window.
 *
 * The instances live in pconf, like every socache user in httpd: a restart
 * (graceful or not) starts a shmcb cache empty, because httpd unloads and
 * reloads the provider modules with the configuration. Replays across a
 * restart are then still bounded by TimestampTolerance; a memcache or redis
 * ReplayCache keeps its entries across restarts (and across servers).
 * Nothing is created in the first, pre-config pass.
 */
#include "mod_wirehook.h"

#include "http_core.h"
#include "http_protocol.h"
#include "ap_provider.h"
#include "util_mutex.h"
#include <apr_strings.h>

#define WH_REPLAY_KEY "wirehook-replays"

/* spec -> wh_mod_replay of this configuration generation */
static apr_hash_t *replays(apr_pool_t *pconf)
{
    return wh_mod_pool_hash(pconf, WH_REPLAY_KEY);
}

static int replay_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                             apr_pool_t *ptemp)
{
    (void)plog;
    (void)ptemp;
    apr_status_t rv = ap_mutex_register(pconf, WH_MOD_MUTEX_TYPE, NULL,
                                        APR_LOCK_DEFAULT, 0);
    if (rv != APR_SUCCESS) {
        ap_log_perror(APLOG_MARK, APLOG_CRIT, rv, plog, WHLOGNO(00930)
                      "failed to register the %s mutex", WH_MOD_MUTEX_TYPE);
        return 500;
    }
    return OK;
}

static const char *spec_provider(const wh_config *cfg)
{
    return cfg->replay_cache_provider ? cfg->replay_cache_provider : "shmcb";
}

/* Fails startup (and `apachectl -t`) when a ReplayCache provider module is
 * not loaded. */
static int replay_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    int bad = 0;
    apr_hash_t *sites = wh_mod_sites(pconf);
    for (apr_hash_index_t *hi = apr_hash_first(ptemp, sites); hi;
         hi = apr_hash_next(hi)) {
        const wh_mod_site *site = apr_hash_this_val(hi);
        const char *name = spec_provider(site->cfg);
        if (ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, name,
                               AP_SOCACHE_PROVIDER_VERSION) == NULL) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00931)
                         "WirehookConfig %s: ReplayCache provider '%s' is not "
                         "available: load its module (LoadModule "
                         "socache_%s_module .../mod_socache_%s.so)",
                         site->path, name, name, name);
            bad = 1;
        }
    }
    return bad ? HTTP_INTERNAL_SERVER_ERROR : OK;
}

static apr_status_t replay_destroy(void *data)
{
    wh_mod_replay *rp = data;
    if (rp->instance && rp->provider) {
        rp->provider->destroy(rp->instance, NULL);
        rp->instance = NULL;
    }
    return APR_SUCCESS;
}

static int replay_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                              apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    apr_hash_t *sites = wh_mod_sites(pconf);
    apr_hash_t *by_spec = replays(pconf);
    int index = (int)apr_hash_count(by_spec);

    for (apr_hash_index_t *hi = apr_hash_first(ptemp, sites); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_site *site = apr_hash_this_val(hi);
        const wh_config *cfg = site->cfg;
        const char *name = spec_provider(cfg);
        const char *args = cfg->replay_cache_args;
        const char *spec = apr_pstrcat(ptemp, name, ":", args ? args : "",
                                       NULL);
        wh_mod_replay *rp = apr_hash_get(by_spec, spec, APR_HASH_KEY_STRING);
        if (rp) {
            site->replay = rp;
            continue;
        }

        rp = apr_pcalloc(pconf, sizeof(*rp));
        rp->spec = apr_pstrdup(pconf, spec);
        rp->provider_name = apr_pstrdup(pconf, name);
        rp->args = args ? apr_pstrdup(pconf, args) : NULL;
        rp->index = index++;
        rp->provider = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, name,
                                          AP_SOCACHE_PROVIDER_VERSION);
        if (rp->provider == NULL) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00932)
                         "WirehookConfig %s: ReplayCache provider '%s' is not "
                         "loaded", site->path, name);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        const char *err = rp->provider->create(&rp->instance, rp->args,
                                               ptemp, pconf);
        if (err) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00933)
                         "WirehookConfig %s: ReplayCache %s: %s",
                         site->path, cfg->replay_cache ? cfg->replay_cache
                                                       : name, err);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        const char *id = apr_psprintf(ptemp, "%d", rp->index);
        apr_status_t rv = ap_global_mutex_create(&rp->mutex, &rp->lockfile,
                                                 WH_MOD_MUTEX_TYPE, id, s,
                                                 pconf, 0);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00934)
                         "WirehookConfig %s: cannot create the replay mutex",
                         site->path);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        struct ap_socache_hints hints = {0};
        hints.avg_id_len = 36;
        hints.avg_obj_size = 8;
        hints.expiry_interval = apr_time_from_sec(60);
        /* One fixed namespace: memcache and redis prefix keys with it, so
         * every server sharing a cache must derive the same one whatever
         * order its own configuration lists its ReplayCache specs in. */
        rv = rp->provider->init(rp->instance, "wirehook-replay", &hints, s, pconf);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00935)
                         "WirehookConfig %s: cannot initialise ReplayCache %s",
                         site->path, rp->spec);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
        apr_pool_cleanup_register(pconf, rp, replay_destroy,
                                  apr_pool_cleanup_null);
        apr_hash_set(by_spec, rp->spec, APR_HASH_KEY_STRING, rp);
        site->replay = rp;
    }
    return OK;
}

/* The process-local mutex, then the global one (see wh_mod_replay.local). */
static apr_status_t replay_lock(wh_mod_replay *rp)
{
    if (rp->local && apr_thread_mutex_lock(rp->local) != APR_SUCCESS)
        return APR_EGENERAL;
    apr_status_t rv = apr_global_mutex_lock(rp->mutex);
    if (rv != APR_SUCCESS && rp->local)
        apr_thread_mutex_unlock(rp->local);
    return rv;
}

static apr_status_t replay_unlock(wh_mod_replay *rp)
{
    apr_status_t rv = apr_global_mutex_unlock(rp->mutex);
    if (rp->local)
        apr_thread_mutex_unlock(rp->local);
    return rv;
}

static void replay_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_hash_t *by_spec = replays(s->process->pconf);
    for (apr_hash_index_t *hi = apr_hash_first(pchild, by_spec); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_replay *rp = apr_hash_this_val(hi);
        if (rp->mutex == NULL)
            continue;
        apr_status_t rv = apr_global_mutex_child_init(
            &rp->mutex, apr_global_mutex_lockfile(rp->mutex), pchild);
        if (rv != APR_SUCCESS)
            ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00936)
                         "cannot re-attach the replay mutex %s", rp->spec);
        /* Without it (never in practice) the global mutex alone still
         * serializes correctly, only with more contention. */
        if (apr_thread_mutex_create(&rp->local, APR_THREAD_MUTEX_DEFAULT,
                                    pchild) != APR_SUCCESS)
            rp->local = NULL;
    }
}

wh_replay_result wh_mod_replay_check(request_rec *r, wh_mod_replay *rp,
                                     const wh_config *cfg, const char *id)
{
    if (rp == NULL || rp->instance == NULL || id == NULL || *id == '\0') {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00937)
                      "replay cache not initialised");
        return WH_REPLAY_UNAVAILABLE;
    }
    server_rec *s = r->server;
    const unsigned char *key = (const unsigned char *)id;
    unsigned int keylen = (unsigned int)strlen(id);
    unsigned char val[32];
    unsigned int vallen = sizeof(val);
    wh_replay_result res;

    apr_status_t rv = replay_lock(rp);
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, WHLOGNO(00938)
                      "replay cache: cannot lock the mutex");
        return WH_REPLAY_UNAVAILABLE;
    }
    rv = rp->provider->retrieve(rp->instance, s, key, keylen, val, &vallen,
                                r->pool);
    if (rv == APR_SUCCESS) {
        res = WH_REPLAY_DUPLICATE;
    }
    else if (rv == APR_NOTFOUND) {
        apr_time_t expiry = apr_time_now()
                            + apr_time_from_sec(cfg->replay_window);
        unsigned char one[] = "1";
        rv = rp->provider->store(rp->instance, s, key, keylen, expiry, one,
                                 1, r->pool);
        res = rv == APR_SUCCESS ? WH_REPLAY_FIRST : WH_REPLAY_UNAVAILABLE;
        if (rv != APR_SUCCESS)
            ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, WHLOGNO(00939)
                          "replay cache %s: store failed for "
                          "notificationId=%s", rp->spec, id);
    }
    else {
        res = WH_REPLAY_UNAVAILABLE;
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, WHLOGNO(00940)
                      "replay cache %s: lookup failed for notificationId=%s",
                      rp->spec, id);
    }
    apr_status_t urv = replay_unlock(rp);
    if (urv != APR_SUCCESS)
        ap_log_rerror(APLOG_MARK, APLOG_ERR, urv, r, WHLOGNO(00941)
                      "replay cache: cannot unlock the mutex");
    if (res == WH_REPLAY_DUPLICATE)
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00942)
                      "duplicate: notificationId=%s code=duplicate "
                      "(seen within ReplayWindow, not delivered)", id);
    return res;
}

void wh_mod_replay_forget(request_rec *r, wh_mod_replay *rp, const char *id)
{
    if (rp == NULL || rp->instance == NULL || id == NULL)
        return;
    if (replay_lock(rp) != APR_SUCCESS)
        return;
    apr_status_t rv = rp->provider->remove(rp->instance, r->server,
                                           (const unsigned char *)id,
                                           (unsigned int)strlen(id), r->pool);
    replay_unlock(rp);
    if (rv != APR_SUCCESS && rv != APR_NOTFOUND)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, rv, r, WHLOGNO(00943)
                      "replay cache %s: cannot remove notificationId=%s",
                      rp->spec, id);
}

void wh_mod_replay_register(void)
{
    static const char *const after_socache[] = {"mod_socache_shmcb.c", NULL};
    ap_hook_pre_config(replay_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(replay_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(replay_post_config, after_socache, NULL,
                        APR_HOOK_MIDDLE);
    ap_hook_child_init(replay_child_init, NULL, NULL, APR_HOOK_MIDDLE);
}
