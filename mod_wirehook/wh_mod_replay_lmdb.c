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
#include "verify/wh_fs.h"
#include "replay/wh_replay_lmdb_store.h"
#include <apr_strings.h>
#include <unistd.h>

#include "wh_mod_build.h"   /* WH_REPLAY_DEFAULT_PATH (apxs.mk) */

struct wh_mod_lmdb {
    const char *spec;
    const char *path;
    apr_size_t map_size;
    apr_time_t since;          /* when its memory began (0: known new) */
    pid_t parent;              /* the process that prepared it */
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
    return ap_runtime_dir_relative(p, WH_REPLAY_LMDB_DEFAULT_FILE);
}

const char *wh_mod_lmdb_path(apr_pool_t *p, const wh_replay_model *m)
{
    return m->path && *m->path ? ap_server_root_relative(p, m->path)
                               : wh_mod_lmdb_default_path(p);
}

int wh_mod_lmdb_create(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                       const wh_replay_model *m, const char *spec,
                       const char *config_path, apr_int64_t tolerance,
                       int predecessor, wh_mod_lmdb **out)
{
    wh_mod_lmdb *l = apr_pcalloc(pconf, sizeof(*l));
    wh_lmdb_trust trust;
    const char *err;

    l->spec = spec;
    l->path = wh_mod_lmdb_path(pconf, m);
    l->map_size = m->map_size;
    l->parent = getpid();
    if (l->path == NULL) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00973)
                     "WirehookConfig %s: ReplayCache %s: invalid path",
                     config_path, spec);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    err = wh_replay_lmdb_prepare(ptemp, l->path, l->map_size, apr_time_now(),
                                 predecessor, &l->since, &trust);
    if (err) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00974)
                     "WirehookConfig %s: ReplayCache %s: %s", config_path,
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
    if (wh_fs_on_ram(l->path))
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

wh_replay_store *wh_mod_lmdb_child_init(wh_mod_lmdb *l, apr_pool_t *pchild,
                                        server_rec *s,
                                        apr_interval_time_t lease)
{
    wh_replay_owner self;
    wh_replay_lmdb *db = NULL;
    const char *err = wh_replay_lmdb_open(pchild, l->path, l->map_size, &db);

    if (err) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, WHLOGNO(00978)
                     "ReplayCache %s: %s (every notification is answered "
                     "503)", l->spec, err);
        return NULL;
    }
    /* who this child is, read once: its claims hold while it runs */
    wh_replay_owner_self(&self, lease);
    return wh_replay_lmdb_store(pchild, db, l->since, &self);
}
