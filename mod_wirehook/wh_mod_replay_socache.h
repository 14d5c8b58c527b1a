#ifndef WH_MOD_REPLAY_SOCACHE_H
#define WH_MOD_REPLAY_SOCACHE_H
/* ReplayCache dbm and shmcb: httpd's mod_socache providers behind the
 * core's store interface (shared/replay/wh_replay_store.h). Both are one
 * machine's: a global mutex makes "look up, then store" one step among
 * this server's processes only. wh_mod_replay.c decides and logs. */
#include "wh_mod_config.h"
#include "replay/wh_replay.h"
#include "replay/wh_replay_store.h"

typedef struct wh_mod_socache wh_mod_socache;

/* post_config, in the parent: the provider's instance, the global mutex,
 * the ledger in shared memory, and (dbm) the epoch marker. OK, or an HTTP
 * error status after logging why. */
int wh_mod_socache_create(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                          const wh_replay_model *m, const char *spec,
                          const char *config_path, int index,
                          apr_int64_t window, wh_mod_socache **out);

/* child_init: re-attaches the mutex; the store for this child. */
wh_replay_store *wh_mod_socache_child_init(wh_mod_socache *sc,
                                           apr_pool_t *pchild, server_rec *s);

/* The dbm file a spec names (the default one in the runtime directory
 * when it names none), and whether it exists. */
const char *wh_mod_socache_dbm_path(apr_pool_t *p, const char *args);
int wh_mod_socache_dbm_exists(apr_pool_t *p, const char *path);

#endif
