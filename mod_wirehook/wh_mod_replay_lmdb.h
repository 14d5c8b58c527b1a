#ifndef WH_MOD_REPLAY_LMDB_H
#define WH_MOD_REPLAY_LMDB_H
/* ReplayCache lmdb (shared/replay/wh_replay_lmdb.h) in httpd's lifecycle;
 * wh_mod_replay.c decides and logs. */
#include "wh_mod_config.h"
#include "replay/wh_replay.h"
#include "replay/wh_replay_lmdb.h"
#include "replay/wh_replay_store.h"

/* Without a path, and without a build-time default: this file in
 * httpd's DefaultRuntimeDir. */
#define WH_REPLAY_LMDB_DEFAULT_FILE "wirehook-replay.mdb"

typedef struct wh_mod_lmdb wh_mod_lmdb;

/* The file of ReplayCache lmdb without a path (the default store). */
const char *wh_mod_lmdb_default_path(apr_pool_t *p);
/* The file of m's lmdb store: its path (server-root relative), or the
 * default; NULL for a path httpd cannot resolve. */
const char *wh_mod_lmdb_path(apr_pool_t *p, const wh_replay_model *m);
int wh_mod_lmdb_create(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                       const wh_replay_model *m, const char *spec,
                       const char *config_path, apr_int64_t tolerance,
                       int predecessor, wh_mod_lmdb **out);
/* Opens the store in this child: its store interface, or NULL (logged;
 * every notification is then answered 503). Its claims hold while their
 * process runs; lease bounds those of a process without a start time. */
wh_replay_store *wh_mod_lmdb_child_init(wh_mod_lmdb *l, apr_pool_t *pchild,
                                        server_rec *s,
                                        apr_interval_time_t lease);

#endif
