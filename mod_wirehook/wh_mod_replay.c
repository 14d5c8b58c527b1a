/* Replay protection in httpd (ReplayCache): one store per distinct spec,
 * picked by its provider and used through the core's store interface
 * (shared/replay/wh_replay_store.h), so that the request path is the same
 * for every store:
 *
 *   claim    after verification, before the handler: the id is looked up
 *            and, unless it is held, claimed for this delivery in one
 *            atomic step of the store (a copy that finds it confirmed is
 *            a duplicate; one that finds it claimed gets 503
 *            delivery_in_progress: that delivery may still fail);
 *   confirm  log_transaction, final status below 500: a duplicate for
 *            the whole ReplayWindow;
 *   forget   log_transaction, 5xx: the bank's retry is delivered.
 *
 * Where the store cannot promise to remember, the answer is 503
 * replay_cache_unavailable, never a second delivery.
 *
 * The stores: lmdb (the default: wirehook's own file, one machine; its
 * httpd lifecycle is wh_mod_replay_lmdb.c), dbm and shmcb (httpd's
 * mod_socache, one machine: wh_mod_replay_socache.c), and the stores
 * several servers share, whose clients are the core's: redis (hiredis),
 * memcache (libmemcached), pgsql and mysql (apr_dbd). The mod_socache_redis and
 * mod_socache_memcache modules are not used (a configuration that still
 * loads them keeps working): mod_socache has no atomic "add unless
 * present", so two servers could both find an id absent and both deliver.
 *
 * Claims of the shared stores and of dbm hold for a lease, renewed by a
 * thread of each child while their deliveries run (wh_replay_renew.h): a
 * lease ends only the claim of a holder that is gone. lmdb's claims hold
 * while their process runs. A claim nobody delivers under (its answer was
 * lost in a stall, or the store could not be told the delivery's end) is
 * owed to the store and settled by the same thread once the store answers
 * again (wh_replay_settle.h), so it does not hold its id for a lease.
 *
 *   pre_config   register the "wirehook-replay" mutex type (mod_socache)
 *   check_config every ReplayCache is usable, else startup (and
 *                apachectl -t) fails: its provider known, its module
 *                loaded (dbm, shmcb), its file not on a network file
 *                system (lmdb, dbm)
 *   post_config  one store per distinct ReplayCache of the configurations
 *                in front of an application; the startup log says what
 *                each guarantees. A configuration used only by the inbox
 *                (SetHandler wirehook) gets none: the inbox decides
 *                duplicates in its database.
 *   child_init   each store opened in the child; the renewal thread */
#include "wh_mod_replay.h"
#include "wh_mod_replay_lmdb.h"
#include "wh_mod_replay_socache.h"
#include "wh_mod_request.h"

#include "http_core.h"
#include "http_protocol.h"
#include "ap_mpm.h"
#include "ap_provider.h"
#include "ap_socache.h"
#include "util_mutex.h"
#include "replay/wh_replay.h"
#include "verify/wh_fs.h"
#include "replay/wh_replay_renew.h"
#include "replay/wh_replay_settle.h"
#include "replay/wh_replay_shared.h"
#include "replay/wh_replay_verdict.h"
#include <apr_strings.h>

#define WH_REPLAY_KEY "wirehook-replay-stores"

struct wh_mod_replay {
    const char *key;                    /* one per store: the provider and
                                           its resolved arguments (a
                                           conninfo: never logged) */
    const char *spec;                   /* as logs show it */
    wh_replay_model model;
    const char *conninfo;               /* pgsql, mysql */
    apr_int64_t window;                 /* longest ReplayWindow using it */
    apr_int64_t tolerance;              /* largest TimestampTolerance */
    apr_interval_time_t lease;          /* longest ReplayLease */
    int index;                          /* mutex name suffix */
    wh_mod_lmdb *lmdb;                  /* lmdb */
    wh_mod_socache *sc;                 /* dbm, shmcb */
    wh_replay_store *store;             /* per child; NULL: unusable */
};

/* One delivery's claim, from the check to its end. */
struct wh_mod_claim {
    wh_mod_replay *rp;
    apr_pool_t *pool;                   /* the request's (its cleanup) */
    const char *id;
    const char *holder;                 /* NULL: the store needs none */
    wh_replay_open *open;               /* in the renewer, while it runs */
};

/* Per child: the renewer of the claims of running deliveries, what the
 * child owes the stores for claims nobody holds, and the holder tokens. */
static wh_replay_renewer *child_renewer;
static wh_replay_settle *child_settle;
static wh_replay_holders child_holders;
static int child_holders_ok;

/* spec -> wh_mod_replay of this configuration generation */
static apr_hash_t *replay_stores(apr_pool_t *pconf)
{
    return wh_mod_pool_hash(pconf, WH_REPLAY_KEY);
}

static const char *spec_of(apr_pool_t *p, const wh_config *cfg)
{
    return wh_replay_spec_display(p, cfg->replay_cache_provider,
                                  cfg->replay_cache_args);
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

/* The file a one-machine store keeps (lmdb, dbm), or NULL. */
static const char *store_file(apr_pool_t *p, const wh_replay_model *m)
{
    if (strcmp(m->provider, "lmdb") == 0)
        return wh_mod_lmdb_path(p, m);
    if (strcmp(m->provider, "dbm") == 0)
        return wh_mod_socache_dbm_path(p, m->args);
    return NULL;
}

/* Fails startup (and `apachectl -t`) when a ReplayCache cannot keep
 * wirehook's promise: an unknown provider or bad arguments, a mod_socache
 * provider whose module is not loaded, or a store file on a network file
 * system (a store there is neither safe for several servers nor, with
 * its locks, always for one). */
static int replay_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    int bad = 0;
    apr_hash_t *configs = wh_mod_configs(pconf);
    for (apr_hash_index_t *hi = apr_hash_first(ptemp, configs); hi;
         hi = apr_hash_next(hi)) {
        const wh_mod_config *config = apr_hash_this_val(hi);
        const char *err, *file, *net;
        wh_replay_model m;

        if (!config->app_use)
            continue;                   /* the inbox ignores ReplayCache */
        err = wh_replay_model_make(ptemp, config->cfg->replay_cache_provider,
                                   config->cfg->replay_cache_args, &m);
        if (err) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00966)
                         "WirehookConfig %s: ReplayCache %s: %s", config->path,
                         spec_of(ptemp, config->cfg), err);
            bad = 1;
            continue;
        }
        if ((strcmp(m.provider, "dbm") == 0 || strcmp(m.provider, "shmcb") == 0)
            && ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, m.provider,
                                  AP_SOCACHE_PROVIDER_VERSION) == NULL) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00931)
                         "WirehookConfig %s: ReplayCache provider '%s' is not "
                         "available: load its module (LoadModule "
                         "socache_%s_module .../mod_socache_%s.so)",
                         config->path, m.provider, m.provider, m.provider);
            bad = 1;
        }
        if ((file = store_file(ptemp, &m)) != NULL
            && (net = wh_fs_network(file)) != NULL) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00994)
                         "WirehookConfig %s: ReplayCache %s: %s is on a "
                         "network file system (%s), where its locks and its "
                         "shared map hold for no one: a store several servers "
                         "share is redis, memcache, pgsql or mysql; one "
                         "server's lmdb or dbm file belongs on a local disk",
                         config->path, spec_of(ptemp, config->cfg), file, net);
            bad = 1;
        }
    }
    return bad ? HTTP_INTERNAL_SERVER_ERROR : OK;
}

/* ---- post_config ----------------------------------------------------- */

static int replay_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                              apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG)
        return OK;
    apr_hash_t *configs = wh_mod_configs(pconf);
    apr_hash_t *by_key = replay_stores(pconf);
    int index = (int)apr_hash_count(by_key);
    apr_hash_index_t *hi;

    /* One store per distinct ReplayCache, sized for the longest window and
     * judged by the largest tolerance of the configurations sharing it; its
     * claims hold for the longest lease (none lapses while a configuration
     * sharing it expects it to hold). */
    for (hi = apr_hash_first(ptemp, configs); hi; hi = apr_hash_next(hi)) {
        wh_mod_config *config = apr_hash_this_val(hi);
        const wh_config *cfg = config->cfg;
        const char *args = cfg->replay_cache_args, *key;
        wh_mod_replay *rp;

        config->replay = NULL;
        if (!config->app_use)
            continue;
        if (cfg->replay_cache_provider && !args
            && (strcmp(cfg->replay_cache_provider, "pgsql") == 0
                || strcmp(cfg->replay_cache_provider, "mysql") == 0))
            args = cfg->inbox_params;   /* the inbox's own database */
        key = apr_pstrcat(pconf, cfg->replay_cache_provider
                                 ? cfg->replay_cache_provider : "lmdb",
                          ":", args ? args : "", NULL);
        if ((rp = apr_hash_get(by_key, key, APR_HASH_KEY_STRING)) == NULL) {
            rp = apr_pcalloc(pconf, sizeof(*rp));
            rp->key = key;
            rp->spec = spec_of(pconf, cfg);
            rp->index = index++;
            if (wh_replay_model_make(pconf, cfg->replay_cache_provider,
                                     cfg->replay_cache_args, &rp->model)) {
                rp->model.provider = "";   /* check_config reported it */
            }
            rp->conninfo = args;
            apr_hash_set(by_key, rp->key, APR_HASH_KEY_STRING, rp);
        }
        if (cfg->replay_window > rp->window)
            rp->window = cfg->replay_window;
        if (cfg->timestamp_tolerance > rp->tolerance)
            rp->tolerance = cfg->timestamp_tolerance;
        if (apr_time_from_sec(cfg->replay_lease) > rp->lease)
            rp->lease = apr_time_from_sec(cfg->replay_lease);
        config->replay = rp;
    }
    for (hi = apr_hash_first(ptemp, configs); hi; hi = apr_hash_next(hi)) {
        wh_mod_config *config = apr_hash_this_val(hi);
        wh_mod_replay *rp = config->replay;
        int rc = OK;
        if (rp == NULL || rp->lmdb || rp->sc || rp->store)
            continue;
        /* the default store before lmdb was dbm's default file: an lmdb
         * store replacing it knows none of its ids, so it is not new */
        if (strcmp(rp->model.provider, "lmdb") == 0)
            rc = wh_mod_lmdb_create(
                pconf, ptemp, s, &rp->model, rp->spec, config->path,
                rp->tolerance,
                wh_mod_socache_dbm_exists(ptemp, wh_mod_socache_dbm_path(ptemp, NULL)),
                &rp->lmdb);
        else if (strcmp(rp->model.provider, "dbm") == 0
                 || strcmp(rp->model.provider, "shmcb") == 0)
            rc = wh_mod_socache_create(pconf, ptemp, s, &rp->model, rp->spec,
                                       config->path, rp->index, rp->window,
                                       &rp->sc);
        /* the shared stores connect in each child, never in the parent
         * (a connection must not cross fork) */
        if (rc != OK)
            return rc;
        ap_log_error(APLOG_MARK, APLOG_DEBUG, 0, s, WHLOGNO(00962)
                     "ReplayCache %s (WirehookConfig %s): %s", rp->spec,
                     config->path,
                     wh_replay_model_describe(ptemp, &rp->model, rp->window,
                                              rp->tolerance));
    }
    return OK;
}

/* ---- child_init ------------------------------------------------------ */

/* The renewer's word on a claim it could not renew. */
static void renewer_log(void *baton, wh_log_level level, const char *msg)
{
    ap_log_error(APLOG_MARK, level <= WH_LOG_ERROR ? APLOG_ERR
                             : level == WH_LOG_WARN ? APLOG_WARNING
                                                    : APLOG_INFO,
                 0, (server_rec *)baton, WHLOGNO(00998) "%s", msg);
}

/* The settle list's word: a claim released or confirmed late, or one it
 * could not remember. */
static void settle_log(void *baton, wh_log_level level, const char *msg)
{
    ap_log_error(APLOG_MARK, level <= WH_LOG_ERROR ? APLOG_ERR
                             : level == WH_LOG_WARN ? APLOG_WARNING
                                                    : APLOG_INFO,
                 0, (server_rec *)baton, WHLOGNO(01002) "%s", msg);
}

/* A shared store for this child: its connections are its own. */
static wh_replay_store *open_shared(wh_mod_replay *rp, apr_pool_t *pchild,
                                    server_rec *s)
{
    const char *err = NULL;
    wh_replay_store *st = NULL;
    int threads = 1;

    /* a connection per thread busy with a claim at once, at most a few */
    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) != APR_SUCCESS || threads < 1)
        threads = 1;
    if (threads > WH_REPLAY_NET_CONNS_MAX)
        threads = WH_REPLAY_NET_CONNS_MAX;
    err = wh_replay_shared_open(pchild, &rp->model, rp->conninfo, threads, &st);
    if (err)
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00996)
                     "ReplayCache %s: %s (every notification is answered 503)",
                     rp->spec, err);
    return err ? NULL : st;
}

static void replay_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_hash_t *by_key = replay_stores(s->process->pconf);
    apr_interval_time_t shortest = 0;   /* of the stores that renew */
    const char *err;

    child_renewer = NULL;
    child_settle = NULL;
    child_holders_ok = (err = wh_replay_holders_init(&child_holders)) == NULL;
    if (err)
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00997)
                     "replay stores: %s (every notification is answered 503 "
                     "by a store that needs them)", err);
    for (apr_hash_index_t *hi = apr_hash_first(pchild, by_key); hi;
         hi = apr_hash_next(hi)) {
        wh_mod_replay *rp = apr_hash_this_val(hi);
        rp->store = NULL;
        if (rp->lmdb)
            rp->store = wh_mod_lmdb_child_init(rp->lmdb, pchild, s, rp->lease);
        else if (rp->sc)
            rp->store = wh_mod_socache_child_init(rp->sc, pchild, s);
        else if (rp->model.shared)
            rp->store = open_shared(rp, pchild, s);
        if (rp->store && rp->store->ops->renew
            && (shortest == 0 || rp->lease < shortest))
            shortest = rp->lease;
    }
    /* every claim is renewed well within its own lease */
    if (shortest > 0) {
        wh_logger lg = { renewer_log, s }, slg = { settle_log, s };
        err = wh_replay_renewer_create(pchild, &lg, &child_renewer);
        if (!err && (err = wh_replay_settle_create(pchild, 0, &slg,
                                                   &child_settle)) == NULL)
            wh_replay_renewer_settle(child_renewer, child_settle);
        if (!err)
            err = wh_replay_renewer_start(child_renewer, shortest / 3);
        if (err)
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00999)
                         "replay stores: %s: a delivery longer than %"
                         APR_TIME_T_FMT " s may lose its claim",
                         err, apr_time_sec(shortest));
    }
}

/* ---- per request ----------------------------------------------------- */

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

/* The request is gone (its claim ended, or the request pool went first):
 * its claim leaves the renewer. */
static apr_status_t claim_cleanup(void *data)
{
    wh_mod_claim *cl = data;
    if (cl->open && child_renewer)
        wh_replay_renewer_remove(child_renewer, cl->open);
    cl->open = NULL;
    return APR_SUCCESS;
}

/* What the store said, in the log. */
static void log_claim(request_rec *r, const wh_mod_replay *rp,
                      const wh_facts *f, wh_claim_result res,
                      const wh_claim_info *info)
{
    const char *id = f->notification_id;

    if (info->emptied)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00957)
                      "ReplayCache %s has no epoch marker: it was emptied (a "
                      "restarted or flushed server, a lost file) and "
                      "remembers nothing from before now; notifications "
                      "signed in the next %" APR_INT64_T_FMT " s are answered "
                      "503 (a new store: wirehook replay init)", rp->spec,
                      rp->tolerance);
    switch (res) {
    case WH_CLAIM_FIRST:
        break;
    case WH_CLAIM_DUPLICATE:
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00942)
                      "duplicate: notificationId=%s code=duplicate "
                      "(seen within ReplayWindow, not delivered)", id);
        break;
    case WH_CLAIM_IN_PROGRESS:
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, WHLOGNO(00944)
                      "notificationId=%s: another copy is being delivered; "
                      "answered 503", id);
        break;
    case WH_CLAIM_PREDATES:
        log_predates(r, rp, f, info->since);
        break;
    case WH_CLAIM_FULL:
        if (rp->lmdb)
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00980)
                          "refused notificationId=%s: ReplayCache %s is full "
                          "(%s; recording one more would need evicting one "
                          "inside ReplayWindow): give it a larger map, as in "
                          "ReplayCache lmdb:/path(%" APR_SIZE_T_FMT ")",
                          id, rp->spec, info->err ? info->err : "-",
                          rp->model.map_size * 2);
        else
            ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00965)
                          "refused notificationId=%s: ReplayCache %s is full "
                          "(%s): give it more memory, or use lmdb", id,
                          rp->spec, info->err ? info->err : "-");
        break;
    case WH_CLAIM_ERROR:
    default:
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00940)
                      "replay store %s: lookup failed for notificationId=%s: "
                      "%s%s", rp->spec, id, info->err ? info->err : "-",
                      info->lost ? " (the claim was sent without an answer: "
                                   "if the store made it, it is released when "
                                   "the store answers again)" : "");
        break;
    }
}

/* The store is owed kind for holder's claim on id: the renewal thread
 * settles it once the store answers. 0, or -1 (nothing remembers it: the
 * claim lapses after its lease). */
static int owe(wh_mod_replay *rp, wh_settle_kind kind, const char *id,
               const char *holder, apr_int64_t window)
{
    if (!child_settle || !holder
        || wh_replay_settle_add(child_settle, rp->store, kind, id, holder,
                                window, apr_time_now()) != 0)
        return -1;
    wh_replay_renewer_poke(child_renewer);
    return 0;
}

/* A claim made: kept for its end, and renewed while the delivery runs. */
static wh_mod_claim *new_claim(request_rec *r, wh_mod_replay *rp,
                               const wh_claim *c)
{
    const char *id = c->id, *holder = c->holder;
    wh_mod_claim *cl = apr_pcalloc(r->pool, sizeof(*cl));

    cl->rp = rp;
    cl->pool = r->pool;
    cl->id = id;
    cl->holder = holder;
    if (holder && child_renewer) {
        cl->open = wh_replay_renewer_add(child_renewer, rp->store, id, holder,
                                         c->lease);
        if (cl->open)
            apr_pool_cleanup_register(r->pool, cl, claim_cleanup,
                                      apr_pool_cleanup_null);
    }
    return cl;
}

void wh_mod_replay_check(request_rec *r, wh_mod_replay *rp,
                         const wh_config *cfg, wh_verdict *v,
                         wh_mod_claim **out)
{
    const wh_facts *f = &v->facts;
    const char *id = f->notification_id;
    wh_claim c;
    wh_claim_info info;
    wh_claim_result res;
    int wake = 0;

    *out = NULL;
    if (rp == NULL || rp->store == NULL || id == NULL || *id == '\0') {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, WHLOGNO(00937)
                      "replay store %s not usable in this process (see the "
                      "startup log)", rp ? rp->spec : "-");
        wh_replay_verdict_unavailable(v);
        return;
    }
    c.id = id;
    c.holder = NULL;
    if (rp->store->ops->renew) {
        if (!child_holders_ok) {
            wh_replay_verdict_unavailable(v);
            return;
        }
        c.holder = wh_replay_holder_next(r->pool, &child_holders);
    }
    c.signed_at = f->signed_at;
    c.tolerance_sec = rp->tolerance;
    c.window_sec = cfg->replay_window;
    c.lease = rp->lease;

    /* a claim whose answer is lost is owed a release; one that finds the
     * id held by a claim this child owes a release settles it and claims
     * again (c.holder may change) */
    res = wh_replay_settle_claim(child_settle, rp->store, r->pool,
                                 &child_holders, &c, &info, &wake);
    if (wake)
        wh_replay_renewer_poke(child_renewer);
    log_claim(r, rp, f, res, &info);
    if (res == WH_CLAIM_FIRST)
        *out = new_claim(r, rp, &c);
    wh_replay_verdict(v, &c, res, &info, apr_time_now());
}

/* The claim leaves the renewer first: once the store has its outcome, a
 * renewal could only be refused. */
static void end_claim(wh_mod_claim *cl)
{
    if (cl->open) {
        apr_pool_cleanup_kill(cl->pool, cl, claim_cleanup);
        (void)claim_cleanup(cl);
    }
}

void wh_mod_replay_confirm(request_rec *r, wh_mod_claim *cl,
                           const wh_config *cfg)
{
    const char *err = NULL;
    wh_mod_replay *rp = cl ? cl->rp : NULL;

    if (rp == NULL || rp->store == NULL)
        return;
    end_claim(cl);
    if (rp->store->ops->confirm(rp->store, r->pool, cl->id, cl->holder,
                                cfg->replay_window, &err) != 0)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00945)
                      "replay store %s: cannot confirm notificationId=%s "
                      "(%s): %s", rp->spec, cl->id, err ? err : "-",
                      owe(rp, WH_SETTLE_CONFIRM, cl->id, cl->holder,
                          cfg->replay_window) == 0
                      ? "confirmed when the store answers again"
                      : "its claim stays, and lapses");
}

void wh_mod_replay_forget(request_rec *r, wh_mod_claim *cl)
{
    const char *err = NULL;
    wh_mod_replay *rp = cl ? cl->rp : NULL;

    if (rp == NULL || rp->store == NULL)
        return;
    end_claim(cl);
    if (rp->store->ops->forget(rp->store, r->pool, cl->id, cl->holder, &err) < 0)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00943)
                      "replay store %s: cannot remove notificationId=%s (%s): "
                      "%s", rp->spec, cl->id, err ? err : "-",
                      owe(rp, WH_SETTLE_RELEASE, cl->id, cl->holder, 0) == 0
                      ? "removed when the store answers again"
                      : "its claim lapses after its lease");
}

wh_mod_replay *wh_mod_replay_of_claim(const wh_mod_claim *cl)
{
    return cl ? cl->rp : NULL;
}

const char *wh_mod_replay_provider(const wh_mod_replay *rp)
{
    return rp && rp->model.provider && *rp->model.provider ? rp->model.provider
                                                           : "-";
}

int wh_mod_replay_fill(const wh_mod_replay *rp, apr_uint64_t *live,
                       apr_uint64_t *capacity)
{
    if (rp == NULL || rp->store == NULL || rp->store->ops->fill == NULL)
        return -1;
    return rp->store->ops->fill(rp->store, live, capacity);
}

int wh_mod_replay_health(const wh_mod_replay *rp, apr_pool_t *p)
{
    const char *err = NULL;
    if (rp == NULL || rp->store == NULL)
        return -1;
    if (rp->store->ops->health == NULL)
        return 0;
    return rp->store->ops->health(rp->store, p, &err);
}

void wh_mod_replay_register(void)
{
    /* mod_socache's providers register in their own pre_config */
    static const char *const after_socache[] = {
        "mod_socache_shmcb.c", "mod_socache_dbm.c", NULL
    };
    ap_hook_pre_config(replay_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(replay_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(replay_post_config, after_socache, NULL,
                        APR_HOOK_MIDDLE);
    ap_hook_child_init(replay_child_init, NULL, NULL, APR_HOOK_MIDDLE);
}
