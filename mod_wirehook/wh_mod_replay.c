/* Replay protection across processes, restarts and (with memcache/redis)
 * servers: wirehook's own LMDB store (the default; its httpd lifecycle is
 * wh_mod_replay_lmdb.c) or the mod_socache providers httpd ships. The
 * promise: a
 * notificationId accepted once is answered "duplicate" for the whole
 * ReplayWindow; where the store cannot promise it, the answer is 503
 * replay_cache_unavailable, never a second delivery. What each provider
 * can promise, and the rules that keep the promise where it cannot, are
 * the core's (shared/replay/wh_replay.c); this file does the socache calls:
 *
 *   pre_config   register the "wirehook-replay" mutex type
 *   check_config every ReplayCache provider is loaded and usable, else
 *                startup (and apachectl -t) fails
 *   post_config  one socache instance, global mutex and ledger (shared
 *                memory) per distinct ReplayCache; the startup log says
 *                what each store guarantees
 *   child_init   re-attach the global mutexes
 *
 * dbm persists: its file outlives restarts, so the instance
 * is never destroyed (mod_socache_dbm's destroy deletes the file). shmcb
 * lives in shared memory for one configuration generation: its ledger
 * refuses the id that would make it evict, and for TimestampTolerance
 * after each start it refuses notifications signed before then (it cannot
 * know whether the previous generation accepted them). memcache, redis and
 * dbm carry an epoch marker: a store found without one was emptied behind
 * httpd's back (a restarted memcached, a flushed redis, a deleted file)
 * and is treated the same way.
 *
 * The id is recorded BEFORE the handler runs, under the global mutex (lmdb:
 * in one LMDB write transaction, which is its own lock)
 * (look up; absent: admit and store with expiry now + ReplayWindow), so
 * two copies arriving at once on different workers are delivered once.
 * When the application's final status is 5xx the id is removed again
 * (wh_mod_verify.c), so the bank's retry is delivered. */
#include "wh_mod_replay.h"
#include "wh_mod_replay_lmdb.h"
#include "wh_mod_request.h"

#include "http_core.h"
#include "http_protocol.h"
#include "ap_provider.h"
#include "ap_socache.h"
#include "util_mutex.h"
#include "replay/wh_replay.h"
#include "replay/wh_replay_fs.h"
#include <apr_dbm.h>
#include <apr_global_mutex.h>
#include <apr_shm.h>
#include <apr_strings.h>
#include <sys/stat.h>

#define WH_REPLAY_KEY "wirehook-replays"
#define WH_REPLAY_NAMESPACE "wirehook-replay"
/* mod_socache_dbm's expiry sweep (a scan of the whole file) at most this
 * often. */
#define WH_REPLAY_EXPIRY_INTERVAL apr_time_from_sec(60)
#define WH_MARKER_MAX 128
/* An id's one-byte value: its delivery under way, or delivered. */
#define WH_REPLAY_CLAIMED 'P'
#define WH_REPLAY_DELIVERED '1'

struct wh_mod_replay {
    const char *spec;                   /* "dbm:/path", "shmcb:", ... */
    wh_replay_model model;
    const ap_socache_provider_t *provider;
    ap_socache_instance_t *instance;
    apr_global_mutex_t *mutex;
    /* Taken before mutex: threads of one child queue on this cheap
     * process-local lock, so the global one (a priority-inheriting robust
     * pthread mutex by default, whose every contended lock and unlock is a
     * system call) only ever sees one waiter per child. Per child. */
    apr_thread_mutex_t *local;
    const char *lockfile;
    wh_replay_ledger *ledger;           /* shared memory, under mutex */
    /* dbm: the file as it was when its marker was last read, per child */
    const char *dbm_file;
    apr_time_t marker_since;
    dev_t marker_dev;
    ino_t marker_ino;
    int marker_seen;
    apr_int64_t window;                 /* longest ReplayWindow using it */
    apr_int64_t tolerance;              /* largest TimestampTolerance */
    int index;                          /* mutex name suffix */
    wh_mod_lmdb *lmdb;                  /* ReplayCache lmdb: all of the
                                           above but model unused */
};

/* spec -> wh_mod_replay of this configuration generation */
static apr_hash_t *replays(apr_pool_t *pconf)
{
    return wh_mod_pool_hash(pconf, WH_REPLAY_KEY);
}

static const char *spec_of(apr_pool_t *p, const wh_config *cfg)
{
    const char *name = cfg->replay_cache_provider ? cfg->replay_cache_provider
                                                  : "lmdb";
    return apr_pstrcat(p, name, ":", cfg->replay_cache_args
                                         ? cfg->replay_cache_args : "", NULL);
}

static int replay_pre_config(apr_pool_t *pconf, apr_pool_t *plog,
                             apr_pool_t *ptemp)
{
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

/* Fails startup (and `apachectl -t`) when a ReplayCache provider module is
 * not loaded, or the ReplayCache cannot keep wirehook's promise. */
static int replay_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    int bad = 0;
    apr_hash_t *sites = wh_mod_sites(pconf);
    for (apr_hash_index_t *hi = apr_hash_first(ptemp, sites); hi;
         hi = apr_hash_next(hi)) {
        const wh_mod_site *site = apr_hash_this_val(hi);
        wh_replay_model m;
        const char *err = wh_replay_model_make(
            ptemp, site->cfg->replay_cache_provider,
            site->cfg->replay_cache_args, &m);
        if (err) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00966)
                         "WirehookConfig %s: ReplayCache %s: %s", site->path,
                         spec_of(ptemp, site->cfg), err);
            bad = 1;
        } else if (strcmp(m.provider, "lmdb") != 0
                   && ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, m.provider,
                                      AP_SOCACHE_PROVIDER_VERSION) == NULL) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00931)
                         "WirehookConfig %s: ReplayCache provider '%s' is not "
                         "available: load its module (LoadModule "
                         "socache_%s_module .../mod_socache_%s.so)",
                         site->path, m.provider, m.provider, m.provider);
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

/* ---- the dbm file ---------------------------------------------------- */

/* The file mod_socache_dbm will use (the default one in the runtime
 * directory when ReplayCache names none). */
static const char *dbm_path(apr_pool_t *pconf, const wh_replay_model *m)
{
    if (m->args && *m->args)
        return ap_server_root_relative(pconf, m->args);
    return ap_runtime_dir_relative(pconf, WH_REPLAY_NAMESPACE);
}

static int dbm_exists(apr_pool_t *p, const char *path)
{
    const char *f1 = NULL, *f2 = NULL;
    apr_finfo_t fi;
    apr_dbm_get_usednames(p, path, &f1, &f2);
    return f1 && apr_stat(&fi, f1, APR_FINFO_TYPE, p) == APR_SUCCESS;
}

/* mod_socache_dbm answers a key that is not there with APR_EGENERAL when
 * apr-util's DBM driver reports absence as an empty value, as the Berkeley
 * DB driver (Debian's default) does; it opens the file first, so its real
 * failures come back as the open's own status. */
static apr_status_t retrieve(wh_mod_replay *rp, server_rec *s,
                             const unsigned char *key, unsigned int keylen,
                             unsigned char *val, unsigned int *vallen,
                             apr_pool_t *p)
{
    apr_status_t rv = rp->provider->retrieve(rp->instance, s, key, keylen,
                                             val, vallen, p);
    if (rv == APR_EGENERAL && strcmp(rp->model.provider, "dbm") == 0)
        return APR_NOTFOUND;
    return rv;
}

/* ---- the epoch marker ------------------------------------------------ */

static apr_status_t marker_store(wh_mod_replay *rp, server_rec *s,
                                 apr_time_t since, apr_time_t now,
                                 apr_pool_t *p)
{
    const char *v = wh_replay_marker_encode(p, since, now);
    return rp->provider->store(rp->instance, s,
                               (const unsigned char *)WH_REPLAY_MARKER_KEY,
                               sizeof(WH_REPLAY_MARKER_KEY) - 1,
                               now + WH_REPLAY_MARKER_TTL,
                               (unsigned char *)v, (unsigned int)strlen(v), p);
}

/* A dbm store is emptied only by losing its file (mod_socache_dbm
 * recreates a missing one empty): while the file is the one the marker was
 * last read from, the marker needs no new reading — a stat instead of
 * opening the database. Called under the replay mutex. */
static int dbm_same_file(wh_mod_replay *rp, int remember)
{
    struct stat st;
    if (rp->dbm_file == NULL || stat(rp->dbm_file, &st) != 0)
        return 0;
    if (remember) {
        rp->marker_dev = st.st_dev;
        rp->marker_ino = st.st_ino;
        rp->marker_seen = 1;
        return 1;
    }
    return rp->marker_seen && st.st_dev == rp->marker_dev
           && st.st_ino == rp->marker_ino;
}

/* When the store's memory began, from its marker; a store without one was
 * emptied behind our back and begins now. 0, or -1 when the store fails. */
static int marker_since(request_rec *r, wh_mod_replay *rp, apr_time_t now,
                        apr_time_t *since)
{
    unsigned char val[WH_MARKER_MAX];
    unsigned int len = sizeof(val) - 1;
    apr_time_t set = 0;
    apr_status_t rv = retrieve(
        rp, r->server, (const unsigned char *)WH_REPLAY_MARKER_KEY,
        sizeof(WH_REPLAY_MARKER_KEY) - 1, val, &len, r->pool);

    if (rv == APR_SUCCESS
        && wh_replay_marker_decode((const char *)val, len, since, &set) == 0) {
        if (now - set > WH_REPLAY_MARKER_REFRESH)
            (void)marker_store(rp, r->server, *since, now, r->pool);
        rp->marker_since = *since;
        (void)dbm_same_file(rp, 1);
        return 0;
    }
    if (rv != APR_SUCCESS && rv != APR_NOTFOUND)
        return -1;
    *since = now;
    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00957)
                  "ReplayCache %s has no epoch marker: it was emptied (a "
                  "restarted or flushed server, a lost file) and remembers "
                  "nothing from before now; notifications signed in the next "
                  "%" APR_INT64_T_FMT " s are answered 503", rp->spec,
                  rp->tolerance);
    if (marker_store(rp, r->server, now, now, r->pool) != APR_SUCCESS)
        return -1;
    rp->marker_since = now;
    (void)dbm_same_file(rp, 1);
    return 0;
}

/* ---- post_config ----------------------------------------------------- */

static int create_store(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                        wh_mod_replay *rp, const char *site_path)
{
    struct ap_socache_hints hints = {0};
    apr_shm_t *shm = NULL;
    const char *err, *id, *dbm_file = NULL;
    apr_time_t now = apr_time_now(), since = 0;
    int fresh_file = 0;
    apr_status_t rv;

    rp->provider = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP,
                                      rp->model.provider,
                                      AP_SOCACHE_PROVIDER_VERSION);
    if (rp->provider == NULL) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00932)
                     "WirehookConfig %s: ReplayCache provider '%s' is not "
                     "loaded", site_path, rp->model.provider);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (strcmp(rp->model.provider, "dbm") == 0) {
        dbm_file = dbm_path(pconf, &rp->model);
        fresh_file = !dbm_exists(ptemp, dbm_file);
        rp->model.args = dbm_file;
        {
            const char *used1 = NULL, *used2 = NULL;
            apr_dbm_get_usednames(pconf, dbm_file, &used1, &used2);
            rp->dbm_file = used1;      /* the file the driver really opens */
        }
    }
    err = rp->provider->create(&rp->instance, rp->model.args, ptemp, pconf);
    if (err) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00933)
                     "WirehookConfig %s: ReplayCache %s: %s", site_path,
                     rp->spec, err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    id = apr_psprintf(ptemp, "%d", rp->index);
    rv = ap_global_mutex_create(&rp->mutex, &rp->lockfile, WH_MOD_MUTEX_TYPE,
                                id, s, pconf, 0);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00934)
                     "WirehookConfig %s: cannot create the replay mutex",
                     site_path);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    hints.avg_id_len = rp->model.hint_id_len;
    hints.avg_obj_size = rp->model.hint_obj_size;
    hints.expiry_interval = WH_REPLAY_EXPIRY_INTERVAL;
    /* One fixed namespace: memcache and redis prefix keys with it, so
     * every server sharing a store derives the same one whatever order its
     * own configuration lists its ReplayCache specs in. */
    rv = rp->provider->init(rp->instance, WH_REPLAY_NAMESPACE, &hints, s, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00935)
                     "WirehookConfig %s: cannot initialise ReplayCache %s",
                     site_path, rp->spec);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* The dbm file is the store's memory across restarts: never let
     * mod_socache_dbm delete it. */
    if (dbm_file == NULL)
        apr_pool_cleanup_register(pconf, rp, replay_destroy,
                                  apr_pool_cleanup_null);

    rv = apr_shm_create(&shm, wh_replay_ledger_size(rp->model.partitions),
                        NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00958)
                     "WirehookConfig %s: cannot create the replay ledger's "
                     "shared memory", site_path);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* shmcb's memory begins now, empty; the others' since is their marker */
    if (!rp->model.uses_marker)
        since = now;
    rp->ledger = wh_replay_ledger_init(apr_shm_baseaddr_get(shm),
                                       rp->model.partitions,
                                       rp->model.per_partition, rp->window,
                                       since);

    /* A file store can be asked here, before the children exist (network
     * stores cannot: their connections would be shared by every child). A
     * file this start created is new — nothing was ever accepted before
     * it — unless it lives in a RAM file system, which a reboot empties. */
    if (dbm_file) {
        unsigned char val[WH_MARKER_MAX];
        unsigned int len = sizeof(val) - 1;
        apr_time_t set;
        rv = retrieve(rp, s, (const unsigned char *)WH_REPLAY_MARKER_KEY,
                      sizeof(WH_REPLAY_MARKER_KEY) - 1, val, &len, ptemp);
        if (rv != APR_SUCCESS
            || wh_replay_marker_decode((const char *)val, len, &since, &set) != 0) {
            int trusted = fresh_file && !wh_replay_on_ram_fs(dbm_file);
            since = trusted ? 0 : now;
            if (marker_store(rp, s, since, now, ptemp) != APR_SUCCESS) {
                ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00959)
                             "WirehookConfig %s: ReplayCache %s: cannot write "
                             "to %s", site_path, rp->spec, dbm_file);
                return HTTP_INTERNAL_SERVER_ERROR;
            }
            ap_log_error(APLOG_MARK, trusted ? APLOG_NOTICE : APLOG_WARNING, 0,
                         s, WHLOGNO(00960) "ReplayCache %s: %s", rp->spec,
                         trusted ? "a new store: it remembers every "
                                   "notificationId from now on"
                                 : "the file was empty or unmarked (lost, or "
                                   "in a RAM file system a reboot empties): "
                                   "notifications signed before TimestampTolerance "
                                   "from now are answered 503");
        }
        if (wh_replay_on_ram_fs(dbm_file))
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00961)
                         "ReplayCache %s: %s is in a RAM file system: a reboot "
                         "empties it (then notifications are answered 503 for "
                         "TimestampTolerance); name a file on disk, as in "
                         "ReplayCache dbm:/var/lib/wirehook/replay", rp->spec,
                         dbm_file);
    }
    return OK;
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
    apr_hash_index_t *hi;

    /* One store per distinct ReplayCache, sized for the longest window and
     * judged by the largest tolerance of the sites sharing it. */
    for (hi = apr_hash_first(ptemp, sites); hi; hi = apr_hash_next(hi)) {
        wh_mod_site *site = apr_hash_this_val(hi);
        const wh_config *cfg = site->cfg;
        const char *spec = spec_of(pconf, cfg);
        wh_mod_replay *rp = apr_hash_get(by_spec, spec, APR_HASH_KEY_STRING);
        if (rp == NULL) {
            rp = apr_pcalloc(pconf, sizeof(*rp));
            rp->spec = spec;
            rp->index = index++;
            if (wh_replay_model_make(pconf, cfg->replay_cache_provider,
                                     cfg->replay_cache_args, &rp->model)) {
                rp->model.provider = "";   /* check_config reported it */
            }
            apr_hash_set(by_spec, rp->spec, APR_HASH_KEY_STRING, rp);
        }
        if (cfg->replay_window > rp->window)
            rp->window = cfg->replay_window;
        if (cfg->timestamp_tolerance > rp->tolerance)
            rp->tolerance = cfg->timestamp_tolerance;
        site->replay = rp;
    }
    for (hi = apr_hash_first(ptemp, sites); hi; hi = apr_hash_next(hi)) {
        wh_mod_site *site = apr_hash_this_val(hi);
        wh_mod_replay *rp = site->replay;
        int rc;
        if (rp->instance || rp->lmdb)
            continue;
        /* the default store before lmdb was dbm's default file: an lmdb
         * store replacing it knows none of its ids, so it is not new */
        if (strcmp(rp->model.provider, "lmdb") == 0)
            rc = wh_mod_lmdb_create(
                pconf, ptemp, s, &rp->model, rp->spec, site->path,
                rp->tolerance,
                dbm_exists(ptemp,
                           ap_runtime_dir_relative(ptemp, WH_REPLAY_NAMESPACE)),
                &rp->lmdb);
        else
            rc = create_store(pconf, ptemp, s, rp, site->path);
        if (rc != OK)
            return rc;
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s, WHLOGNO(00962)
                     "ReplayCache %s (WirehookConfig %s): %s", rp->spec,
                     site->path,
                     wh_replay_model_describe(ptemp, &rp->model, rp->window,
                                              rp->tolerance));
    }
    return OK;
}

static void replay_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_hash_t *by_spec = replays(s->process->pconf);
    for (apr_hash_index_t *hi = apr_hash_first(pchild, by_spec); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_replay *rp = apr_hash_this_val(hi);
        if (rp->lmdb)
            wh_mod_lmdb_child_init(rp->lmdb, pchild, s);
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

/* ---- per request ----------------------------------------------------- */

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

static void log_predates(request_rec *r, const wh_mod_replay *rp,
                         const wh_facts *f, apr_time_t since)
{
    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00964)
                  "refused notificationId=%s: ReplayCache %s remembers "
                  "only since %" APR_TIME_T_FMT " s after the epoch, and "
                  "a notification signed at %" APR_TIME_T_FMT " could "
                  "have been accepted before that (answered 503 until "
                  "%" APR_INT64_T_FMT " s after it began)",
                  f->notification_id, rp->spec, apr_time_sec(since),
                  apr_time_sec(f->signed_at), rp->tolerance);
}

/* ReplayCache lmdb: one transaction records the id unless it is held. */
static wh_replay_result lmdb_check(request_rec *r, wh_mod_replay *rp,
                                   const wh_config *cfg, const wh_facts *f)
{
    const char *err = NULL;
    switch (wh_mod_lmdb_check(rp->lmdb, cfg, f, apr_time_now(), &err)) {
    case WH_LMDB_FIRST:
        return WH_REPLAY_FIRST;
    case WH_LMDB_DUPLICATE:
        return WH_REPLAY_DUPLICATE;
    case WH_LMDB_IN_PROGRESS:
        return WH_REPLAY_IN_PROGRESS;
    case WH_LMDB_REFUSED:
        log_predates(r, rp, f, wh_mod_lmdb_since(rp->lmdb));
        return WH_REPLAY_UNAVAILABLE;
    case WH_LMDB_FULL:
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00980)
                      "refused notificationId=%s: ReplayCache %s is full "
                      "(%s; recording one more would need evicting one "
                      "inside ReplayWindow): give it a larger map, as in "
                      "ReplayCache lmdb:/path(%" APR_SIZE_T_FMT ")",
                      f->notification_id, rp->spec, err ? err : "-",
                      wh_mod_lmdb_map_size(rp->lmdb) * 2);
        return WH_REPLAY_UNAVAILABLE;
    case WH_LMDB_ERROR:
    default:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00940)
                      "replay store %s: lookup failed for notificationId=%s: "
                      "%s", rp->spec, f->notification_id, err ? err : "-");
        return WH_REPLAY_UNAVAILABLE;
    }
}

/* May a new id be stored without breaking the promise? Logs why not. */
static int admit(request_rec *r, wh_mod_replay *rp, const wh_facts *f,
                 unsigned partition, apr_time_t now)
{
    apr_time_t since = wh_replay_ledger_since(rp->ledger);

    if (rp->model.uses_marker && dbm_same_file(rp, 0))
        since = rp->marker_since;
    else if (rp->model.uses_marker && marker_since(r, rp, now, &since) != 0) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00963)
                      "ReplayCache %s: cannot read or write its epoch marker",
                      rp->spec);
        return 0;
    }
    if (wh_replay_predates(f->signed_at, since, rp->tolerance)) {
        log_predates(r, rp, f, since);
        return 0;
    }
    if (!wh_replay_ledger_admit(rp->ledger, partition, now)) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00965)
                      "refused notificationId=%s: ReplayCache %s is full "
                      "(subcache %u holds %" APR_UINT64_T_FMT " live ids; "
                      "storing one more would evict one inside ReplayWindow): "
                      "give it more memory, or use dbm", f->notification_id,
                      rp->spec, partition, rp->model.per_partition);
        return 0;
    }
    return 1;
}

wh_replay_result wh_mod_replay_check(request_rec *r, wh_mod_replay *rp,
                                     const wh_config *cfg,
                                     const wh_facts *f)
{
    const char *id = f ? f->notification_id : NULL;
    const unsigned char *key;
    unsigned int keylen, partition;
    unsigned char val[WH_MARKER_MAX];
    unsigned int vallen = sizeof(val);
    wh_replay_result res;
    apr_time_t now;
    apr_status_t rv;

    if (rp == NULL || (rp->instance == NULL && rp->lmdb == NULL) || id == NULL
        || *id == '\0') {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00937)
                      "replay store not initialised");
        return WH_REPLAY_UNAVAILABLE;
    }
    if (rp->lmdb) {
        res = lmdb_check(r, rp, cfg, f);
        goto done;
    }
    wh_replay_key(r->pool, &rp->model, id, &key, &keylen, &partition);

    if ((rv = replay_lock(rp)) != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, WHLOGNO(00938)
                      "replay store: cannot lock the mutex");
        return WH_REPLAY_UNAVAILABLE;
    }
    now = apr_time_now();
    rv = retrieve(rp, r->server, key, keylen, val, &vallen, r->pool);
    if (rv == APR_SUCCESS) {
        /* a claim expires with its lease: a copy after it is delivered */
        res = vallen >= 1 && val[0] == WH_REPLAY_CLAIMED ? WH_REPLAY_IN_PROGRESS
                                                         : WH_REPLAY_DUPLICATE;
    }
    else if (rv != APR_NOTFOUND) {
        res = WH_REPLAY_UNAVAILABLE;
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, WHLOGNO(00981)
                      "replay store %s: lookup failed for notificationId=%s",
                      rp->spec, id);
    }
    else if (!admit(r, rp, f, partition, now)) {
        res = WH_REPLAY_UNAVAILABLE;
    }
    else {
        /* A store kept across restarts holds a claim for the delivery's
         * lease, settled (overwritten in place) for the window when the
         * delivery succeeds. shmcb is a ring: a second write of the same
         * id would take a second place in it and break its capacity
         * promise, and a full restart empties it anyway; it records the
         * id as delivered at once. */
        unsigned char claim[] = { WH_REPLAY_CLAIMED }, one[] = { WH_REPLAY_DELIVERED };
        int claims = rp->model.survives_restart;
        rv = rp->provider->store(rp->instance, r->server, key, keylen,
                                 claims ? now + WH_REPLAY_CLAIM_LEASE
                                        : now + apr_time_from_sec(cfg->replay_window),
                                 claims ? claim : one, WH_REPLAY_VALUE_LEN, r->pool);
        res = rv == APR_SUCCESS ? WH_REPLAY_FIRST : WH_REPLAY_UNAVAILABLE;
        if (rv != APR_SUCCESS)
            ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, WHLOGNO(00939)
                          "replay store %s: store failed for "
                          "notificationId=%s (a full memcached or redis "
                          "refuses)", rp->spec, id);
    }
    if ((rv = replay_unlock(rp)) != APR_SUCCESS)
        ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, r, WHLOGNO(00941)
                      "replay store: cannot unlock the mutex");
done:
    if (res == WH_REPLAY_DUPLICATE)
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00942)
                      "duplicate: notificationId=%s code=duplicate "
                      "(seen within ReplayWindow, not delivered)", id);
    return res;
}

void wh_mod_replay_settle(request_rec *r, wh_mod_replay *rp, const char *id,
                          const wh_config *cfg)
{
    const unsigned char *key;
    unsigned int keylen, partition;
    unsigned char done[] = { WH_REPLAY_DELIVERED };
    apr_status_t rv;

    if (rp && rp->lmdb && id) {
        wh_mod_lmdb_settle(r, rp->lmdb, id);
        return;
    }
    if (rp == NULL || rp->instance == NULL || id == NULL
        || !rp->model.survives_restart)   /* no claim was made (shmcb) */
        return;
    wh_replay_key(r->pool, &rp->model, id, &key, &keylen, &partition);
    if (replay_lock(rp) != APR_SUCCESS)
        return;
    /* A dbm file deleted since this child claimed the id took the claim
     * with it. Writing now would make mod_socache_dbm create the file
     * afresh, perhaps on the deleted one's inode, and the next check would
     * take it for the file its marker was read from: the store's loss
     * would go unnoticed. The next request finds it instead. */
    if (rp->dbm_file && !dbm_same_file(rp, 0)) {
        replay_unlock(rp);
        return;
    }
    rv = rp->provider->store(rp->instance, r->server, key, keylen,
                             apr_time_now() + apr_time_from_sec(cfg->replay_window),
                             done, WH_REPLAY_VALUE_LEN, r->pool);
    replay_unlock(rp);
    if (rv != APR_SUCCESS)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, rv, r, WHLOGNO(00945)
                      "replay store %s: cannot mark notificationId=%s "
                      "delivered (a copy after the claim's lease would be "
                      "delivered again)", rp->spec, id);
}

void wh_mod_replay_forget(request_rec *r, wh_mod_replay *rp, const char *id)
{
    const unsigned char *key;
    unsigned int keylen, partition;

    if (rp && rp->lmdb && id) {
        wh_mod_lmdb_forget(r, rp->lmdb, id);
        return;
    }
    if (rp == NULL || rp->instance == NULL || id == NULL)
        return;
    wh_replay_key(r->pool, &rp->model, id, &key, &keylen, &partition);
    if (replay_lock(rp) != APR_SUCCESS)
        return;
    apr_status_t rv = rp->provider->remove(rp->instance, r->server, key,
                                           keylen, r->pool);
    replay_unlock(rp);
    if (rv != APR_SUCCESS && rv != APR_NOTFOUND)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, rv, r, WHLOGNO(00943)
                      "replay store %s: cannot remove notificationId=%s",
                      rp->spec, id);
}

const char *wh_mod_replay_provider(const wh_mod_replay *rp)
{
    return rp && rp->model.provider && *rp->model.provider ? rp->model.provider
                                                           : "-";
}

int wh_mod_replay_fill(const wh_mod_replay *rp, apr_uint64_t *live,
                       apr_uint64_t *capacity)
{
    if (rp && rp->lmdb)
        return wh_mod_lmdb_fill(rp->lmdb, live, capacity);
    if (rp == NULL || rp->ledger == NULL)
        return -1;
    /* read without the lock: a display, not a decision */
    wh_replay_ledger_fill(rp->ledger, apr_time_now(), live, capacity, NULL);
    return 0;
}

void wh_mod_replay_register(void)
{
    static const char *const after_socache[] = {
        "mod_socache_shmcb.c", "mod_socache_dbm.c", "mod_socache_memcache.c",
        "mod_socache_redis.c", NULL
    };
    ap_hook_pre_config(replay_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(replay_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(replay_post_config, after_socache, NULL,
                        APR_HOOK_MIDDLE);
    ap_hook_child_init(replay_child_init, NULL, NULL, APR_HOOK_MIDDLE);
}
