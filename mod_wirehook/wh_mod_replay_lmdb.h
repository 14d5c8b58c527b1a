#ifndef WH_MOD_REPLAY_LMDB_H
#define WH_MOD_REPLAY_LMDB_H
/* ReplayCache lmdb (shared/replay/wh_replay_lmdb.h) in httpd's lifecycle;
 * wh_mod_replay.c decides and logs. */
#include "wh_mod_site.h"
#include "replay/wh_replay.h"
#include "replay/wh_replay_lmdb.h"

typedef struct wh_mod_lmdb wh_mod_lmdb;

/* The file of ReplayCache lmdb without a path (the default store). */
const char *wh_mod_lmdb_default_path(apr_pool_t *p);
int wh_mod_lmdb_create(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                       const wh_replay_model *m, const char *spec,
                       const char *site_path, apr_int64_t tolerance,
                       int predecessor, wh_mod_lmdb **out);
void wh_mod_lmdb_child_init(wh_mod_lmdb *l, apr_pool_t *pchild, server_rec *s);
wh_lmdb_result wh_mod_lmdb_check(wh_mod_lmdb *l, const wh_config *cfg,
                                 const wh_facts *f, apr_time_t now,
                                 const char **err);
void wh_mod_lmdb_forget(request_rec *r, wh_mod_lmdb *l, const char *id);
void wh_mod_lmdb_settle(request_rec *r, wh_mod_lmdb *l, const char *id);
int wh_mod_lmdb_fill(const wh_mod_lmdb *l, apr_uint64_t *live,
                     apr_uint64_t *capacity);
apr_time_t wh_mod_lmdb_since(const wh_mod_lmdb *l);
apr_size_t wh_mod_lmdb_map_size(const wh_mod_lmdb *l);

#endif
