/* ReplayCache lmdb in httpd: wirehook's own store (shared/replay/wh_replay_lmdb.h)
 * through httpd's lifecycle. The parent prepares the file before the
 * children exist (applies the trust rule, creates it, hands it to the
 * User httpd runs as); each child opens its own LMDB environment (never
 * across fork); a clean stop syncs it and marks it clean. No wirehook
 * mutex: LMDB's write transaction is the lock, and "record unless held"
 * is one transaction, so two copies arriving at once on different
 * workers are delivered once. */
#include "wh_mod_replay_lmdb.h"

#include "http_core.h"
#include "unixd.h"
#include "replay/wh_replay.h"
#include "replay/wh_replay_lmdb.h"
#include "replay/wh_replay_fs.h"
#include <apr_strings.h>
#include <unistd.h>

#include "wh_mod_build.h"   /* WH_REPLAY_DEFAULT_PATH (apxs.mk) */

#define WH_LMDB_DEFAULT_FILE "wirehook-replay.mdb"

struct wh_mod_lmdb {
    const char *spec;
    const char *path;
    apr_size_t map_size;
    apr_time_t since;          /* when its memory began (0: known new) */
    apr_int64_t tolerance;
    pid_t parent;              /* the process that prepared it */
    wh_replay_lmdb *db;        /* per child */
    const char *open_error;    /* per child: why db is NULL */
};

/* Children run as User/Group: the files the parent (root) created must be
 * theirs, as mod_socache_dbm does for its file. */
static void give_to_user(server_rec *s, const char *file)
{
    if (geteuid() != 0)
        return;
    if (chown(file, ap_unixd_config.user_id, ap_unixd_config.group_id) != 0)
        ap_log_error(APLOG_MARK, APLOG_ERR, errno, s, WHLOGNO(00971)
                     "ReplayCache lmdb: cannot give %s to the user httpd "
                     "runs as", file);
}

/* A clean stop: synced and marked clean, so that a reboot after it keeps
 * the ids. */
static apr_status_t mark_clean(void *data)
{
    wh_mod_lmdb *l = data;
    apr_pool_t *p;
    /* children tear pconf down too as they exit (httpd's atexit
     * apr_terminate) while the others go on writing: only the parent's
     * stop is a stop */
    if (getpid() != l->parent)
        return APR_SUCCESS;
    /* a graceful restart or the startup's first configuration pass:
     * children go on writing (old ones) or are about to (new ones) */
    if (ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_EXITING)
        return APR_SUCCESS;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS)
        return APR_SUCCESS;
    const char *err = wh_replay_lmdb_mark_clean(p, l->path, l->map_size);
    if (err)
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, NULL, WHLOGNO(00972)
                     "ReplayCache %s: not marked clean (%s): after a reboot "
                     "it will not be trusted", l->spec, err);
    apr_pool_destroy(p);
    return APR_SUCCESS;
}

/* A build-time setting (make REPLAY_DEFAULT=PATH): the Debian package's
 * is /var/lib/wirehook/replay, a directory it makes, on disk. Without one,
 * DefaultRuntimeDir, which is a RAM file system on many systems (the
 * module then warns at start, WH00982). */
const char *wh_mod_lmdb_default_path(apr_pool_t *p)
{
    if (WH_REPLAY_DEFAULT_PATH[0])
        return ap_server_root_relative(p, WH_REPLAY_DEFAULT_PATH);
    return ap_runtime_dir_relative(p, WH_LMDB_DEFAULT_FILE);
}

int wh_mod_lmdb_create(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                       const wh_replay_model *m, const char *spec,
                       const char *site_path, apr_int64_t tolerance,
                       int predecessor, wh_mod_lmdb **out)
{
    wh_mod_lmdb *l = apr_pcalloc(pconf, sizeof(*l));
    wh_lmdb_trust trust;
    const char *err;

    l->spec = spec;
    l->path = m->path && *m->path ? ap_server_root_relative(pconf, m->path)
                                  : wh_mod_lmdb_default_path(pconf);
    l->map_size = m->map_size;
    l->tolerance = tolerance;
    l->parent = getpid();
    if (l->path == NULL) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00973)
                     "WirehookConfig %s: ReplayCache %s: invalid path",
                     site_path, spec);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    err = wh_replay_lmdb_prepare(ptemp, l->path, l->map_size, apr_time_now(),
                                 predecessor, &l->since, &trust);
    if (err) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00974)
                     "WirehookConfig %s: ReplayCache %s: %s", site_path,
                     spec, err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    give_to_user(s, l->path);
    give_to_user(s, wh_replay_lmdb_lockfile(ptemp, l->path));
    switch (trust) {
    case WH_LMDB_TRUST_NEW:
        ap_log_error(APLOG_MARK, APLOG_NOTICE, 0, s, WHLOGNO(00975)
                     "ReplayCache %s: a new store (%s): it remembers every "
                     "notificationId from now on", spec, l->path);
        break;
    case WH_LMDB_TRUST_KEEP:
        break;
    case WH_LMDB_TRUST_LOST:
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00976)
                     "ReplayCache %s: %s was gone (deleted, or in a RAM file "
                     "system a reboot empties): notifications signed before "
                     "%" APR_INT64_T_FMT " s from now are answered 503",
                     spec, l->path, tolerance);
        break;
    case WH_LMDB_TRUST_DISCARD:
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00977)
                     "ReplayCache %s: %s was discarded: the machine went down "
                     "without httpd stopping cleanly (or its state file is "
                     "missing), so its unsynced ids cannot be trusted; "
                     "notifications signed before %" APR_INT64_T_FMT " s from "
                     "now are answered 503", spec, l->path, tolerance);
        break;
    }
    if (wh_replay_on_ram_fs(l->path))
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s, WHLOGNO(00982)
                     "ReplayCache %s: %s is in a RAM file system: a reboot "
                     "empties it (then notifications are answered 503 for "
                     "%" APR_INT64_T_FMT " s after the start); name a file on "
                     "disk, as in ReplayCache lmdb:/var/lib/wirehook/replay",
                     spec, l->path, tolerance);
    apr_pool_cleanup_register(pconf, l, mark_clean, apr_pool_cleanup_null);
    *out = l;
    return OK;
}

void wh_mod_lmdb_child_init(wh_mod_lmdb *l, apr_pool_t *pchild, server_rec *s)
{
    l->open_error = wh_replay_lmdb_open(pchild, l->path, l->map_size, &l->db);
    if (l->open_error)
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00978)
                     "ReplayCache %s: %s (every notification is answered "
                     "503)", l->spec, l->open_error);
}

wh_lmdb_result wh_mod_lmdb_check(wh_mod_lmdb *l, const wh_config *cfg,
                                 const wh_facts *f, apr_time_t now,
                                 const char **err)
{
    /* a notification signed too early for this store to judge is only
     * looked up: a duplicate is still a duplicate, anything else 503 */
    int may_add = !wh_replay_predates(f->signed_at, l->since, l->tolerance);

    if (l->db == NULL) {
        *err = l->open_error ? l->open_error : "not open";
        return WH_LMDB_ERROR;
    }
    wh_replay_owner self;
    wh_replay_owner_self(&self, WH_REPLAY_CLAIM_LEASE);
    return wh_replay_lmdb_claim(l->db, f->notification_id, now,
                                now + apr_time_from_sec(cfg->replay_window),
                                may_add, &self, err);
}

apr_time_t wh_mod_lmdb_since(const wh_mod_lmdb *l)
{
    return l->since;
}

apr_size_t wh_mod_lmdb_map_size(const wh_mod_lmdb *l)
{
    return l->map_size;
}

void wh_mod_lmdb_forget(request_rec *r, wh_mod_lmdb *l, const char *id)
{
    const char *err = NULL;
    if (l->db && wh_replay_lmdb_remove(l->db, id, &err) != 0)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00979)
                      "replay store %s: cannot remove notificationId=%s: %s",
                      l->spec, id, err ? err : "-");
}

void wh_mod_lmdb_settle(request_rec *r, wh_mod_lmdb *l, const char *id)
{
    const char *err = NULL;
    if (l->db && wh_replay_lmdb_settle(l->db, id, (apr_int64_t)getpid(), &err) != 0)
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, r, WHLOGNO(00946)
                      "replay store %s: cannot mark notificationId=%s "
                      "delivered: %s", l->spec, id, err ? err : "-");
}

int wh_mod_lmdb_fill(const wh_mod_lmdb *l, apr_uint64_t *live,
                     apr_uint64_t *capacity)
{
    apr_uint64_t used, size;
    if (l->db == NULL || wh_replay_lmdb_usage(l->db, live, &used, &size) != 0)
        return -1;
    *capacity = size / WH_REPLAY_LMDB_BYTES_PER_ID;
    return 0;
}
