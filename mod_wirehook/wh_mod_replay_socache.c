/* ReplayCache dbm and shmcb through httpd's mod_socache providers (see
 * wh_mod_replay_socache.h). What each can promise, and the rules that keep
 * the promise where it cannot, are the core's (shared/replay/wh_replay.c);
 * this file does the socache calls:
 *
 *   post_config  one socache instance, global mutex and ledger (shared
 *                memory) per store; dbm's epoch marker is read or written
 *   child_init   re-attach the global mutex
 *
 * dbm persists: its file outlives restarts, so the instance is never
 * destroyed (mod_socache_dbm's destroy deletes the file). It carries an
 * epoch marker: a file found without one was emptied behind httpd's back
 * (a deleted file) and remembers only from then. Its claims are "P" and
 * the delivery's holder token, stored for the lease and renewed while the
 * delivery runs (wh_replay_renew.h), confirmed ("1", for the window) or
 * removed after it. shmcb lives in shared memory for one configuration
 * generation: its ledger refuses the id that would make it evict, and for
 * TimestampTolerance after each start it refuses notifications signed
 * before then; a second write of an id would take a second place in its
 * ring and break the capacity it promises, so it records an id confirmed
 * at once (no claim).
 *
 * Every call runs under the global mutex, after a process-local one that
 * queues this child's threads first. */
#include "wh_mod_replay_socache.h"
#include "wh_mod_replay.h"

#include "http_core.h"
#include "ap_provider.h"
#include "ap_socache.h"
#include "util_mutex.h"
#include "verify/wh_fs.h"
#include <apr_dbm.h>
#include <apr_global_mutex.h>
#include <apr_shm.h>
#include <apr_strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define WH_REPLAY_NAMESPACE "wirehook-replay"
/* mod_socache_dbm's expiry sweep (a scan of the whole file) at most this
 * often. */
#define WH_REPLAY_EXPIRY_INTERVAL apr_time_from_sec(60)
#define WH_MARKER_MAX 128

/* A file as the marker was read from it: where it is, and when it was
 * made (see dbm_same_file). */
typedef struct {
    dev_t dev;
    ino_t ino;
    long long born_sec;
    unsigned born_nsec;
} file_id;

struct wh_mod_socache {
    const char *spec;
    wh_replay_model model;
    int is_dbm;
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
    server_rec *s;                      /* per child: the main server */
    /* dbm: the file as it was when its marker was last read, per child */
    const char *dbm_file;
    apr_time_t marker_since;
    file_id marker_file;
    int marker_seen;
    wh_replay_store store;
};

static apr_status_t instance_destroy(void *data)
{
    wh_mod_socache *sc = data;
    if (sc->instance && sc->provider) {
        sc->provider->destroy(sc->instance, NULL);
        sc->instance = NULL;
    }
    return APR_SUCCESS;
}

/* ---- the dbm file ---------------------------------------------------- */

const char *wh_mod_socache_dbm_path(apr_pool_t *p, const char *args)
{
    if (args && *args)
        return ap_server_root_relative(p, args);
    return ap_runtime_dir_relative(p, WH_REPLAY_NAMESPACE);
}

int wh_mod_socache_dbm_exists(apr_pool_t *p, const char *path)
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
static apr_status_t retrieve(wh_mod_socache *sc, const unsigned char *key,
                             unsigned int keylen, unsigned char *val,
                             unsigned int *vallen, apr_pool_t *p)
{
    apr_status_t rv = sc->provider->retrieve(sc->instance, sc->s, key, keylen,
                                             val, vallen, p);
    if (rv == APR_EGENERAL && sc->is_dbm)
        return APR_NOTFOUND;
    return rv;
}

/* ---- the epoch marker ------------------------------------------------ */

static apr_status_t marker_store(wh_mod_socache *sc, server_rec *s,
                                 apr_time_t since, apr_time_t now,
                                 apr_pool_t *p)
{
    const char *v = wh_replay_marker_encode(p, since, now);
    return sc->provider->store(sc->instance, s,
                               (const unsigned char *)WH_REPLAY_MARKER_KEY,
                               sizeof(WH_REPLAY_MARKER_KEY) - 1,
                               now + WH_REPLAY_MARKER_TTL,
                               (unsigned char *)v, (unsigned int)strlen(v), p);
}

/* A dbm store is emptied only by losing its file (mod_socache_dbm
 * recreates a missing one empty): while the file is the one the marker was
 * last read from, the marker needs no new reading — a stat instead of
 * opening the database. A file recreated after a deletion may get the
 * deleted one's inode number (ext4 hands a freed inode out again), so its
 * birth time is compared too where the file system records one. Called
 * under the replay mutex. */
static int file_id_of(const char *path, file_id *id)
{
    struct statx sx;

    memset(id, 0, sizeof(*id));
    if (statx(AT_FDCWD, path, 0, STATX_INO | STATX_BTIME, &sx) != 0)
        return -1;
    id->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    id->ino = (ino_t)sx.stx_ino;
    if (sx.stx_mask & STATX_BTIME) {
        id->born_sec = sx.stx_btime.tv_sec;
        id->born_nsec = sx.stx_btime.tv_nsec;
    }
    return 0;
}

static int dbm_same_file(wh_mod_socache *sc, int remember)
{
    file_id now;
    if (sc->dbm_file == NULL || file_id_of(sc->dbm_file, &now) != 0)
        return 0;
    if (remember) {
        sc->marker_file = now;
        sc->marker_seen = 1;
        return 1;
    }
    return sc->marker_seen && now.dev == sc->marker_file.dev
           && now.ino == sc->marker_file.ino
           && now.born_sec == sc->marker_file.born_sec
           && now.born_nsec == sc->marker_file.born_nsec;
}

/* When the store's memory began, from its marker; a store without one was
 * emptied behind our back and begins now (*emptied). 0, or -1 when the
 * store fails. Under the mutex. */
static int marker_since(wh_mod_socache *sc, apr_pool_t *p, apr_time_t now,
                        apr_time_t *since, int *emptied)
{
    unsigned char val[WH_MARKER_MAX];
    unsigned int len = sizeof(val) - 1;
    apr_time_t set = 0;
    apr_status_t rv = retrieve(sc, (const unsigned char *)WH_REPLAY_MARKER_KEY,
                               sizeof(WH_REPLAY_MARKER_KEY) - 1, val, &len, p);

    if (rv == APR_SUCCESS
        && wh_replay_marker_decode((const char *)val, len, since, &set) == 0) {
        if (now - set > WH_REPLAY_MARKER_REFRESH)
            (void)marker_store(sc, sc->s, *since, now, p);
        sc->marker_since = *since;
        (void)dbm_same_file(sc, 1);
        return 0;
    }
    if (rv != APR_SUCCESS && rv != APR_NOTFOUND)
        return -1;
    *since = now;
    *emptied = 1;
    if (marker_store(sc, sc->s, now, now, p) != APR_SUCCESS)
        return -1;
    sc->marker_since = now;
    (void)dbm_same_file(sc, 1);
    return 0;
}

/* ---- post_config ----------------------------------------------------- */

int wh_mod_socache_create(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                          const wh_replay_model *m, const char *spec,
                          const char *config_path, int index,
                          apr_int64_t window, wh_mod_socache **out)
{
    wh_mod_socache *sc = apr_pcalloc(pconf, sizeof(*sc));
    struct ap_socache_hints hints = {0};
    apr_shm_t *shm = NULL;
    const char *err, *id, *dbm_file = NULL;
    apr_time_t now = apr_time_now(), since = 0;
    int fresh_file = 0;
    apr_status_t rv;

    sc->spec = spec;
    sc->model = *m;
    sc->is_dbm = strcmp(m->provider, "dbm") == 0;
    sc->provider = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, m->provider,
                                      AP_SOCACHE_PROVIDER_VERSION);
    if (sc->provider == NULL) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00932)
                     "WirehookConfig %s: ReplayCache provider '%s' is not "
                     "loaded", config_path, m->provider);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (sc->is_dbm) {
        const char *used1 = NULL, *used2 = NULL;
        dbm_file = wh_mod_socache_dbm_path(pconf, m->args);
        fresh_file = !wh_mod_socache_dbm_exists(ptemp, dbm_file);
        sc->model.args = dbm_file;
        apr_dbm_get_usednames(pconf, dbm_file, &used1, &used2);
        sc->dbm_file = used1;          /* the file the driver really opens */
    }
    err = sc->provider->create(&sc->instance, sc->model.args, ptemp, pconf);
    if (err) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00933)
                     "WirehookConfig %s: ReplayCache %s: %s", config_path,
                     spec, err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    id = apr_psprintf(ptemp, "%d", index);
    rv = ap_global_mutex_create(&sc->mutex, &sc->lockfile, WH_MOD_MUTEX_TYPE,
                                id, s, pconf, 0);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00934)
                     "WirehookConfig %s: cannot create the replay mutex",
                     config_path);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    hints.avg_id_len = sc->model.hint_id_len;
    hints.avg_obj_size = sc->model.hint_obj_size;
    hints.expiry_interval = WH_REPLAY_EXPIRY_INTERVAL;
    rv = sc->provider->init(sc->instance, WH_REPLAY_NAMESPACE, &hints, s, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00935)
                     "WirehookConfig %s: cannot initialise ReplayCache %s",
                     config_path, spec);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* The dbm file is the store's memory across restarts: never let
     * mod_socache_dbm delete it. */
    if (dbm_file == NULL)
        apr_pool_cleanup_register(pconf, sc, instance_destroy,
                                  apr_pool_cleanup_null);

    rv = apr_shm_create(&shm, wh_replay_ledger_size(sc->model.partitions),
                        NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00958)
                     "WirehookConfig %s: cannot create the replay ledger's "
                     "shared memory", config_path);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* shmcb's memory begins now, empty; the others' since is their marker */
    if (!sc->model.uses_marker)
        since = now;
    sc->ledger = wh_replay_ledger_init(apr_shm_baseaddr_get(shm),
                                       sc->model.partitions,
                                       sc->model.per_partition, window, since);

    /* A file store can be asked here, before the children exist. A file
     * this start created is new — nothing was ever accepted before it —
     * unless it lives in a RAM file system, which a reboot empties. */
    if (dbm_file) {
        unsigned char val[WH_MARKER_MAX];
        unsigned int len = sizeof(val) - 1;
        apr_time_t set;
        sc->s = s;
        rv = retrieve(sc, (const unsigned char *)WH_REPLAY_MARKER_KEY,
                      sizeof(WH_REPLAY_MARKER_KEY) - 1, val, &len, ptemp);
        if (rv != APR_SUCCESS
            || wh_replay_marker_decode((const char *)val, len, &since, &set) != 0) {
            int trusted = fresh_file && !wh_fs_on_ram(dbm_file);
            since = trusted ? 0 : now;
            if (marker_store(sc, s, since, now, ptemp) != APR_SUCCESS) {
                ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00959)
                             "WirehookConfig %s: ReplayCache %s: cannot write "
                             "to %s", config_path, spec, dbm_file);
                return HTTP_INTERNAL_SERVER_ERROR;
            }
            ap_log_error(APLOG_MARK, trusted ? APLOG_NOTICE : APLOG_WARNING, 0,
                         s, WHLOGNO(00960) "ReplayCache %s: %s", spec,
                         trusted ? "a new store: it remembers every "
                                   "notificationId from now on"
                                 : "the file was empty or unmarked (lost, or "
                                   "in a RAM file system a reboot empties): "
                                   "notifications signed before TimestampTolerance "
                                   "from now are answered 503");
        }
        if (wh_fs_on_ram(dbm_file))
            ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00961)
                         "ReplayCache %s: %s is in a RAM file system: a reboot "
                         "empties it (then notifications are answered 503 for "
                         "TimestampTolerance); name a file on disk, as in "
                         "ReplayCache dbm:/var/lib/wirehook/replay", spec,
                         dbm_file);
    }
    *out = sc;
    return OK;
}

/* ---- the store ------------------------------------------------------- */

/* The process-local mutex, then the global one (see wh_mod_socache.local). */
static apr_status_t lock(wh_mod_socache *sc)
{
    if (sc->local && apr_thread_mutex_lock(sc->local) != APR_SUCCESS)
        return APR_EGENERAL;
    apr_status_t rv = apr_global_mutex_lock(sc->mutex);
    if (rv != APR_SUCCESS && sc->local)
        apr_thread_mutex_unlock(sc->local);
    return rv;
}

static void unlock(wh_mod_socache *sc)
{
    apr_global_mutex_unlock(sc->mutex);
    if (sc->local)
        apr_thread_mutex_unlock(sc->local);
}

static const char *status_text(apr_pool_t *p, const char *what, apr_status_t rv)
{
    char buf[120];
    return apr_psprintf(p, "%s: %s", what, apr_strerror(rv, buf, sizeof(buf)));
}

/* May a new id be stored without breaking the promise? Under the mutex.
 * WH_CLAIM_FIRST, or the answer. */
static wh_claim_result admit(wh_mod_socache *sc, apr_pool_t *p,
                             const wh_claim *c, unsigned partition,
                             apr_time_t now, wh_claim_info *info)
{
    apr_time_t since = wh_replay_ledger_since(sc->ledger);

    if (sc->model.uses_marker && dbm_same_file(sc, 0))
        since = sc->marker_since;
    else if (sc->model.uses_marker
             && marker_since(sc, p, now, &since, &info->emptied) != 0) {
        info->err = "its epoch marker cannot be read or written";
        return WH_CLAIM_ERROR;
    }
    if (wh_replay_predates(c->signed_at, since, c->tolerance_sec)) {
        info->since = since;
        return WH_CLAIM_PREDATES;
    }
    if (!wh_replay_ledger_admit(sc->ledger, partition, now)) {
        apr_time_t room = wh_replay_ledger_room_at(sc->ledger, partition, now);
        info->err = apr_psprintf(p, "subcache %u holds %" APR_UINT64_T_FMT
                                 " live ids; storing one more would evict one "
                                 "inside ReplayWindow", partition,
                                 sc->model.per_partition);
        info->retry_in = room > now ? room - now : 0;
        return WH_CLAIM_FULL;
    }
    return WH_CLAIM_FIRST;
}

static wh_claim_result sc_claim(wh_replay_store *st, apr_pool_t *p,
                                const wh_claim *c, wh_claim_info *info)
{
    wh_mod_socache *sc = st->impl;
    const unsigned char *key;
    unsigned int keylen, partition;
    unsigned char val[WH_MARKER_MAX];
    unsigned int vallen = sizeof(val);
    wh_claim_result res;
    apr_time_t now;
    apr_status_t rv;

    memset(info, 0, sizeof(*info));
    wh_replay_key(p, &sc->model, c->id, &key, &keylen, &partition);
    if ((rv = lock(sc)) != APR_SUCCESS) {
        info->err = status_text(p, "cannot lock the replay mutex", rv);
        return WH_CLAIM_ERROR;
    }
    now = apr_time_now();
    rv = retrieve(sc, key, keylen, val, &vallen, p);
    if (rv == APR_SUCCESS) {
        int mine;
        wh_net_state s = wh_replay_net_state((const char *)val, vallen,
                                             c->holder, &mine);
        /* a claim lapses with its lease (renewed while its delivery runs):
         * a copy after it is delivered */
        res = s == WH_NET_FREE ? WH_CLAIM_IN_PROGRESS : wh_replay_net_held(s);
    }
    else if (rv != APR_NOTFOUND) {
        res = WH_CLAIM_ERROR;
        info->err = status_text(p, "lookup failed", rv);
    }
    else if ((res = admit(sc, p, c, partition, now, info)) == WH_CLAIM_FIRST) {
        /* dbm holds a claim for the delivery's lease, confirmed (overwritten
         * in place) for the window when it succeeds; shmcb records the id
         * confirmed at once (see the file's comment) */
        const char *v = sc->is_dbm ? wh_replay_net_claim_value(p, c->holder)
                                   : WH_REPLAY_NET_CONFIRMED;
        rv = sc->provider->store(sc->instance, sc->s, key, keylen,
                                 sc->is_dbm ? now + c->lease
                                            : now + apr_time_from_sec(c->window_sec),
                                 (unsigned char *)v, (unsigned int)strlen(v), p);
        if (rv != APR_SUCCESS) {
            res = WH_CLAIM_ERROR;
            info->err = status_text(p, "store failed", rv);
        }
    }
    unlock(sc);
    return res;
}

static int sc_confirm(wh_replay_store *st, apr_pool_t *p, const char *id,
                      const char *holder, apr_int64_t window_sec,
                      const char **err)
{
    wh_mod_socache *sc = st->impl;
    const unsigned char *key;
    unsigned int keylen, partition;
    apr_status_t rv;
    (void)holder;

    if (!sc->is_dbm)
        return 0;                     /* shmcb recorded it at the claim */
    wh_replay_key(p, &sc->model, id, &key, &keylen, &partition);
    if ((rv = lock(sc)) != APR_SUCCESS) {
        *err = status_text(p, "cannot lock the replay mutex", rv);
        return -1;
    }
    /* A dbm file deleted since this child claimed the id took the claim
     * with it. Writing now would make mod_socache_dbm create the file
     * afresh, perhaps on the deleted one's inode, and the next check would
     * take it for the file its marker was read from: the store's loss
     * would go unnoticed. The next request finds it instead. */
    if (!dbm_same_file(sc, 0)) {
        unlock(sc);
        return 0;
    }
    rv = sc->provider->store(sc->instance, sc->s, key, keylen,
                             apr_time_now() + apr_time_from_sec(window_sec),
                             (unsigned char *)WH_REPLAY_NET_CONFIRMED, 1, p);
    unlock(sc);
    if (rv != APR_SUCCESS) {
        *err = status_text(p, "store failed", rv);
        return -1;
    }
    return 0;
}

/* Renew (lease > 0) or forget (lease 0) holder's claim: only while the
 * stored claim is still holder's (dbm); shmcb's confirmed id is removed
 * (its forget). 1 done, 0 not holder's, -1. */
static int compare_and(wh_mod_socache *sc, apr_pool_t *p, const char *id,
                       const char *holder, apr_interval_time_t lease,
                       const char **err)
{
    const unsigned char *key;
    unsigned int keylen, partition;
    unsigned char val[WH_MARKER_MAX];
    unsigned int vallen = sizeof(val);
    apr_status_t rv;
    int mine = 0;

    wh_replay_key(p, &sc->model, id, &key, &keylen, &partition);
    if ((rv = lock(sc)) != APR_SUCCESS) {
        *err = status_text(p, "cannot lock the replay mutex", rv);
        return -1;
    }
    if (!sc->is_dbm)
        mine = 1;
    else if ((rv = retrieve(sc, key, keylen, val, &vallen, p)) == APR_SUCCESS)
        (void)wh_replay_net_state((const char *)val, vallen, holder, &mine);
    else if (rv != APR_NOTFOUND) {
        *err = status_text(p, "lookup failed", rv);
        unlock(sc);
        return -1;
    }
    if (mine && sc->is_dbm && !dbm_same_file(sc, 0))
        mine = 0;                     /* see sc_confirm */
    if (mine && lease > 0)
        rv = sc->provider->store(sc->instance, sc->s, key, keylen,
                                 apr_time_now() + lease, val, vallen, p);
    else if (mine)
        rv = sc->provider->remove(sc->instance, sc->s, key, keylen, p);
    unlock(sc);
    if (mine && rv != APR_SUCCESS && rv != APR_NOTFOUND) {
        *err = status_text(p, lease > 0 ? "store failed" : "remove failed", rv);
        return -1;
    }
    return mine;
}

static int sc_forget(wh_replay_store *st, apr_pool_t *p, const char *id,
                     const char *holder, const char **err)
{
    return compare_and(st->impl, p, id, holder, 0, err);
}

static int sc_renew(wh_replay_store *st, apr_pool_t *p, const char *id,
                    const char *holder, apr_interval_time_t lease,
                    const char **err)
{
    return compare_and(st->impl, p, id, holder, lease, err);
}

static int sc_fill(wh_replay_store *st, apr_uint64_t *live,
                   apr_uint64_t *capacity)
{
    wh_mod_socache *sc = st->impl;
    if (sc->ledger == NULL)
        return -1;
    /* read without the lock: a display, not a decision */
    wh_replay_ledger_fill(sc->ledger, apr_time_now(), live, capacity, NULL);
    return 0;
}

static const wh_replay_store_ops dbm_ops = {
    "dbm", sc_claim, sc_confirm, sc_forget, sc_renew, sc_fill, NULL, NULL
};
static const wh_replay_store_ops shmcb_ops = {
    "shmcb", sc_claim, sc_confirm, sc_forget, NULL, sc_fill, NULL, NULL
};

wh_replay_store *wh_mod_socache_child_init(wh_mod_socache *sc,
                                           apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv = apr_global_mutex_child_init(
        &sc->mutex, apr_global_mutex_lockfile(sc->mutex), pchild);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, WHLOGNO(00936)
                     "cannot re-attach the replay mutex %s", sc->spec);
        return NULL;
    }
    /* Without it (never in practice) the global mutex alone still
     * serializes correctly, only with more contention. */
    if (apr_thread_mutex_create(&sc->local, APR_THREAD_MUTEX_DEFAULT, pchild)
        != APR_SUCCESS)
        sc->local = NULL;
    sc->s = s;
    sc->store.ops = sc->is_dbm ? &dbm_ops : &shmcb_ops;
    sc->store.impl = sc;
    return &sc->store;
}
